"""Quest personalization: who a generated quest suits, and how much.

A character's play style is inferred from what it actually does. Every kill,
conversation, new room, pick-up and finished quest adds to a per-style activity
score in its persisted :class:`PlayProfile` component; scores halve every
``half_life`` game seconds, so the style follows recent play. Moves are counted
here (a stdlib event); kills, talks, items and quests come from the rules layer,
which calls :meth:`PlayStyleTracker.record` / :meth:`record_quest`
(``classic_rpg.questgen.wiring`` does).

:class:`QuestPersonalizer` builds the matching :class:`PlayerProfile` for a
character and scores a quest against it (the character's standing against the
quest's difficulty tier, as the rules layer's ``WorldFacts.challenge`` rates it;
play style against the archetype's needs, trust in the giver, nearness, novelty; a CRAFTER matches
errand-shaped quests), reading archetypes from the registry so a pack's score too.
Narrative and dialogue were written once per quest, for nobody in particular,
so what depends on the character -- how the giver greets them, whether
they have worked for the giver before, whether the job is beyond them -- is
added here as ``narrative_additions``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar, Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import Component
from maid_engine.ports import ClockPort, WorldPort
from maid_stdlib.living.components import FactionStandings, Relationships
from maid_stdlib.questgen.archetypes import ArchetypeRegistry
from maid_stdlib.questgen.challenge import Standing, TierDistance, TierFit
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.narrative.reputation import ReputationLabel, reputation_label
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.types import ObjectivePatterns
from maid_stdlib.questgen.vocabulary import FAILURE_OUTCOMES, SUCCESS_OUTCOMES

__all__ = [
    "CompletedQuestSummary",
    "PlayProfile",
    "PlayStyle",
    "PlayStyleTracker",
    "PlayerProfile",
    "QuestPersonalizer",
    "QuestPreference",
]

#: Objective patterns that make a quest gathering-and-making work.
CRAFT_PATTERNS = frozenset(
    {ObjectivePatterns.FETCH, ObjectivePatterns.DELIVER, ObjectivePatterns.CRAFT_AND_DELIVER}
)
#: Moves that are not the character exploring.
NON_EXPLORING_MOVES = frozenset(
    {"spawn", "created", "login", "respawn", "goto", "teleport", "death"}
)


class PlayStyle(enum.StrEnum):
    COMBAT = "combat"
    SOCIAL = "social"
    EXPLORER = "explorer"
    CRAFTER = "crafter"
    BALANCED = "balanced"


class QuestPreference(enum.StrEnum):
    """A character's opt-out: ``fewer`` offers or ``off``."""

    NORMAL = "normal"
    FEWER = "fewer"
    OFF = "off"


@dataclass
class CompletedQuestSummary:
    quest_id: str
    archetype_id: str
    giver_id: UUID | None = None
    #: A QuestOutcome value ("completed", "abandoned" ...).
    outcome: str = "completed"
    finished_at: float = 0.0


@dataclass
class PlayProfile(Component):
    """What a character has been doing (persisted with the character)."""

    component_name = "QuestgenPlayProfile"
    #: Play style -> activity score, decayed to ``decayed_at`` (game seconds).
    activity: dict[str, float] = field(default_factory=dict)
    decayed_at: float = 0.0
    #: Rooms ever entered (bounded), newest last.
    visited: list[str] = field(default_factory=list)
    #: The last rooms entered, newest last.
    recent_locations: list[str] = field(default_factory=list)
    #: Generated quests the character finished, newest last.
    quests: list[CompletedQuestSummary] = field(default_factory=list)
    preference: QuestPreference = QuestPreference.NORMAL


@dataclass
class PlayerProfile:
    """The matching profile of one character (built fresh for each match)."""

    character_id: UUID
    #: How the character measures up to difficulty tiers (``WorldFacts.challenge``).
    standing: Standing
    play_style: PlayStyle
    quest_history: list[CompletedQuestSummary]
    active_quests: list[str]
    #: NPC -> how much that NPC trusts the character, in [-1, 1].
    npc_relationships: dict[UUID, float]
    faction_standings: dict[str, float]
    recent_locations: list[str]
    session_duration: float
    preference: QuestPreference = QuestPreference.NORMAL


class TrackerHost(WorldPort, ClockPort, Protocol):
    """What the play-style tracker uses: profiles on characters and game time."""


class PlayStyleTracker:
    """Keeps every character's :class:`PlayProfile` from the actions it takes."""

    MAX_VISITED: ClassVar[int] = 500
    MAX_RECENT: ClassVar[int] = 10
    MAX_QUESTS: ClassVar[int] = 20
    #: Below this much (decayed) activity a character is BALANCED: too little to tell.
    MIN_ACTIVITY: ClassVar[float] = 2.5
    #: A style dominates with at least this share of all activity.
    DOMINANT_SHARE: ClassVar[float] = 0.5
    NEW_ROOM: ClassVar[float] = 1.0
    KNOWN_ROOM: ClassVar[float] = 0.1

    def __init__(self, engine: TrackerHost, half_life: float) -> None:
        self.engine = engine
        self.half_life = half_life
        #: Game time each online character connected (session duration).
        self.connected_at: dict[UUID, float] = {}

    @property
    def now(self) -> float:
        return self.engine.clock.game_time

    def connected(self, character: UUID) -> None:
        """The character logged in now (kept from the first login of a session)."""
        self.connected_at.setdefault(character, self.now)

    def disconnected(self, character: UUID) -> None:
        self.connected_at.pop(character, None)

    def profile(self, character: UUID) -> PlayProfile | None:
        """The character's profile, created on first use (None: not a character)."""
        world = self.engine.world
        if not world.entity_exists(character) or not world.has_component(
            character, PlayerCharacter
        ):
            return None
        prof = world.try_component(character, PlayProfile)
        if prof is None:
            prof = PlayProfile(decayed_at=self.now)
            world.add_component(character, prof)
        return prof

    def _decay(self, prof: PlayProfile) -> None:
        now = self.now
        elapsed = now - prof.decayed_at
        if elapsed <= 0:
            return
        factor = 0.5 ** (elapsed / self.half_life)
        prof.activity = {k: v * factor for k, v in prof.activity.items() if v * factor > 1e-3}
        prof.decayed_at = now

    def record(self, character: UUID, style: PlayStyle, weight: float = 1.0) -> None:
        prof = self.profile(character)
        if prof is None or style is PlayStyle.BALANCED or weight <= 0:
            return
        self._decay(prof)
        prof.activity[style.value] = prof.activity.get(style.value, 0.0) + weight
        self.engine.world.modified(character, prof)

    def on_moved(self, character: UUID, room: str | None, reason: str) -> None:
        if room is None:
            return
        prof = self.profile(character)
        if prof is None:
            return
        prof.recent_locations = [*prof.recent_locations, room][-self.MAX_RECENT :]
        if reason in NON_EXPLORING_MOVES:
            return
        new = room not in prof.visited
        if new:
            prof.visited = [*prof.visited, room][-self.MAX_VISITED :]
        self.record(character, PlayStyle.EXPLORER, self.NEW_ROOM if new else self.KNOWN_ROOM)

    def record_quest(
        self,
        character: UUID,
        quest_id: str,
        archetype_id: str,
        giver: UUID | None,
        outcome: str,
        styles: tuple[PlayStyle, ...] = (),
    ) -> None:
        """A generated quest ended for the character; ``styles`` it exercised."""
        prof = self.profile(character)
        if prof is None:
            return
        summary = CompletedQuestSummary(quest_id, archetype_id, giver, outcome, self.now)
        prof.quests = [*prof.quests, summary][-self.MAX_QUESTS :]
        for style in styles:
            self.record(character, style, 1.0)

    def scores(self, character: UUID) -> dict[PlayStyle, float]:
        prof = self.profile(character)
        if prof is None:
            return {}
        self._decay(prof)
        return {PlayStyle(k): v for k, v in prof.activity.items()}

    def style_of(self, character: UUID) -> PlayStyle:
        scores = self.scores(character)
        total = sum(scores.values())
        if total < self.MIN_ACTIVITY:
            return PlayStyle.BALANCED
        style, top = max(scores.items(), key=lambda kv: (kv[1], kv[0].value))
        return style if top / total >= self.DOMINANT_SHARE else PlayStyle.BALANCED

    def set_preference(self, character: UUID, preference: QuestPreference) -> None:
        prof = self.profile(character)
        if prof is not None:
            prof.preference = preference

    def preference(self, character: UUID) -> QuestPreference:
        prof = self.engine.world.try_component(character, PlayProfile)
        return prof.preference if prof is not None else QuestPreference.NORMAL


def styles_of_archetype(archetypes: ArchetypeRegistry, archetype_id: str) -> tuple[PlayStyle, ...]:
    """The play styles a quest of this archetype exercises."""
    archetype = archetypes.get(archetype_id)
    if archetype is None:
        return ()
    out: list[PlayStyle] = []
    if archetype.requires_combat:
        out.append(PlayStyle.COMBAT)
    if archetype.requires_social:
        out.append(PlayStyle.SOCIAL)
    if archetype.requires_exploration:
        out.append(PlayStyle.EXPLORER)
    if archetype.objective_pattern in CRAFT_PATTERNS:
        out.append(PlayStyle.CRAFTER)
    return tuple(out)


class QuestPersonalizer:
    """Builds profiles and scores quests for characters."""

    NEAR_ROOMS: ClassVar[int] = 5
    NOVELTY_WINDOW: ClassVar[int] = 5
    TRUSTED: ClassVar[float] = 0.5

    def __init__(
        self,
        facts: WorldFacts,
        tracker: PlayStyleTracker,
        archetypes: ArchetypeRegistry,
        *,
        active_damping_at: int = 3,
        active_damping: float = 0.5,
    ) -> None:
        self.facts = facts
        self.tracker = tracker
        self.archetypes = archetypes
        self.active_damping_at = active_damping_at
        self.active_damping = active_damping

    def build_profile(
        self, character: UUID, active_quests: list[str], npcs: list[UUID] | None = None
    ) -> PlayerProfile:
        """The profile of ``character``; relationships of ``npcs`` (the quest's
        people) are read from the NPCs' side: how far they trust the character."""
        facts, tracker = self.facts, self.tracker
        prof = tracker.profile(character)
        relationships: dict[UUID, float] = {}
        for npc in npcs or []:
            trust = self.trust(npc, character)
            if trust is not None:
                relationships[npc] = trust
        standings = self.facts.engine.world.try_component(character, FactionStandings)
        recent = list(prof.recent_locations) if prof is not None else []
        here = facts.room_of(character)
        if here is not None and (not recent or recent[-1] != here):
            recent.append(here)
        since = tracker.connected_at.get(character)
        return PlayerProfile(
            character_id=character,
            standing=facts.challenge.standing_of(character),
            play_style=tracker.style_of(character),
            quest_history=list(prof.quests) if prof is not None else [],
            active_quests=list(active_quests),
            npc_relationships=relationships,
            faction_standings=dict(standings.standings) if standings is not None else {},
            recent_locations=recent,
            session_duration=(tracker.now - since) if since is not None else 0.0,
            preference=tracker.preference(character),
        )

    def trust(self, npc: UUID, character: UUID) -> float | None:
        """How much ``npc`` trusts ``character`` (the NPC's relationship, else the
        character's own towards the NPC); None when they never met."""
        trust = self.facts.trust(npc, character)
        if trust is None:
            rels = self.facts.engine.world.try_component(character, Relationships)
            rel = rels.entries.get(str(npc)) if rels is not None else None
            trust = rel.trust if rel is not None else None
        return trust

    def is_eligible(self, quest: GeneratedQuest, profile: PlayerProfile) -> bool:
        if profile.preference is QuestPreference.OFF:
            return False
        if quest.quest_giver_id == profile.character_id:
            return False
        return profile.standing.against(quest.difficulty).distance is not TierDistance.FAR

    def score_match(self, quest: GeneratedQuest, profile: PlayerProfile) -> float:
        """How well ``quest`` suits the profile; 0 means "not for this character"."""
        score = 0.0
        distance = profile.standing.against(quest.difficulty).distance
        if distance is TierDistance.CLOSE:
            score += 0.3
        elif distance is TierDistance.NEAR:
            score += 0.1
        else:
            return 0.0
        archetype = self.archetypes.get(quest.archetype_id)
        style = profile.play_style
        if archetype is not None:
            if archetype.requires_combat and style is PlayStyle.COMBAT:
                score += 0.2
            if archetype.requires_social and style is PlayStyle.SOCIAL:
                score += 0.2
            if archetype.requires_exploration and style is PlayStyle.EXPLORER:
                score += 0.2
            if archetype.objective_pattern in CRAFT_PATTERNS and style is PlayStyle.CRAFTER:
                score += 0.2
        trust = profile.npc_relationships.get(quest.quest_giver_id)
        if trust is not None and trust > self.TRUSTED:
            score += 0.15
        if quest.involved_locations and profile.recent_locations:
            here = profile.recent_locations[-1]
            # Only "closer than NEAR_ROOMS" matters, so each search stops there.
            near = self.NEAR_ROOMS - 1
            if any(
                self.facts.distance(here, loc, near) is not None for loc in quest.involved_locations
            ):
                score += 0.1
        recent_types = [q.archetype_id for q in profile.quest_history[-self.NOVELTY_WINDOW :]]
        if quest.archetype_id not in recent_types:
            score += 0.1
        if len(profile.active_quests) >= self.active_damping_at:
            score *= self.active_damping
        # Rounded so that 0.1 + 0.1 + 0.1 compares as 0.3, as the thresholds mean.
        return round(score, 4)

    def narrative_additions(
        self, quest: GeneratedQuest, profile: PlayerProfile
    ) -> tuple[list[str], ReputationLabel]:
        """Lines about this character, and how the giver regards them."""
        giver = quest.quest_giver_id
        name = self.facts.name(giver)
        label = reputation_label(profile.npc_relationships.get(giver))
        lines: list[str] = []
        worked = [q for q in profile.quest_history if q.giver_id == giver]
        if worked:
            last = worked[-1]
            them = self.facts.pronouns(giver).object
            if last.outcome in SUCCESS_OUTCOMES:
                lines.append(f"{name} has not forgotten the last job you did for {them}.")
            elif last.outcome in FAILURE_OUTCOMES:
                lines.append(f"{name} has not forgotten that you let {them} down last time.")
        match = profile.standing.against(quest.difficulty)
        if match.fit is TierFit.BELOW:
            bar = f" ({match.requirement})" if match.requirement else ""
            lines.append(f"This is work for someone more seasoned than you{bar}.")
        elif match.fit is TierFit.ABOVE:
            lines.append("It should be easy work for someone of your experience.")
        return lines, label
