"""`maid new-pack` writes a pack that check-pack passes and `--pack ./folder` serves;
packs load from folders without being installed."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.fixtures import served, telnet

from classic_rpg.scaffold import ScaffoldError, scaffold_pack
from maid_engine.cli import main
from maid_engine.content import PackError, collect_packs, resolve_pack
from maid_engine.content.folder import is_path_ref
from maid_engine.packcheck import check_pack

__all__ = ["telnet"]


def test_the_scaffold_passes_check_pack_and_explains_itself(tmp_path: Path) -> None:
    folder = scaffold_pack("lantern_row", tmp_path)
    assert folder == tmp_path / "lantern_row"
    assert check_pack(folder) == []
    names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert names == {
        "__init__.py",
        "pack.py",
        "pack.yaml",
        "areas/lantern_row.yaml",
        "living.yaml",
        "quests.yaml",
        "README.md",
    }
    # Every data file is commented for the builder who reads it.
    for name in ("pack.yaml", "areas/lantern_row.yaml", "living.yaml", "quests.yaml"):
        assert (folder / name).read_text().startswith("#"), name
    readme = (folder / "README.md").read_text()
    assert "maid run --pack ./lantern_row" in readme
    assert 'lantern_row = "lantern_row.pack:LanternRowPack"' in readme


def test_a_bad_name_or_a_taken_folder_writes_nothing(tmp_path: Path) -> None:
    for bad in ("Lantern", "9lives", "a-b", "../up", ""):
        with pytest.raises(ScaffoldError, match="is not a pack name"):
            scaffold_pack(bad, tmp_path)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "taken").mkdir()
    with pytest.raises(ScaffoldError, match="already exists"):
        scaffold_pack("taken", tmp_path)
    assert list((tmp_path / "taken").iterdir()) == []


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new-pack", "demo", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"created {tmp_path / 'demo'}" in out
    assert f"maid run --pack {tmp_path / 'demo'}" in out
    assert main(["new-pack", "demo", "--dir", str(tmp_path)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["check-pack", str(tmp_path / "demo")]) == 0


def test_the_command_line_shows_a_relative_folder_as_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new-pack", "demo"]) == 0
    # "--pack demo" would look for an installed pack called demo.
    assert "maid run --pack ./demo" in capsys.readouterr().out


def test_path_refs() -> None:
    for ref in ("./demo", "/srv/packs/demo", "~/demo", "packs/demo"):
        assert is_path_ref(ref), ref
    for ref in ("hamlet", "kits.hamlet.pack:HamletPack"):
        assert not is_path_ref(ref), ref


def test_a_folder_pack_may_import_its_own_modules(tmp_path: Path) -> None:
    folder = tmp_path / "tidy"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "names.py").write_text('NAME = "tidy"\n')
    (folder / "pack.py").write_text(
        "from maid_engine.content import ContentPack\n"
        "from .names import NAME\n\n\n"
        "class TidyPack(ContentPack):\n"
        "    name = NAME\n\n"
        "    def register(self, ctx):\n"
        "        pass\n"
    )
    cls = resolve_pack(str(folder))
    assert cls.name == "tidy"
    assert cls().path == folder.resolve()
    # Loading it again gives the same class (one module per folder).
    assert resolve_pack(str(folder)) is cls
    assert [p.name for p in collect_packs([str(folder)])] == ["tidy"]


def test_a_folder_without_a_pack_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PackError, match=r"no pack\.py"):
        resolve_pack(str(tmp_path))
    (tmp_path / "pack.py").write_text("import nowhere_to_be_found\n")
    with pytest.raises(PackError, match=r"cannot import .*ModuleNotFoundError"):
        resolve_pack(str(tmp_path))
    (tmp_path / "pack.py").write_text("X = 1\n")
    with pytest.raises(PackError, match="defines no ContentPack subclass"):
        resolve_pack(str(tmp_path))


async def test_run_serves_a_new_pack_from_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, telnet: ClientPool
) -> None:
    scaffold_pack("demo", tmp_path)
    monkeypatch.chdir(tmp_path)
    async with served(tmp_path / "data", packs=["./demo"]) as server:
        # A generous timeout: this test starts every layer of the game.
        client = await telnet.open("127.0.0.1", server.telnet_port, within=30.0)
        out = flat(await client.create("Tess", "quiet-harbour-7"))
        assert "The Hall of Demo" in out
        assert "Aldo the steward stands by his ledger." in out
        offer = flat(await client.command("talk aldo"))
        assert "Quest offered: 'Sign the Ledger'" in offer
        assert "You pick up a grey quill." in flat(await client.command("get quill"))


SCHEMA_WITH_MISTAKES = """\
# A narrated hall with one mistake in each layer.
player:
  nerve:
    min: 0
    max: 10
    initial: 17
npcs:
  aldo:
    name: Aldo
    stats:
      patience:
        min: 0
        max: 10
        initial: 5
        max_delta_per_turn: -2
milestones:
  signed:
    desc: The ledger is signed
    requires:
      npc.clerk.patience: "> 2"
  calm:
    desc: Aldo is calm
    requires:
      npc.aldo.patience: "> 2"
"""

SOCIALS_WITH_MISTAKES = """\
socials:
  tip:
    actor: You tip your hat.
    room: $n tips a hat.
  wink:
    actor: You wink at $N.
    room: $n winks.
"""


def test_check_pack_reports_every_layer_at_its_line_once(tmp_path: Path) -> None:
    """Mistakes planted in a new pack's narrated schema and talk data are each
    reported once, at the file and line where they are written; a milestone that
    waits on a broken stat is not reported again."""
    folder = scaffold_pack("ledger_hall", tmp_path)
    area = folder / "areas" / "ledger_hall.yaml"
    narrated = "    flags: [safe]\n    narrated:\n      schema_file: hall.yaml\n"
    area.write_text(area.read_text().replace("    flags: [safe]\n", narrated, 1))
    (folder / "hall.yaml").write_text(SCHEMA_WITH_MISTAKES)
    (folder / "socials.yaml").write_text(SOCIALS_WITH_MISTAKES)
    pack_py = folder / "pack.py"
    pack_py.write_text(
        pack_py.read_text()
        .replace(
            "from maid_stdlib.living import load_living_data",
            "from maid_stdlib.living import load_living_data\n"
            "from maid_stdlib.talk import TalkData",
        )
        .replace(
            '        load_living_data(ctx, self.path / "living.yaml")',
            '        load_living_data(ctx, self.path / "living.yaml")\n'
            '        ctx.service(TalkData).add_socials(self.name, self.path / "socials.yaml")',
        )
    )
    problems = check_pack(folder)
    text = "\n".join(problems)
    assert "ledger_hall/hall.yaml:3: room 'hall'" in text, text
    assert "player.nerve: initial 17 is above max 10" in text
    assert "ledger_hall/hall.yaml:11: " in text, text
    assert "npcs.aldo.patience: max_delta_per_turn must be above 0" in text
    assert "ledger_hall/hall.yaml:19: " in text, text
    assert "milestones.signed.requires: npc.clerk.patience is not in the schema" in text
    assert "milestones.calm" not in text  # waits on the broken stat: no cascade
    assert "ledger_hall/socials.yaml:5: socials.wink: actor has no target" in text, text
    assert len(problems) == len(set(problems))
    lines = [line for p in problems for line in p.splitlines()]
    assert len(lines) == 4, lines
