"""The files of a new content pack: ``maid new-pack NAME [--dir D]``.

The pack is a world pack on the classic RPG rules (like Ironvale) with one room,
one NPC with a need and a schedule, and one hand-authored quest, each file
commented so a builder can read what every key does. It passes ``maid
check-pack`` as written and is served by ``maid run --pack ./NAME`` without
installing anything; its README says how to install it as a package too.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

#: A pack name is a world key and a Python package name at once.
NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class ScaffoldError(Exception):
    """The pack cannot be created (bad name, folder taken); nothing was written."""


def _title(name: str) -> str:
    return name.replace("_", " ").title()


def pack_files(name: str) -> dict[str, str]:
    """Relative path -> text of every file of the new pack ``name``."""
    title = _title(name)
    cls = "".join(part.title() for part in name.split("_")) + "Pack"
    return {
        "__init__.py": f'"""The {name} content pack."""\n',
        "pack.py": f'''"""The {name} content pack.

Its world is data: ``pack.yaml`` (the start room), ``areas/*.yaml`` (rooms, NPCs,
items), ``living.yaml`` (what the NPCs need and where they go) and ``quests.yaml``
(hand-written quests). See MAID's docs/content-packs.md.
"""

from __future__ import annotations

from classic_rpg.systems.quests.data import pack_quest_problems
from maid_engine.content import PackContext
from maid_stdlib.living import load_living_data
from maid_stdlib.world.datapack import WorldDataPack


class {cls}(WorldDataPack):
    name = "{name}"
    version = "0.1.0"
    # The packs this one builds on: the standard library (world, living NPCs,
    # quests) and the classic RPG rules (stats, combat, dialogue).
    requires = ("stdlib", "classic_rpg")
    description = "{title}: a new MAID content pack."

    def register(self, ctx: PackContext) -> None:
        super().register(ctx)
        load_living_data(ctx, self.path / "living.yaml")

    def validate_data(self, ctx: PackContext) -> list[str]:
        # quests.yaml is read when the server starts; `maid check-pack` checks it too.
        return [*super().validate_data(ctx), *pack_quest_problems(ctx)]
''',
        "pack.yaml": f"""# The pack's manifest.
name: {name}
description: {title}, a new MAID content pack.
start_room: hall          # where new characters start
""",
        f"areas/{name}.yaml": (
            "# One area per file. Keys are lower-case; a room of this pack is named by\n"
            '# its key ("hall"), a room of a pack this one requires by "pack:key".\n'
        )
        + f"""
area:
  key: {name}
  name: {title}
  region: {name}

rooms:
  - key: hall
    name: The Hall of {title}
    flags: [safe]
    description: >
      A bare hall of whitewashed stone, waiting for a builder. A steward keeps
      a ledger at a table by the door.
    details:
      ledger table: The ledger is empty but for today's date.
    # exits:
    #   north: yard         # add a room with key "yard" and it joins here

npcs:
  - key: steward
    name: Aldo the steward
    keywords: [aldo, steward]
    short: Aldo the steward stands by his ledger.
    description: >
      A neat man in grey with ink on his fingers and a pen behind his ear.
    room: hall
    stats: {{level: 2, hp: 20}}       # the RPG layer's numbers
    combat: {{attackable: false}}
    dialogue:
      greeting:
        - text: Welcome! The ledger wants a name. Ask me about the ledger.
      topics:
        ledger:
          - text: Every visitor signs it. Talk to me and I shall write you in.

items:
  - key: quill
    name: a grey quill
    keywords: [quill, pen]
    description: A goose quill, cut for writing.
    room: hall
    stats: {{tier: 1, value: 1}}      # stats make an item something you can carry
""",
        "living.yaml": """# The living world: what NPCs need, and where they go during the day.
npcs:
  steward:
    needs:
      social:
        value: 0.6            # 0 (desperate) .. 1 (content)
        decay: 0.002          # lost per tick
        threshold: 0.3        # below this the NPC wants something done
    schedule:
      - {hour: 8, room: hall}
""",
        "quests.yaml": """# Hand-written quests (format: MAID's docs/quests.md).
quests:
  - id: sign-ledger
    title: Sign the Ledger
    summary: Aldo the steward wants every visitor in his ledger.
    giver: steward
    level: 1
    objectives:
      - {id: sign, type: talk, npc: steward, description: Talk to Aldo to sign the ledger.}
    rewards: {experience: 10, gold: 2}
""",
        "README.md": f"""# {title}

A MAID content pack, made by `maid new-pack {name}`.

- Check it: `maid check-pack ./{name}` (every problem at once, `file: entry: problem`).
- Serve it: `maid run --pack ./{name}` (add `--pack admin` for the `@` commands).
- While editing: `maid run --pack ./{name} --watch` reloads the data files when
  they change; in the game, a builder types `@reload {name}`.

Files: `pack.py` (the pack class), `pack.yaml` (manifest and start room),
`areas/*.yaml` (rooms, NPCs, items), `living.yaml` (needs, schedules),
`quests.yaml` (hand-written quests). MAID's `docs/content-packs.md` describes
every key.

To install it as a package instead (so `--pack {name}` finds it by name), put it
in a project whose `pyproject.toml` declares the entry point:

```toml
[project.entry-points."maid.content_packs"]
{name} = "{name}.pack:{cls}"
```
""",
    }


def scaffold_pack(name: str, parent: Path) -> Path:
    """Write the new pack ``name`` into ``parent/name``; the folder it made."""
    if not NAME.match(name):
        raise ScaffoldError(
            f"{name!r} is not a pack name: lower-case letters, digits and _, starting with a letter"
        )
    folder = parent / name
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists; choose another name or --dir")
    for rel, text in pack_files(name).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="maid new-pack", description="create a new content pack to start from"
    )
    parser.add_argument("name", help="the pack's name (lower-case letters, digits, _)")
    parser.add_argument("--dir", default=".", help="the folder to create it in (default: .)")
    args = parser.parse_args(list(argv))
    try:
        folder = scaffold_pack(args.name, Path(args.dir))
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # "--pack NAME" would look for an installed pack: show a path.
    shown = str(folder) if folder.is_absolute() or str(folder).startswith(".") else f"./{folder}"
    print(f"created {shown}")
    print(f"check it:  maid check-pack {shown}")
    print(f"serve it:  maid run --pack {shown}")
    return 0
