"""Components of characters and NPCs beyond the shared ones in classic_rpg.components."""

from __future__ import annotations

from dataclasses import dataclass, field

from maid_engine.ecs import Component


@dataclass
class DialogueLine:
    """A line said only while every living-world condition of ``when`` holds for
    the NPC ("threat_known", "at:ironvale:tavern"); ``topic`` "" is the greeting."""

    topic: str
    text: str
    when: list[str] = field(default_factory=list)


@dataclass
class Dialogue(Component):
    """What an NPC says when talked to: a greeting and keyword topics.

    ``topics`` maps space-separated keywords ("bandits road") to the answer;
    ``ask gundrik about road`` matches when every word prefixes one keyword.
    ``lines`` are the conditional variants: the first whose conditions hold is
    said; ``greeting``/``topics`` hold the unconditional line ("" if there is none).
    """

    component_name = "Dialogue"
    greeting: str = ""
    topics: dict[str, str] = field(default_factory=dict)
    lines: list[DialogueLine] = field(default_factory=list)
