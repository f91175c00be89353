"""Components of characters and NPCs beyond the shared ones in classic_rpg.components."""

from __future__ import annotations

from dataclasses import dataclass, field

from maid_engine.ecs import Component


@dataclass
class Dialogue(Component):
    """What an NPC says when talked to: a greeting and keyword topics.

    ``topics`` maps space-separated keywords ("bandits road") to the answer;
    ``ask gundrik about road`` matches when every word prefixes one keyword.
    """

    component_name = "Dialogue"
    greeting: str = ""
    topics: dict[str, str] = field(default_factory=dict)
