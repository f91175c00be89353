"""Enrichment of a seed from the giver's real state: motivation, backstory,
stakes, tension, mood, difficulty and duration.

Every sentence is assembled from something that exists: a goal and its blocker,
a need below its threshold, a PUBLIC memory, a room's name. Nothing is invented;
when the giver has neither an open goal nor an unmet need the motivation falls
back to the signal's own facts and ``has_stake`` reports it (the builder scores
such quests as less grounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_stdlib.living.components import Goal, GoalStatus
from maid_stdlib.questgen.contract import SeedGrounding
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.quest import DifficultyTier
from maid_stdlib.questgen.text import join_names, mentions

__all__ = ["Enrichment", "enrich", "estimate_difficulty"]

NEED_MOTIVES = {
    "economic": "{name}'s livelihood is failing",
    "safety": "{name} no longer feels safe",
    "social": "{name} feels cut off from everyone",
    "rest": "{name} is worn to the bone",
    "purpose": "{name} has lost all sense of purpose",
}
NEED_STAKES = {
    "economic": "{name} may be ruined",
    "safety": "someone is going to get hurt",
    "social": "{name} will be left alone",
    "rest": "{name} will collapse",
    "purpose": "{name} will give up",
}
#: Game minutes to walk one room, and to settle one objective's worth of work.
MINUTES_PER_ROOM = 3
MINUTES_BASE = 20
MINUTES_PER_THREAT = 10
#: Names the stakes list before "and N others".
STAKES_NAMES = 4
#: Threats a seed's difficulty and duration are estimated from: the quest itself
#: (its kill objectives) finds its targets when it is built; counting every bandit
#: of a big world's province here told nothing more.
THREATS_COUNTED = 16


@dataclass
class Enrichment:
    motivation: str
    backstory: str
    stakes: str
    tension: str
    mood: str
    urgency: float
    difficulty: DifficultyTier
    duration_minutes: int
    has_stake: bool


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _goal_phrase(goal: Goal) -> str:
    desc = goal.description.strip() or f"{goal.type.lower()} {goal.target or ''}".strip()
    return desc[0].lower() + desc[1:] if desc else goal.id.replace("_", " ")


def _unmet_need(facts: WorldFacts, npc: UUID, goal: Goal | None) -> tuple[str, float] | None:
    needs = facts.needs(npc)
    if goal is not None and goal.need in needs and needs[goal.need].unmet:
        return goal.need, needs[goal.need].value
    unmet = sorted((s.value, n) for n, s in needs.items() if s.unmet)
    return (unmet[0][1], unmet[0][0]) if unmet else None


def enrich(
    facts: WorldFacts,
    npc: UUID,
    grounding: SeedGrounding,
    location: str,
    signal_texts: list[str],
    importance: float,
) -> Enrichment:
    name = facts.name(npc)
    fields = grounding.fields
    goal = (
        facts.find_goal(npc, fields.get("blocked_goal"))
        if fields.get("blocked_goal")
        else (facts.find_goal(npc, None))
    )
    need = _unmet_need(facts, npc, goal)
    blocker = fields.get("blocker") or (goal.blocker if goal is not None else None)
    threat = fields.get("threat_source")
    place = facts.area_name(facts.area_of(location)) or facts.room_name(location)

    # Motivation: why this NPC cares, from its goal and its needs.
    parts: list[str] = []
    if goal is not None:
        wants = f"{name} wants to {_goal_phrase(goal)}"
        if goal.status == GoalStatus.BLOCKED or blocker:
            wants += f", but the way is blocked by {blocker or 'something'}"
        parts.append(wants)
    if need is not None:
        parts.append(
            NEED_MOTIVES.get(need[0], "{name} is short of {need}").format(name=name, need=need[0])
        )
    if not parts:
        if threat:
            # Only what the world holds: the threat. Whether the giver could face it
            # alone is nowhere in it.
            parts.append(f"{threat} threaten {place}, and {name} asks for help")
        else:
            parts.append(f"{name} is caught up in what is happening at {place}")
    motivation = "; ".join(parts)

    # Backstory: the giver's public memories, then what the signals report.
    # What the giver remembers comes first; the signal's facts fill in only what
    # the memories do not already tell.
    lines = [m.content for m in reversed(facts.public_memories(npc, limit=3))]
    remembered = " ".join(lines)
    if threat and not mentions(remembered, threat):
        lines.append(f"reports of {threat} come from {place}")
    if goal is not None and blocker and not mentions(remembered, goal.description, goal.target):
        lines.append(f"{name}'s plan to {_goal_phrase(goal)} was blocked by {blocker}")
    lines.extend(signal_texts)
    told: list[str] = []
    for line in lines:
        sentence = _sentence(line)
        if sentence and sentence not in told:
            told.append(sentence)
    backstory = " ".join(told)

    # Stakes: what the giver (and the others involved) lose if nobody acts.
    room_name = facts.room_name(facts.room_of(npc))
    stakes_parts: list[str] = []
    if need is not None:
        if need[0] == "economic" and room_name.startswith(f"{name}'s "):
            business = room_name[len(name) + 3 :].strip().lower()
            stakes_parts.append(f"{name} may have to close the {business}")
        else:
            stakes_parts.append(NEED_STAKES.get(need[0], "{name} will suffer").format(name=name))
    if goal is not None:
        stakes_parts.append(f"{name} will never {_goal_phrase(goal)}")
    others = [n for n in grounding.involved_npcs if n != npc]
    if others:
        # A few names read as people; the rest as a number.
        named = [facts.name(n) for n in others[:STAKES_NAMES]]
        if len(others) > STAKES_NAMES:
            named.append(f"{len(others) - STAKES_NAMES} others")
        stakes_parts.append(f"{join_names(named)} will feel it too")
    if not stakes_parts:
        stakes_parts.append(f"things at {place} will only get worse")
    stakes = _sentence("; ".join(stakes_parts))

    urgency = grounding.urgency
    if urgency is None:
        pressure = 1.0 - need[1] if need is not None else 0.0
        urgency = min(1.0, 0.5 * importance + 0.5 * pressure)
    if urgency >= 0.7:
        what = blocker or threat or "this"
        tension = f"It cannot wait: the longer nothing is done about {what}, the worse it gets"
    elif urgency >= 0.4:
        tension = f"Nobody has dealt with {blocker or threat or 'it'} yet, and time is passing"
    else:
        tension = f"It has gone on long enough that {name} wants it settled"

    value = need[1] if need is not None else 1.0
    mood = (
        "desperate"
        if value < 0.15
        else "worried"
        if value < 0.35
        else ("frustrated" if goal is not None and goal.status == GoalStatus.BLOCKED else "neutral")
    )

    threats: list[UUID] = []
    if threat:
        area = facts.area_of(location)
        rooms = facts.rooms_of_area(area) if area else [location]
        threats = facts.threats(
            threat, sorted(set(rooms) | set(grounding.affected_area)), limit=THREATS_COUNTED
        )
    difficulty = estimate_difficulty(facts, threats, importance)
    giver_room = facts.room_of(npc)
    walk = facts.distance(giver_room, location) or 0
    duration = MINUTES_BASE + 2 * walk * MINUTES_PER_ROOM + MINUTES_PER_THREAT * len(threats)

    return Enrichment(
        motivation=_sentence(motivation),
        backstory=backstory,
        stakes=stakes,
        tension=_sentence(tension),
        mood=mood,
        urgency=urgency,
        difficulty=difficulty,
        duration_minutes=duration,
        has_stake=goal is not None or need is not None,
    )


def estimate_difficulty(
    facts: WorldFacts, threats: list[UUID], importance: float
) -> DifficultyTier:
    """The tier the rules layer rates the threats at (a classic RPG: the strongest
    foe's level); else by how many threats there are; else by importance."""
    rated = facts.challenge.tier_of_threats(threats) if threats else None
    if rated is not None:
        return rated
    if threats:
        count = len(threats)
        return (
            DifficultyTier.EASY
            if count <= 2
            else DifficultyTier.MODERATE
            if count <= 4
            else DifficultyTier.HARD
            if count <= 7
            else DifficultyTier.EPIC
        )
    if importance < 0.5:
        return DifficultyTier.EASY
    return DifficultyTier.MODERATE if importance < 0.8 else DifficultyTier.HARD
