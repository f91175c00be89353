"""Hamlet under the RPG rules: a test-only pack that gives Hamlet's entries the
rules sections (``stats:``, ``combat:``) of rules_data/rules.yaml.

Hamlet's own data must load on the stdlib alone, where those sections are unknown;
this pack requires classic_rpg (which registers them) and, once every pack has
registered, adds them to the loaded entries through the world data's public
extension registry, validated by the same models as a pack's YAML. Spawning, and
respawning, then apply them like any other section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kits.hamlet.pack import HamletPack
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.world import WorldData

#: Its own folder: a pack's folder is where other layers look for its data files
#: (quests.yaml, say), and Hamlet's are Hamlet's.
DATA = Path(__file__).resolve().parent / "rules_data"
RULES = DATA / "rules.yaml"


class HamletRules(ContentPack):
    name = "hamlet_rules"
    requires = (HamletPack, "classic_rpg")
    description = "The RPG sections of Hamlet's wolves and things (a test pack)."

    @property
    def path(self) -> Path:
        return DATA

    def register(self, ctx: PackContext) -> None:
        pass

    def finish(self, ctx: PackContext) -> None:
        data = ctx.service(WorldData)
        loaded = data.load(HamletPack.name)
        raw: dict[str, dict[str, dict[str, Any]]] = yaml.safe_load(RULES.read_text("utf-8"))
        for kind, entries in raw.items():
            for key, sections in entries.items():
                entry = loaded.entries[kind].get(key)
                if entry is None:
                    raise ctx.error(f"rules.yaml: no {kind} {key!r} in Hamlet", RULES)
                for section, value in sections.items():
                    extension = data.extension(kind, section)
                    if extension is None:
                        raise ctx.error(f"rules.yaml: no {kind} section {section!r}", RULES)
                    entry.extensions[section] = extension.model.model_validate(value)
