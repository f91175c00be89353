"""What living data adds to the living world besides components: factions and
crisis rules. A leaf module, so seeding (which fills these) does not import the
LivingWorld service that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FactionDef:
    key: str
    name: str
    hostile: bool = False
    description: str = ""
    #: Game days until a threat of this faction that players cleared comes back
    #: (None: never by itself), and how long before that the rumour spreads.
    regroup_days: float | None = 3.0
    regroup_warning_hours: float = 12.0


@dataclass
class CrisisRule:
    """A crisis: at least ``min_npcs`` NPCs of one area have ``need`` below ``below``."""

    need: str
    below: float = 0.25
    min_npcs: int = 3
    crisis_type: str = ""

    @property
    def kind(self) -> str:
        return self.crisis_type or f"{self.need}_crisis"


DEFAULT_CRISES = [CrisisRule("safety", 0.25, 3, "fear")]


@dataclass
class AmbientSettings:
    """How much NPCs say unprompted in a room where someone is (living data
    ``ambient:``)."""

    #: Mean game seconds between two lines of talk in a room with someone in it.
    interval: float = 900.0
    #: At most this many lines per ``window`` game seconds in one room.
    budget: int = 3
    window: float = 1440.0
    #: NPCs greet characters who come in.
    greet: bool = True


@dataclass
class Registries:
    factions: dict[str, FactionDef] = field(default_factory=dict)
    crises: list[CrisisRule] = field(default_factory=list)
    ambient: AmbientSettings = field(default_factory=AmbientSettings)
