"""Components of combat: how NPCs fight, who is fighting whom, loot and respawns."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.ecs import Component


@dataclass
class CombatProfile(Component):
    """How an NPC fights (players derive theirs from equipment and attributes)."""

    component_name = "CombatProfile"
    damage_min: int = 1
    damage_max: int = 3
    armor: int = 0
    #: Experience the killer gets.
    xp_value: int = 20


@dataclass
class CombatRules(Component):
    """An NPC's combat behaviour, from its ``combat:`` data section."""

    component_name = "CombatRules"
    #: Attacks player characters who enter its room (and those there when it arrives).
    hostile: bool = False
    #: False for quest givers and shopkeepers: ``kill`` refuses them.
    attackable: bool = True
    #: Game seconds after death until a new one appears at its spawn room; None: never.
    respawn: float | None = None


@dataclass
class SpawnPoint(Component):
    """The room an NPC respawns in (its data room, else where it died)."""

    component_name = "SpawnPoint"
    room: str = ""


@dataclass
class LootEntry:
    """One line of a loot table: an item template dropped with a chance."""

    item: str = ""
    chance: float = 1.0
    min_count: int = 1
    max_count: int = 1
    #: At most this many of ``item`` in the world once it dropped (0: no limit).
    max_exist: int = 0


@dataclass
class LootTable(Component):
    component_name = "LootTable"
    entries: list[LootEntry] = field(default_factory=list)


@dataclass
class Fighting(Component):
    """This entity is in a fight with ``target``; the CombatSystem resolves its rounds.

    Runtime only: fights do not survive a restart.
    """

    component_name = "Fighting"
    persist = False
    target: UUID | None = None
    #: When this entity attacks next, on the engine's monotonic (real-second) clock.
    next_round: float = 0.0


@dataclass
class Wimpy(Component):
    """A player's wimpy setting: below ``hp`` health they try to flee on their own."""

    component_name = "Wimpy"
    hp: int = 0


@dataclass
class PendingRespawn(Component):
    """A scheduled respawn, kept on its own small persistent entity so that a
    restart before ``due`` still brings the NPC back."""

    component_name = "PendingRespawn"
    template: str = ""
    room: str = ""
    due: float = 0.0
