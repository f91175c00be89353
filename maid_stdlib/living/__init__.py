"""The living world (Doc 03/07-lite): needs, goals, relationships, factions,
memory, gossip, schedules and autonomy. See docs/living-world.md.

Public API:

* components: ``NeedsComponent`` (``NeedState``, ``NeedRule``), ``GoalsComponent`` (``Goal``),
  ``Relationships`` (``Relationship``), ``FactionMembership``, ``FactionStandings``,
  ``FactionRelations``, ``SocialInfluence``, ``Wealth``; world facts
  ``SupplyRoutes``, ``WatchedRooms``, ``TradeGoods``, ``Hostile``, ``Schedule``,
  ``DiscoverySite``; ``KnownGossip``; ``Stranded`` (someone a threat keeps in place)
* bounded mutations: :mod:`maid_stdlib.living.api`
* ``MemoryService`` / ``EpisodicMemory`` / ``MemoryVisibility`` / ``EmotionalValence``
* gossip: :mod:`maid_stdlib.living.gossip` (``observe``, ``inject``, ``gossip_lines``)
* ``LivingWorld`` (service; ``Tie``: how an NPC stands with someone), ``LivingPlugin``,
  ``load_living_data(ctx, path)``
* systems: ``ScheduleSystem``, ``AutonomySystem``, ``SocialFabricSystem`` (phase living)
"""

from maid_stdlib.living.autonomy import AutonomySystem, ScheduleSystem, SocialFabricSystem
from maid_stdlib.living.components import (
    FactionMembership,
    FactionRelations,
    FactionStandings,
    Goal,
    GoalsComponent,
    GoalStatus,
    GoalTemplate,
    GoalType,
    NeedModifier,
    NeedRule,
    NeedsComponent,
    NeedState,
    NeedType,
    Relationship,
    Relationships,
    Satisfier,
    SocialInfluence,
    Stranded,
    Wealth,
)
from maid_stdlib.living.events import GoalFormedEvent, GoalStatusChangedEvent, ThreatObservedEvent
from maid_stdlib.living.facts import (
    DiscoverySite,
    Hostile,
    Schedule,
    ScheduleEntry,
    SupplyRoute,
    SupplyRoutes,
    TradeGoods,
    WatchedRooms,
)
from maid_stdlib.living.gossip import GossipItem, KnownGossip
from maid_stdlib.living.memory import (
    EmotionalValence,
    EpisodicMemory,
    MemoryService,
    MemoryVisibility,
)
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.living.registries import CrisisRule, FactionDef
from maid_stdlib.living.service import LivingWorld, Tie, load_living_data

__all__ = [
    "AutonomySystem",
    "CrisisRule",
    "DiscoverySite",
    "EmotionalValence",
    "EpisodicMemory",
    "FactionDef",
    "FactionMembership",
    "FactionRelations",
    "FactionStandings",
    "Goal",
    "GoalFormedEvent",
    "GoalStatus",
    "GoalStatusChangedEvent",
    "GoalTemplate",
    "GoalType",
    "GoalsComponent",
    "GossipItem",
    "Hostile",
    "KnownGossip",
    "LivingPlugin",
    "LivingWorld",
    "MemoryService",
    "MemoryVisibility",
    "NeedModifier",
    "NeedRule",
    "NeedState",
    "NeedType",
    "NeedsComponent",
    "Relationship",
    "Relationships",
    "Satisfier",
    "Schedule",
    "ScheduleEntry",
    "ScheduleSystem",
    "SocialFabricSystem",
    "SocialInfluence",
    "Stranded",
    "SupplyRoute",
    "SupplyRoutes",
    "ThreatObservedEvent",
    "Tie",
    "TradeGoods",
    "WatchedRooms",
    "Wealth",
    "load_living_data",
]
