"""QuestValidator and the reward clamp.

Validation has no side effects: the grounding monitor re-runs it
on live, accepted quests, and a validator that clamped as it went would quietly
rewrite their rewards. Clamping is :func:`clamp_rewards`, a build step the
QuestBuilder runs once; a quest whose rewards still exceed the limits fails
validation.

Only the rewards the stdlib knows are limited here (the giver's gold, items,
extras); a rules layer limits its own kinds of reward (classic_rpg: experience)
where it computes them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar
from uuid import UUID

from maid_stdlib.questgen.coherence import CoherenceIssue, CoherenceRules
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.quest import DifficultyTier, GeneratedQuest, QuestRewards
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = [
    "ALLOWED_REWARD_TYPES",
    "QuestValidator",
    "RewardLimits",
    "ValidationResult",
    "clamp_rewards",
]

#: The kinds of extra reward the stdlib knows; a rules layer adds its own to
#: ``RewardLimits.extra_reward_types`` (classic_rpg: "xp").
ALLOWED_REWARD_TYPES = frozenset({"gold", "items", "reputation", "faction_standing"})

_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,40}\}")
_FOURTH_WALL = re.compile(r"\b(quest|xp|experience points|level up|npc|player)\b", re.IGNORECASE)


@dataclass
class RewardLimits:
    """Reward economy per difficulty tier. ``item_tier`` tells an item template's
    tier (None: unknown item); the stdlib knows no items, a rules layer does."""

    base_gold: dict[DifficultyTier, int] = field(
        default_factory=lambda: {
            DifficultyTier.TRIVIAL: 20,
            DifficultyTier.EASY: 50,
            DifficultyTier.MODERATE: 120,
            DifficultyTier.HARD: 250,
            DifficultyTier.EPIC: 500,
        }
    )
    #: Caps are this many times the tier's base.
    cap_factor: float = 2.0
    max_item_tier: dict[DifficultyTier, int] = field(
        default_factory=lambda: {
            DifficultyTier.TRIVIAL: 1,
            DifficultyTier.EASY: 1,
            DifficultyTier.MODERATE: 2,
            DifficultyTier.HARD: 3,
            DifficultyTier.EPIC: 4,
        }
    )
    max_items: int = 2
    item_tier: Callable[[str], int | None] = lambda _template: None
    #: The keys ``QuestRewards.extra_rewards`` may have.
    extra_reward_types: frozenset[str] = ALLOWED_REWARD_TYPES

    def max_gold(self, tier: DifficultyTier) -> int:
        return int(self.base_gold[tier] * self.cap_factor)


def clamp_rewards(
    rewards: QuestRewards, difficulty: DifficultyTier, limits: RewardLimits
) -> tuple[QuestRewards, list[str]]:
    """A copy of ``rewards`` within the limits of ``difficulty``, and what changed.

    Items above the tier cap or of unknown tier are dropped, not downgraded:
    inventing a substitute item would be an ungrounded reward.
    """
    notes: list[str] = []
    gold = rewards.gold
    if gold > limits.max_gold(difficulty):
        gold = limits.max_gold(difficulty)
        notes.append(f"gold clamped to {gold}")
    items: list[str] = []
    for template in rewards.item_template_ids:
        tier = limits.item_tier(template)
        if tier is None or tier > limits.max_item_tier[difficulty]:
            notes.append(f"reward item {template} dropped (tier {tier})")
        elif len(items) < limits.max_items:
            items.append(template)
    extra = {k: v for k, v in rewards.extra_rewards.items() if k in limits.extra_reward_types}
    if len(extra) != len(rewards.extra_rewards):
        notes.append("unknown reward types dropped")
    clamped = dataclasses.replace(
        rewards,
        gold=max(0, gold),
        item_template_ids=items,
        extra_rewards=extra,
    )
    return clamped, notes


@dataclass
class ValidationResult:
    valid: bool
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class QuestValidator:
    MAX_TITLE: ClassVar[int] = 60
    MIN_DESCRIPTION: ClassVar[int] = 50

    def __init__(
        self,
        facts: WorldFacts,
        limits: RewardLimits | None = None,
        history: QuestHistory | None = None,
    ) -> None:
        self.facts = facts
        self.limits = limits or RewardLimits()
        #: The coherence rules (they read the history for titles in use).
        self.coherence = CoherenceRules(facts, history if history is not None else QuestHistory())

    def check_plan(
        self, draft: GeneratedQuest, seed: QuestSeed | None = None
    ) -> list[CoherenceIssue]:
        """The coherence rules a quest's structure breaks. The generation pipeline
        asks this of a plan's draft (``QuestBuilder.draft``) before it writes a
        word of the quest, let alone calls a model."""
        return self.coherence.check(draft, seed)

    async def validate(
        self,
        quest: GeneratedQuest,
        *,
        accepted: bool = False,
        offered: bool = False,
        seed: QuestSeed | None = None,
    ) -> ValidationResult:
        """Check ``quest`` against the world and the reward economy. Never mutates.

        ``accepted=True`` (re-validating a quest under way, e.g. the grounding
        monitor's sweep): dead kill targets and picked-up items are progress, not
        errors. ``offered=True`` (a quest already out, re-checked against the
        world): its coherence was judged when it was made and is not judged again
        (its own title is in the history by then; the giver may have walked into
        a room a step names). ``seed`` lets the coherence rules read what only the
        seed knows (the signals behind the sides, the subject).
        """
        facts = self.facts
        errors: list[str] = []
        warnings: list[str] = []

        giver = quest.quest_giver_id
        if not facts.exists(giver):
            errors.append("Quest giver entity does not exist")
        elif not facts.is_alive(giver):
            errors.append("Quest giver is dead")
        giver_room = facts.room_of(giver)
        if giver_room is None and facts.exists(giver):
            errors.append("Quest giver is nowhere in the world")

        for npc, role in quest.involved_npcs.items():
            if not facts.is_alive(npc):
                errors.append(f"Involved NPC ({role}) does not exist or is dead")

        for room in quest.involved_locations:
            if not facts.room_exists(room):
                errors.append(f"Location {room} does not exist")
            elif giver_room is not None and not facts.reachable(giver_room, room):
                warnings.append(f"Location {room} may not be reachable")

        for problem in grounding_problems(quest.objectives, facts, accepted=accepted):
            errors.append(problem)
        if not accepted:
            # A quest under way keeps going; a new one leaves the people and places
            # of hand-written quests in progress alone.
            for o in quest.objectives:
                refs = [*o.target_entity_ids, o.target_entity_id, o.target_location]
                claimed = facts.claimed_by_authored(*refs)
                if claimed is not None:
                    ref, title = claimed
                    what = facts.name(ref) if isinstance(ref, UUID) else facts.room_name(ref)
                    errors.append(
                        f"Objective {o.id} uses {what}, part of the hand-written quest "
                        f"'{title}' someone is on"
                    )
        for o in quest.objectives:
            if o.objective_type is ObjectiveType.KILL and not accepted:
                targets = o.target_entity_ids or (
                    [o.target_entity_id] if o.target_entity_id else []
                )
                if not targets:
                    errors.append(f"Kill target {o.target} is not a real entity")
            if (
                o.target_location is not None
                and giver_room is not None
                and facts.room_exists(o.target_location)
                and not facts.reachable(giver_room, o.target_location)
            ):
                errors.append(f"Objective {o.id} takes place where nobody can get to")
        if not any(not o.optional for o in quest.objectives):
            errors.append("The quest has no required objective")
        if not (accepted or offered):
            errors += [
                f"Incoherent ({issue.rule}): {issue.reason}"
                for issue in self.check_plan(quest, seed)
            ]

        self._check_rewards(quest, errors)
        self._check_text(quest, errors, warnings)
        return ValidationResult(valid=not errors, errors=errors, warnings=warnings)

    def _check_rewards(self, quest: GeneratedQuest, errors: list[str]) -> None:
        limits, tier, rewards = self.limits, quest.difficulty, quest.rewards
        if rewards.gold < 0:
            errors.append("Rewards may not be negative")
        if rewards.gold > limits.max_gold(tier):
            errors.append(
                f"Gold reward {rewards.gold} exceeds {limits.max_gold(tier)} "
                f"({tier.value}); clamp_rewards was not applied"
            )
        for item in rewards.item_template_ids:
            item_tier = limits.item_tier(item)
            if item_tier is None:
                errors.append(f"Reward item {item} is not a known item")
            elif item_tier > limits.max_item_tier[tier]:
                errors.append(
                    f"Reward item {item} is tier {item_tier}, max allowed is "
                    f"{limits.max_item_tier[tier]}"
                )
        if len(rewards.item_template_ids) > limits.max_items:
            errors.append(f"More than {limits.max_items} reward items")
        for key in rewards.extra_rewards:
            if key not in limits.extra_reward_types:
                errors.append(f"Unknown reward type: {key}")

    def _check_text(self, quest: GeneratedQuest, errors: list[str], warnings: list[str]) -> None:
        if not quest.title or len(quest.title) > self.MAX_TITLE:
            warnings.append("Quest title is missing or too long")
        if not quest.detailed_description or len(quest.detailed_description) < self.MIN_DESCRIPTION:
            warnings.append("Quest description is too short")
        dialogue = quest.quest_giver_dialogue
        texts = {
            "title": quest.title,
            "summary": quest.summary,
            "description": quest.detailed_description,
            "offer": dialogue.offer,
            "progress": dialogue.progress,
            "completion": dialogue.completion,
        }
        for name, text in texts.items():
            if text and _PLACEHOLDER.search(text):
                errors.append(f"The {name} contains an unfilled placeholder")
        for name in ("title", "description", "offer"):
            if _FOURTH_WALL.search(texts[name] or ""):
                warnings.append(f"The {name} talks about game mechanics")
        giver = self.facts.name(quest.quest_giver_id)
        if giver and giver not in quest.detailed_description and giver not in dialogue.offer:
            warnings.append("The narrative never names the quest giver")
        if not dialogue.offer.strip():
            errors.append("The giver has nothing to say when offering the quest")
