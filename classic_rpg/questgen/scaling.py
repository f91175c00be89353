"""Per-character difficulty of generated quests in the classic RPG.

The stdlib fits a generated quest to whoever accepts it
(:func:`maid_stdlib.questgen.scaling.plan_adjustment`: counts, time limits, the
reward factor, within the archetype's bounds) and records it on the quest's
history entry. :class:`RpgQuestFitting` is the QuestManager's accept adjuster that
asks for it and turns the adjustment into the character's
:class:`~classic_rpg.systems.quests.scaling.QuestScaling`, adding the RPG's own
terms:

* the rating: a character's level, or, when they are in a group, the group's
  (:func:`group_level`: the members' mean level, one more for each member beyond
  the first), against the quest's tier (``LevelStanding``'s effort);
* the enemies: every counted kill of a kind ("defeat three wolves") gets the
  quest's own foes, spawned for the acceptor at a level fitted to the rating
  within the archetype's bounds (:func:`~classic_rpg.systems.quests.foes.
  fitted_level`), so the world's shared foes stay as they are for everyone else;
* experience scales like gold (the work actually asked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol
from uuid import UUID

from classic_rpg.components import CharacterStats
from classic_rpg.questgen.challenge import LevelStanding
from classic_rpg.questgen.terms import rpg_terms
from classic_rpg.systems.quests.foes import fitted_level
from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import FoeSpec
from classic_rpg.systems.quests.scaling import QuestScaling
from maid_engine.ports import ServicesPort, WorldPort
from maid_stdlib.questgen import GeneratedQuest, ObjectiveType
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.scaling import (
    DEFAULT_SCALING,
    DifficultyAdjustment,
    ScalingBounds,
    plan_adjustment,
    scale_amount,
)
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.world.loader import WorldData

__all__ = ["RpgQuestFitting", "group_level", "scaling_of"]


class FittingHost(WorldPort, ServicesPort, Protocol):
    """What fitting reads: levels and where the foes stand, the templates' data."""


def group_level(levels: Sequence[int]) -> int:
    """The level a group is rated at: the members' mean, rounded, plus one per
    member beyond the first (three level-2 characters fight like a level-4 one)."""
    if not levels:
        return 1
    return round(sum(levels) / len(levels)) + len(levels) - 1


def scaling_of(adjustment: DifficultyAdjustment) -> QuestScaling:
    """The QuestManager's terms of a stdlib adjustment (hours become seconds)."""
    return QuestScaling(
        target_counts=dict(adjustment.counts),
        time_limits=dict(adjustment.objective_time_limits),
        time_limit_seconds=(
            adjustment.time_limit * 3600.0 if adjustment.time_limit is not None else None
        ),
        reward_factor=adjustment.reward_factor,
    )


class RpgQuestFitting:
    """``QuestManager.accept_adjusters`` entry: fits open generated quests."""

    def __init__(
        self,
        engine: FittingHost,
        qg: QuestGen,
        generation: QuestGenerationService,
        group_of: Callable[[UUID], list[UUID]] | None = None,
    ) -> None:
        self.engine = engine
        self.qg = qg
        self.generation = generation
        #: Everyone in a character's group (empty when not in one); the groups
        #: plugin's, when it is loaded.
        self.group_of: Callable[[UUID], list[UUID]] = group_of or (lambda uid: [])

    def level(self, uid: UUID) -> int:
        stats = self.engine.world.try_component(uid, CharacterStats)
        return stats.level if stats is not None else 1

    def __call__(self, quest: Quest, character: UUID) -> QuestScaling | None:
        open_quest = self.generation.open_quest(quest.quest_id)
        if open_quest is None:
            return None  # authored, or no longer open: as defined
        generated = open_quest.quest
        archetype = self.qg.archetypes.get(generated.archetype_id)
        bounds = archetype.scaling if archetype is not None else DEFAULT_SCALING
        group = self.group_of(character)
        members = [character, *(m for m in group if m != character)] if group else [character]
        levels = [self.level(m) for m in members]
        rated = group_level(levels)
        match = LevelStanding(rated).against(generated.difficulty)
        reason = match.rating
        if len(members) > 1:
            listed = ", ".join(str(lv) for lv in levels)
            reason = f"a group of {len(members)} (levels {listed}) rated {reason}"
        foes = self._foe_objectives(generated)
        adjustment = plan_adjustment(generated, members, match.effort, reason, bounds)
        # Experience is the RPG's own reward: it scales like gold, recorded here.
        experience = rpg_terms(generated).experience
        scaled = scale_amount(experience, adjustment.reward_factor)
        if scaled != experience:
            adjustment.add("experience", experience, scaled)
        scaling = scaling_of(adjustment)
        scaling.foes.update(self._foes(generated, foes, rated, bounds, adjustment))
        self.qg.history.record_adjustment(quest.quest_id, adjustment)
        return scaling

    def _foe_objectives(self, quest: GeneratedQuest) -> dict[str, tuple[str, str]]:
        """Objective id -> (template, room) of each counted kill of a kind: where
        the world's foes of the kind were seen, the quest's own will stand."""
        out: dict[str, tuple[str, str]] = {}
        for o in quest.objectives:
            if o.objective_type is not ObjectiveType.KILL or o.quantity <= 1:
                continue
            room = o.target_location or self._room_of(o.target_entity_ids)
            if o.target_template and room:
                out[o.id] = (o.target_template, room)
        return out

    def _foes(
        self,
        quest: GeneratedQuest,
        objectives: dict[str, tuple[str, str]],
        rated: int,
        bounds: ScalingBounds,
        adjustment: DifficultyAdjustment,
    ) -> dict[str, FoeSpec]:
        """The quest's own foes of ``objectives``, at the rated level within the
        bounds."""
        out: dict[str, FoeSpec] = {}
        for o in quest.objectives:
            if o.id not in objectives:
                continue
            template, room = objectives[o.id]
            base = self._template_level(template, o.target_entity_ids)
            level = fitted_level(base, rated, bounds.min_factor, bounds.max_factor)
            out[o.id] = FoeSpec(template=template, room=room, level=level, base_level=base)
            count = adjustment.counts.get(o.id, o.quantity)
            adjustment.add(
                f"foes of {o.id} (level, own {count})",
                base,
                level,
                "" if level == rated else f"bounded by the archetype (rated level {rated})",
            )
        return out

    def _room_of(self, entities: Sequence[UUID]) -> str | None:
        return next((r for r in (self.qg.facts.room_of(u) for u in entities) if r), None)

    def _template_level(self, template: str, known: Sequence[UUID]) -> int:
        world = self.engine.world
        for uid in known:
            stats = world.try_component(uid, CharacterStats)
            if stats is not None:
                return stats.level
        entry = self.engine.services.get(WorldData).template(template, "npc")
        data = entry.extensions.get("stats") if entry is not None else None
        level = getattr(data, "level", None)
        return level if isinstance(level, int) else 1
