"""The generated reference of the extension points cannot rot: the documented
command builds it, and the classes it is about document every public member."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pdoc.doc

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    line.strip()
    for line in (ROOT / "docs" / "reference-modules.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]

#: Module -> the classes whose every public member must have its own docstring.
DOCUMENTED = {
    "maid_stdlib.story.detectors": ["Detection"],
    "maid_stdlib.questgen.seed": ["QuestSeed"],
    "maid_stdlib.questgen.facts": ["WorldFacts"],
    "maid_stdlib.world.schema": ["AreaSpec", "RoomSpec", "ThingSpec", "PackManifest"],
    "maid_stdlib.world.extensions": ["ExtensionContext", "CheckScope"],
    "maid_stdlib.narration.rooms": ["NarratedData"],
    "classic_rpg.combat.data": ["NpcStatsData", "CombatData", "LootData"],
    "classic_rpg.items.data": ["ItemStatsData"],
    "classic_rpg.items.ownership": ["OwnerData"],
    "classic_rpg.characters.dialogue": ["DialogueData"],
}
#: Members every class has from its base (pydantic's, the spec's entry kind).
INHERITED = {"kind", "model_config"}


def test_every_documented_module_is_in_the_reference() -> None:
    assert set(DOCUMENTED) <= set(MODULES)
    assert "maid_stdlib.world.reload" in MODULES
    for name in MODULES:
        importlib.import_module(name)


def test_the_extension_points_document_every_public_member() -> None:
    missing = []
    for module_name, classes in DOCUMENTED.items():
        module = pdoc.doc.Module(importlib.import_module(module_name))
        for class_name in classes:
            cls = module.get(class_name)
            assert isinstance(cls, pdoc.doc.Class), (module_name, class_name)
            if not (vars(cls.obj).get("__doc__") or "").strip():
                missing.append(f"{module_name}.{class_name}")
            for member in cls.own_members:
                if member.name.startswith("_") or member.name in INHERITED:
                    continue
                if not member.docstring.strip():
                    missing.append(f"{module_name}.{class_name}.{member.name}")
    assert missing == [], "document these (a string right after a field): " + ", ".join(missing)


def test_the_documented_command_builds_the_reference(tmp_path: Path) -> None:
    out = tmp_path / "reference"
    done = subprocess.run(
        [str(ROOT / "scripts" / "docs"), str(out)],
        env={**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "index.html").is_file()
    for name in MODULES:
        page = out / (name.replace(".", "/") + ".html")
        assert page.is_file(), name
    items = (out / "classic_rpg" / "items" / "data.html").read_text()
    assert "what makes an item portable" in items
    schema = (out / "maid_stdlib" / "world" / "schema.html").read_text()
    assert "To join another pack&#39;s room" in schema or "To join another pack's room" in schema
    seed = (out / "maid_stdlib" / "questgen" / "seed.html").read_text()
    assert "The NPC who would give the quest." in seed


def test_the_pack_guide_links_the_reference() -> None:
    guide = (ROOT / "docs" / "content-packs.md").read_text()
    assert "[reference.md](reference.md)" in guide
    assert "./scripts/docs" in (ROOT / "docs" / "reference.md").read_text()
