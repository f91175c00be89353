"""Quest archetypes: the structural shape of a quest, never its content.

The :class:`ArchetypeRegistry` holds every archetype, built-in or pack-defined,
and scoring reads the registry (scoring from a fixed table of the built-in ones
would never choose a pack's archetype).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.scaling import DEFAULT_SCALING, ScalingBounds
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.types import (
    BranchingPattern,
    NarrativeArc,
    NarrativeArcs,
    ObjectivePattern,
    QuestSeedType,
)

__all__ = ["ArchetypeRegistry", "ArchetypeScore", "QuestArchetype"]


@dataclass(kw_only=True)
class QuestArchetype:
    archetype_id: str
    name: str
    # Structure
    objective_pattern: ObjectivePattern
    branching: BranchingPattern = BranchingPattern.LINEAR
    estimated_steps: int = 3
    # Matching criteria
    compatible_seed_types: list[QuestSeedType] = field(default_factory=list)
    min_importance: float = 0.0
    requires_combat: bool = False
    requires_social: bool = False
    requires_exploration: bool = False
    # Narrative shape
    narrative_arc: NarrativeArc = NarrativeArcs.THREE_ACT
    tone: list[str] = field(default_factory=list)
    #: How likely completion leads to a follow-up quest, before adjustments.
    chain_potential: float = 0.3
    #: How far a quest of this shape may be fitted to the character accepting it.
    scaling: ScalingBounds = DEFAULT_SCALING
    #: How a group's progress is credited on its quests (a rules layer reads the
    #: quest's ``progression_mode``): shared credit for work a group does together.
    progression: ProgressionMode = ProgressionMode.INDIVIDUAL


@dataclass(frozen=True)
class ArchetypeScore:
    archetype: QuestArchetype
    score: float


class ArchetypeRegistry:
    """Every archetype the pipeline may use, and the seed -> archetype match."""

    #: A compatible secondary seed type of a compound seed counts this much.
    SECONDARY_MATCH: ClassVar[float] = 0.5
    #: Fit bonus per matching feature (combat/social/exploration).
    FEATURE_FIT: ClassVar[float] = 0.2
    #: Subtracted for each of the last few quests that used the archetype.
    REPEAT_PENALTY: ClassVar[float] = 0.15
    #: Added for an archetype none of the quests of the last days used (the
    #: caller says which were used): a seed that can be told as a kind of quest
    #: players have not met lately is told so, rather than as the kind the world
    #: raises most. A secondary match with it (0.5 + 0.4) passes a primary one
    #: among the last few quests (1.0 - 0.15), never a primary one not there.
    NOVELTY_BONUS: ClassVar[float] = 0.4

    def __init__(self, archetypes: Iterable[QuestArchetype] = ()) -> None:
        self._archetypes: dict[str, QuestArchetype] = {}
        for archetype in archetypes:
            self.register(archetype)

    def register(self, archetype: QuestArchetype, replace: bool = False) -> None:
        if archetype.archetype_id in self._archetypes and not replace:
            raise ValueError(f"archetype {archetype.archetype_id!r} is already registered")
        self._archetypes[archetype.archetype_id] = archetype

    def unregister(self, archetype_id: str) -> bool:
        return self._archetypes.pop(archetype_id, None) is not None

    def get(self, archetype_id: str) -> QuestArchetype | None:
        return self._archetypes.get(archetype_id)

    def all(self) -> list[QuestArchetype]:
        return list(self._archetypes.values())

    def __contains__(self, archetype_id: object) -> bool:
        return archetype_id in self._archetypes

    def __len__(self) -> int:
        return len(self._archetypes)

    # -- matching -----------------------------------------------------------------------
    def score(
        self,
        archetype: QuestArchetype,
        seed: QuestSeed,
        recent_archetypes: Sequence[str] = (),
        seen_lately: Collection[str] | None = None,
    ) -> float:
        """How well ``archetype`` fits ``seed``; 0 means it cannot be used.
        ``seen_lately``: the archetypes of a longer stretch of recent quests (None:
        no novelty counted)."""
        if seed.importance < archetype.min_importance:
            return 0.0
        if seed.seed_type in archetype.compatible_seed_types:
            score = 1.0
        elif any(t in archetype.compatible_seed_types for t in seed.secondary_seed_types):
            score = self.SECONDARY_MATCH
        else:
            return 0.0
        # Features the seed offers: a threat to fight, people to talk to, places to
        # search. An archetype needing a feature the seed lacks fits less well.
        offers_combat = bool(seed.threat_source)
        offers_social = bool(seed.party_a or seed.party_b or seed.involved_npcs)
        offers_exploration = bool(
            seed.evidence_location or seed.discovery_type or len(seed.affected_area) > 1
        )
        for needs, offers in (
            (archetype.requires_combat, offers_combat),
            (archetype.requires_social, offers_social),
            (archetype.requires_exploration, offers_exploration),
        ):
            if needs:
                score += self.FEATURE_FIT if offers else -self.FEATURE_FIT
        score -= self.REPEAT_PENALTY * list(recent_archetypes).count(archetype.archetype_id)
        if seen_lately is not None and archetype.archetype_id not in seen_lately:
            score += self.NOVELTY_BONUS
        return max(score, 0.01)

    def ranked(
        self,
        seed: QuestSeed,
        recent_archetypes: list[str] | None = None,
        rng: random.Random | None = None,
        usable: Callable[[QuestArchetype], bool] | None = None,
        seen_lately: Collection[str] | None = None,
    ) -> list[ArchetypeScore]:
        """Usable archetypes for ``seed``, best first. Ties are broken by ``rng``
        (the engine's seeded random) so equal archetypes take turns reproducibly."""
        recent = recent_archetypes or []
        scored: list[tuple[float, float, QuestArchetype]] = []
        for archetype in self._archetypes.values():
            if usable is not None and not usable(archetype):
                continue
            s = self.score(archetype, seed, recent, seen_lately)
            if s > 0.0:
                tie = rng.random() if rng is not None else 0.0
                scored.append((s, tie, archetype))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [ArchetypeScore(a, s) for s, _, a in scored]

    def select(
        self,
        seed: QuestSeed,
        recent_archetypes: list[str] | None = None,
        rng: random.Random | None = None,
        usable: Callable[[QuestArchetype], bool] | None = None,
    ) -> QuestArchetype | None:
        ranked = self.ranked(seed, recent_archetypes, rng, usable)
        return ranked[0].archetype if ranked else None
