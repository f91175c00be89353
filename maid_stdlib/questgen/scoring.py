"""Quality scores of a built quest (its last build step): grounding, coherence, novelty.

Each score is the weighted share of checks passed, so a low score can be
explained check by check (``explain=True`` returns the failed checks).
"""

from __future__ import annotations

from collections.abc import Sequence

from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.coherence import COHERENCE_RULES
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.objectives import grounding_problems
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.types import BranchingPattern
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = ["score_coherence", "score_grounding", "score_novelty"]

#: (name, weight, credit): credit is 0..1 (a bool counts as 0 or 1).
Check = tuple[str, float, float]


def _score(checks: Sequence[Check]) -> tuple[float, list[str]]:
    total = sum(w for _, w, _ in checks)
    passed = sum(w * float(credit) for _, w, credit in checks)
    failed = [n for n, _, credit in checks if float(credit) < 1.0]
    return (round(passed / total, 3) if total else 0.0), failed


def score_grounding(
    quest: GeneratedQuest, facts: WorldFacts, has_stake: bool, backstory: str
) -> tuple[float, list[str]]:
    giver = quest.quest_giver_id
    giver_room = facts.room_of(giver)
    grounded = [o for o in quest.objectives if not grounding_problems([o], facts)]
    text = " ".join(
        [quest.title, quest.summary, quest.detailed_description, quest.quest_giver_dialogue.offer]
    )
    names = [facts.name(n) for n in quest.involved_npcs]
    places = [facts.room_name(r) for r in quest.involved_locations]
    places += [facts.area_name(quest.area)] if quest.area else []
    checks: list[Check] = [
        ("giver alive and in the world", 2.0, facts.is_alive(giver) and giver_room is not None),
        ("giver has a real need or goal", 1.0, has_stake),
        ("objectives point at real things", 2.0, len(grounded) / max(1, len(quest.objectives))),
        (
            "locations exist and are reachable",
            1.0,
            all(
                facts.room_exists(r) and facts.reachable(giver_room, r)
                for r in quest.involved_locations
            ),
        ),
        ("reward paid from known wealth", 1.0, facts.wealth(giver) is not None),
        ("narrative names the giver", 1.0, facts.name(giver) in text),
        (
            "narrative names real people or places",
            1.0,
            any(n and n in text for n in [*names, *places]),
        ),
        ("backstory from memories or events", 0.5, bool(backstory.strip())),
    ]
    return _score(checks)


def score_coherence(
    quest: GeneratedQuest, archetype: QuestArchetype, broken: Sequence[str] = ()
) -> tuple[float, list[str]]:
    """``broken``: the coherence rules (``COHERENCE_RULES``) the quest breaks. Each
    is a failed check weighing half of all the others together, so one is enough to
    fail the score (under 0.7), and a coherent quest scores as before."""
    orders = sorted({o.order for o in quest.objectives})
    contiguous = (
        bool(orders)
        and orders[0] <= 1
        and orders == list(range(orders[0], orders[0] + len(orders)))
    )
    last = [o for o in quest.objectives if o.order == (orders[-1] if orders else 0)]
    returns = archetype.branching is BranchingPattern.OPEN or any(
        o.target_entity_id == quest.quest_giver_id
        and o.objective_type in (ObjectiveType.TALK, ObjectiveType.DELIVER)
        for o in last
    )
    dialogue = quest.quest_giver_dialogue
    wants_branches = archetype.branching is BranchingPattern.BRANCHING
    ids = {o.id for o in quest.objectives}
    branches_ok = (
        (
            bool(quest.branches)
            and all(
                b.trigger_objective in ids and len(b.options) >= 2 for b in quest.branches or []
            )
        )
        if wants_branches
        else not quest.branches
    )
    checks: list[Check] = [
        ("objective orders are sequential", 1.0, contiguous),
        ("at least one required objective", 1.0, bool(quest.required_objectives)),
        ("ends back with the giver", 1.0, returns),
        (
            "objective count fits the archetype",
            1.0,
            abs(len(quest.objectives) - archetype.estimated_steps) <= 3,
        ),
        # The prose players read first weighs double: a quest without it is not one.
        ("title present and short", 2.0, 0 < len(quest.title) <= 60),
        ("description long enough", 2.0, len(quest.detailed_description) >= 50),
        ("summary present", 1.0, bool(quest.summary.strip())),
        (
            "dialogue complete",
            1.0,
            all(x.strip() for x in (dialogue.offer, dialogue.progress, dialogue.completion)),
        ),
        ("branches match the archetype", 1.0, branches_ok),
        ("motivation stated", 1.0, bool(quest.quest_giver_motivation.strip())),
    ]
    penalty = sum(w for _, w, _ in checks) / 2
    checks += [(rule, penalty, 0.0) for rule in COHERENCE_RULES if rule in broken]
    return _score(checks)


def score_novelty(quest: GeneratedQuest, history: QuestHistory, window: int = 10) -> float:
    """1 minus the strongest resemblance to one of the last ``window`` quests."""
    recent = [e for e in history.recent(window + 1) if e.quest_id != quest.id][:window]
    if not recent:
        return 1.0
    worst = 0.0
    for e in recent:
        similarity = (
            0.35 * (e.quest_giver_id == quest.quest_giver_id)
            + 0.25 * (e.archetype_id == quest.archetype_id)
            + 0.2 * (e.seed_type == quest.seed_type)
            + 0.2 * (e.area is not None and e.area == quest.area)
        )
        worst = max(worst, similarity)
    return round(1.0 - worst, 3)
