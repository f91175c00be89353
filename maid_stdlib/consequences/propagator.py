"""ConsequencePropagator: a planned QuestConsequence -> a WorldMutation.

It plans, it never applies: ``plan_mutation`` is its only public entry point, and
the ConsequenceSystem collects the results into a WorldMutationBatch that is
validated and applied as a whole.

Decisions (see docs/consequences.md):

* Success consequences are scaled by ``OUTCOME_SCALE`` of the graded outcome;
  the caller passes the factor.
* A consequence whose target no longer exists, or whose goal is already finished,
  plans to None: one consequence that cannot happen does not void the others.
* Bounded changes (trust, standing, needs, goal progress, influence, coin) are
  planned *saturating*: a PERFECT bonus that would push reputation past 1 stops
  at 1 instead of invalidating the whole batch.
* Generated gossip has confidence 0.9 (only first-hand observation is 1.0) and is
  told by the consequence's NPC, or the quest giver when it names none.
* Memories are PUBLIC, tagged ``quest``, the outcome and ``visibility:public``,
  so the narrative context (``get_recent(..., PUBLIC)``) and gossip can use them.
* Every NPC the quest involved besides its giver gets a witness memory
  (:func:`witness_memory`, tagged ``quest_witness``), at half the quest's importance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from uuid import UUID

from maid_engine.ecs import World
from maid_stdlib.consequences.mutations import WorldMutation, statement_id
from maid_stdlib.consequences.outcome import OUTCOME_SCALE
from maid_stdlib.living import api
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.living.gossip import GENERATED_CONFIDENCE_CAP
from maid_stdlib.living.memory import EmotionalValence
from maid_stdlib.questgen.quest import ConsequenceType, QuestConsequence
from maid_stdlib.questgen.vocabulary import QuestOutcome

__all__ = ["WITNESS_IMPORTANCE", "ConsequencePropagator", "PlanContext", "witness_memory"]

C = ConsequenceType

_VALENCE = {
    QuestOutcome.PERFECT: (EmotionalValence.VERY_POSITIVE, 0.8),
    QuestOutcome.COMPLETED: (EmotionalValence.POSITIVE, 0.8),
    QuestOutcome.PARTIAL_SUCCESS: (EmotionalValence.POSITIVE, 0.4),
    QuestOutcome.PYRRHIC_VICTORY: (EmotionalValence.POSITIVE, 0.5),
    QuestOutcome.FAILED: (EmotionalValence.NEGATIVE, 0.5),
    QuestOutcome.EXPIRED: (EmotionalValence.NEGATIVE, 0.5),
    QuestOutcome.ABANDONED: (EmotionalValence.NEGATIVE, 0.5),
}


@dataclass(frozen=True)
class PlanContext:
    """What a consequence alone does not say: which quest, how it ended, who gave
    it (the default teller of gossip), how much it mattered, where and when."""

    quest_id: str
    outcome: QuestOutcome
    giver: UUID | None = None
    importance: float = 0.5
    location: str | None = None


class ConsequencePropagator:
    OUTCOME_SCALE: ClassVar[dict[QuestOutcome, float]] = OUTCOME_SCALE
    #: Generated gossip never reaches first-hand certainty (Doc 03 convention).
    GOSSIP_CONFIDENCE: ClassVar[float] = GENERATED_CONFIDENCE_CAP

    def plan_mutation(
        self,
        consequence: QuestConsequence,
        character_id: UUID | None,
        outcome_scale: float,
        world: World,
        *,
        context: PlanContext | None = None,
    ) -> WorldMutation | None:
        """The WorldMutation carrying out ``consequence``, or None if it cannot happen.

        ``character_id`` is who did the quest (None: nobody, e.g. an offer that
        expired untaken; consequences about a character are then skipped).
        ``outcome_scale`` multiplies every numeric change.
        """
        c = consequence
        npc = (
            c.target_npc if c.target_npc is not None and world.entity_exists(c.target_npc) else None
        )
        s = outcome_scale
        match c.consequence_type:
            case C.NPC_GOAL_ADVANCE:
                if npc is None or c.goal_progress is None or not _open_goal(world, npc, c):
                    return None
                return WorldMutation(
                    "npc_goal_advance",
                    npc,
                    c.target_key,
                    c.goal_progress * s,
                    description=c.description,
                    saturate=True,
                )
            case C.NPC_GOAL_COMPLETE:
                if npc is None or not _open_goal(world, npc, c):
                    return None
                return WorldMutation(
                    "npc_goal_complete", npc, c.target_key, None, description=c.description
                )
            case C.NPC_NEED_SATISFY:
                if npc is None or c.need_delta is None:
                    return None
                need = c.target_key or api.default_need(world, npc)
                if need is None or api.get_need_value(world, npc, need) is None:
                    return None
                return WorldMutation(
                    "npc_need_satisfy",
                    npc,
                    need,
                    c.need_delta * s,
                    description=c.description,
                    saturate=True,
                )
            case C.RELATIONSHIP_CHANGE:
                if npc is None or c.relationship_delta is None or character_id is None:
                    return None
                return WorldMutation(
                    "relationship_change",
                    npc,
                    str(character_id),
                    c.relationship_delta * s,
                    description=c.description,
                    saturate=True,
                )
            case C.FACTION_STANDING:
                if not c.target_faction or c.faction_delta is None or character_id is None:
                    return None
                return WorldMutation(
                    "faction_standing",
                    character_id,
                    c.target_faction,
                    c.faction_delta * s,
                    payload={"faction": c.target_faction},
                    description=c.description,
                    saturate=True,
                )
            case C.ECONOMIC_CHANGE:
                if npc is None or c.economic_amount is None:
                    return None
                return WorldMutation(
                    "economic_change",
                    npc,
                    None,
                    c.economic_amount * s,
                    description=c.description,
                    saturate=True,
                )
            case C.SOCIAL_INFLUENCE:
                if npc is None or c.social_influence_delta is None:
                    return None
                return WorldMutation(
                    "social_influence",
                    npc,
                    None,
                    c.social_influence_delta * s,
                    description=c.description,
                    saturate=True,
                )
            case C.GOSSIP_INJECTION:
                return self._gossip(c, npc, character_id, world, context)
            case C.MEMORY_CREATION:
                return self._memory(c, npc, character_id, world, context)
            case C.WORLD_STATE:
                if not c.world_state_key:
                    return None
                return WorldMutation(
                    "world_state",
                    None,
                    c.world_state_key,
                    None,
                    payload={"value": c.world_state_value},
                    description=c.description,
                )
            case _:
                return None

    def _gossip(
        self,
        c: QuestConsequence,
        npc: UUID | None,
        character_id: UUID | None,
        world: World,
        context: PlanContext | None,
    ) -> WorldMutation | None:
        teller = npc or _existing(world, context.giver if context else None)
        content = (c.gossip_content or c.description or "").strip()
        if teller is None or not content:
            return None
        quest_id = context.quest_id if context else "quest"
        outcome = context.outcome.value if context else "completed"
        return WorldMutation(
            "gossip_injection",
            teller,
            None,
            None,
            payload={
                "tellers": [str(teller)],
                "content": content,
                "statement_id": statement_id(quest_id, content),
                "subject": c.gossip_subject or f"quest:{quest_id}",
                "confidence": self.GOSSIP_CONFIDENCE,
                "tags": [
                    "quest",
                    outcome,
                    # "heard:threat_cleared" holds for whoever knows it (dialogue).
                    *(["threat_cleared"] if (c.gossip_subject or "").startswith("threat:") else []),
                ],
                "source": f"quest:{quest_id}",
                "character_id": str(character_id) if character_id else None,
                "location": context.location if context else None,
            },
            description=c.description,
        )

    def _memory(
        self,
        c: QuestConsequence,
        npc: UUID | None,
        character_id: UUID | None,
        world: World,
        context: PlanContext | None,
    ) -> WorldMutation | None:
        owner = npc or _existing(world, context.giver if context else None)
        content = (c.memory_content or c.description or "").strip()
        if owner is None or not content:
            return None
        outcome = context.outcome if context else QuestOutcome.COMPLETED
        valence, intensity = _VALENCE[outcome]
        return WorldMutation(
            "memory_creation",
            owner,
            None,
            None,
            payload={
                "content": content,
                "character_id": str(character_id) if character_id else None,
                "tags": ["quest", outcome.value, "visibility:public"],
                "visibility": "public",
                "importance": context.importance if context else 0.5,
                "valence": valence.value,
                "intensity": intensity,
                "location": context.location if context else None,
            },
            description=c.description,
        )


#: A witness's memory matters half as much as the quest did to its giver.
WITNESS_IMPORTANCE = 0.5


def witness_memory(
    npc: UUID,
    role: str,
    title: str,
    character_id: UUID | None,
    doer: str,
    context: PlanContext,
) -> WorldMutation:
    """What an NPC the quest involved (not its giver) remembers of it: who came
    and how it ended, public, tagged ``quest_witness`` and its role. A success
    leaves a mild good impression, anything else none."""
    outcome = context.outcome
    ended = (
        "It ended well."
        if outcome.success and outcome is not QuestOutcome.PARTIAL_SUCCESS
        else "It was only half done."
        if outcome is QuestOutcome.PARTIAL_SUCCESS
        else "It came to nothing."
    )
    valence, intensity = (
        (EmotionalValence.POSITIVE, 0.3) if outcome.success else (EmotionalValence.NEUTRAL, 0.0)
    )
    return WorldMutation(
        "memory_creation",
        npc,
        None,
        None,
        payload={
            "content": f'{doer} took on "{title}", and I had a part in it. {ended}',
            "character_id": str(character_id) if character_id else None,
            "tags": ["quest_witness", f"role:{role}", outcome.value, "visibility:public"],
            "visibility": "public",
            "importance": round(context.importance * WITNESS_IMPORTANCE, 3),
            "valence": valence.value,
            "intensity": intensity,
            "location": context.location,
        },
        description=f"an involved NPC ({role}) remembers the quest",
    )


def _existing(world: World, entity: UUID | None) -> UUID | None:
    return entity if entity is not None and world.entity_exists(entity) else None


def _open_goal(world: World, npc: UUID, c: QuestConsequence) -> bool:
    goals = world.try_component(npc, GoalsComponent)
    if goals is None:
        return False
    goal = goals.get(c.target_key) if c.target_key else goals.primary()
    return goal is not None and goal.is_open
