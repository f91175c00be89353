"""docs/content-packs.md, "Extending quest generation": its examples run.

The complete example pack is taken from the page, started with Ironvale and made to
build a quest through the real pipeline; every YAML excerpt of the heist pack shown
there must still be what the pack ships.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from kits.engines import questgen_of
from kits.heist import admin, character, ticks

from admin import AdminContentPack
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.packcheck import check_pack, find_pack_class
from maid_stdlib.questgen import QuestGen

ROOT = Path(__file__).resolve().parents[2]
SECTION = (
    (ROOT / "docs" / "content-packs.md").read_text().split("## Extending quest generation", 1)[1]
)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, re.S)


def subset(part: Any, whole: Any) -> bool:
    """``part`` is ``whole`` with some mapping keys left out."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            k in whole and subset(v, whole[k]) for k, v in part.items()
        )
    if isinstance(part, list):
        return (
            isinstance(whole, list)
            and len(part) == len(whole)
            and all(subset(p, w) for p, w in zip(part, whole, strict=True))
        )
    return bool(part == whole)


async def test_the_example_pack_builds_a_quest(tmp_path: Path) -> None:
    (code,) = [b for b in blocks("python") if b.startswith("# content_packs/lanterns/pack.py")]
    folder = tmp_path / "lanterns"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "pack.py").write_text(code)
    pack = find_pack_class(folder)
    assert check_pack(pack) == []
    engine = GameEngine(
        Settings(data_dir=tmp_path, random_seed=3),
        clock=ManualClock(tick_game_seconds=60.0),
        packs=["ironvale", pack, AdminContentPack],
        use_store=False,
    )
    async with engine.lifespan():
        boss = character(engine, "Morgan", level=10)
        out = await admin(engine, boss, "@quest force-generate vigil_needed")
        assert "plans as archetype 'night_vigil'" in out
        await ticks(engine, 3)
        (quest,) = [
            oq.quest
            for oq in questgen_of(engine).open_quests().values()
            if oq.quest.archetype_id == "night_vigil"
        ]
        assert quest.title.startswith(("A Watch Over", "Lanterns at"))
        assert [o.objective_type.value for o in quest.objectives] == ["visit", "talk"]
        entry = engine.services.get(QuestGen).history.get(quest.id)
        assert entry is not None
        assert entry.seed_type == "vigil_needed"


def test_the_yaml_excerpts_are_what_the_heist_pack_ships() -> None:
    checked = 0
    for block in blocks("yaml"):
        first = block.splitlines()[0]
        match = re.fullmatch(r"# (content_packs/heist/\S+)", first)
        if match is None:
            continue
        shown = yaml.safe_load(block)
        shipped = yaml.safe_load((ROOT / match.group(1)).read_text())
        assert subset(shown, shipped), match.group(1)
        checked += 1
    assert checked >= 4
