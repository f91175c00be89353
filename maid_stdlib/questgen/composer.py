"""CompoundSeedComposer: related signals combine into one richer seed.

Two signals are related when they share a person they are about (the giver, a
side, the one to rescue: not the bystanders a signal names because they heard of
it), when their places are in the same area, or when one names what the other is
about (Gundrik's goal is "blocked by bandits on the Old Trade Road"; the road's
THREAT_DETECTED is about "bandits"), or names the other's place. Two places whose
names merely share a word are not a relation (in a big world every "Area 7" would
otherwise be one story with every other). Related signals are grouped
transitively, and a group is told as stories: the most actionable signal (a
threat to clear before a goal to assist) leads one, with the signals related to
it directly, and the rest make the next. A story of two or more signals becomes
one seed of its lead's type, whose giver is the NPC with the most at stake
(the lowest unmet need, the most important blocked goal) and whose importance is
the cluster's mean times 1.3, capped at 1.0.

Each merge is logged (``maid.questgen.composer``, INFO: the signals, their seed
types and the seed they became). A seed type registered with
``SeedTypeRegistry.register(..., merge=False)`` is never merged: its signals always
become seeds of their own type.
"""

from __future__ import annotations

import logging
from collections.abc import Container, Sequence
from typing import ClassVar
from uuid import UUID

from maid_engine.slicing import Steps, run_steps
from maid_stdlib.living.components import GoalStatus
from maid_stdlib.questgen.evaluator import GroundedSignal, SeedEvaluator
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.signals import StorySignalLike, signal_key
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.types import QuestSeedType, QuestSeedTypes

__all__ = ["CompoundSeedComposer"]

log = logging.getLogger("maid.questgen.composer")

#: What relates a signal to others: its NPCs, its areas, its own topic words, the
#: words of its areas' names.
Links = tuple[set[int], set[str], set[str], set[str]]

T = QuestSeedTypes

#: Which seed type leads a compound seed: situations with something concrete to
#: do first, a person's blocked goal last (the person becomes the giver instead).
DEFAULT_PRECEDENCE: tuple[QuestSeedType, ...] = (
    T.RESCUE, T.THREAT_RESPONSE, T.JUSTICE, T.MYSTERY, T.COLD_CASE, T.FACTION_CONFLICT,
    T.POWER_STRUGGLE, T.RIVALRY_INTERVENTION, T.RESOURCE_CRISIS, T.TRADE_MISSION,
    T.DISCOVERY_EXPEDITION, T.ALLIANCE_QUEST, T.CRAFTING_REQUEST, T.SOCIAL_MANIPULATION,
    T.CONSEQUENCE_CHAIN, T.PLAYER_REPUTATION, T.GOAL_ASSISTANCE,
)  # fmt: skip

#: Grounding fields that name a person the situation is about.
NPC_FIELDS = ("party_a", "party_b", "rescue_target", "recipient", "supplier")

#: Context keys whose text says what a signal is about.
TOPIC_KEYS = ("threat_source", "blocker", "resource_type", "subject", "cause",
              "common_threat", "crisis_type", "tension_cause", "item_type")  # fmt: skip


class CompoundSeedComposer:
    COMPOUND_BOOST: ClassVar[float] = 1.3

    def __init__(
        self, evaluator: SeedEvaluator, precedence: Sequence[QuestSeedType] = DEFAULT_PRECEDENCE
    ) -> None:
        self.evaluator = evaluator
        self.precedence = list(precedence)

    @property
    def facts(self) -> WorldFacts:
        return self.evaluator.facts

    async def compose(
        self, signals: Sequence[StorySignalLike], keep: Container[object] | None = None
    ) -> list[QuestSeed]:
        """Seeds for every cluster of two or more related, grounded signals.

        Single signals are left to ``SeedEvaluator.evaluate``. ``keep``: only the
        seeds of clusters holding a signal of one of these ``signal_key``s are wanted; the
        other clusters are judged and draw their seed's id, exactly as if they were
        built, but are not written out (the world's dice stay the same).
        """
        return run_steps(self.compose_steps(signals, keep))

    def compose_steps(
        self, signals: Sequence[StorySignalLike], keep: Container[object] | None = None
    ) -> Steps[list[QuestSeed]]:
        """``compose`` in steps: it yields after each signal's grounding, the
        clustering, each group's stories, a compound seed's checks and each story's
        seed, where it may wait for the next tick (a 40-signal window's composition
        is milliseconds in a big world). What it
        decides does not depend on where it waits, as long as the world does not
        change meanwhile; when it does, each step reads the world as it is then."""
        types = self.evaluator.seed_types
        # A pack's seed type registered with merge=False always stands alone.
        grounded = [
            g for g in (yield from self._grounding(signals)) if types.mergeable(g.seed_type)
        ]
        seeds: list[QuestSeed] = []
        groups = self.cluster(grounded)
        yield
        for group in groups:
            stories = self.stories(group)
            yield
            for cluster in stories:
                if len(cluster) < 2:
                    continue
                if keep is not None and not any(signal_key(g.signal) in keep for g in cluster):
                    yield from self._compose_steps(cluster, draw_only=True)
                    yield
                    continue
                seed = yield from self._compose_steps(cluster)
                if isinstance(seed, QuestSeed):
                    # Builders read in the log why their signal became another seed.
                    log.info(
                        "merged %d related signals into one %s seed (giver %s): %s",
                        len(cluster),
                        seed.seed_type,
                        self.facts.name(seed.primary_npc),
                        ", ".join(f"{g.signal.signal_type} as {g.seed_type}" for g in cluster),
                    )
                    seeds.append(seed)
                yield
        return seeds

    def grounded(self, signals: Sequence[StorySignalLike]) -> list[GroundedSignal]:
        """Each signal grounded once (a signal may be listed twice), in order;
        groundings are reused for ``SeedEvaluator.GROUND_TTL`` game seconds."""
        return run_steps(self._grounding(signals))

    def _grounding(self, signals: Sequence[StorySignalLike]) -> Steps[list[GroundedSignal]]:
        """``grounded``, a step a signal."""
        memo: dict[int, GroundedSignal | Rejection] = {}
        for s in signals:
            if id(s) not in memo:
                memo[id(s)] = self.evaluator.ground_cached(s)
                yield
        return [g for g in memo.values() if isinstance(g, GroundedSignal)]

    # -- clustering -------------------------------------------------------------------
    def cluster(self, grounded: Sequence[GroundedSignal]) -> list[list[GroundedSignal]]:
        """The signals in groups of related ones (``related``, transitively), each
        group in signal order, groups by their first signal.

        Built from an index of what relates signals instead of testing every pair
        (40 recent signals are 780 pairs, each several set intersections): the
        signals sharing an NPC or an area are one group, and so are the signals
        whose own words hold a word together with those whose place names hold it
        -- which joins exactly what the pairwise relation joins."""
        parent = list(range(len(grounded)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        def join(members: list[int]) -> None:
            root = find(members[0])
            for other in members[1:]:
                parent[find(other)] = root

        keys = self._keys(grounded)
        first_with_npc: dict[int, int] = {}
        first_in_area: dict[str, int] = {}
        words: dict[str, list[int]] = {}  # word -> signals whose own words hold it
        places: dict[str, list[int]] = {}  # word -> signals whose place names hold it
        for i, (npcs, areas, topics, place_words) in enumerate(keys):
            for npc in npcs:
                j = first_with_npc.setdefault(npc, i)
                if j != i:
                    parent[find(i)] = find(j)
            for area in areas:
                j = first_in_area.setdefault(area, i)
                if j != i:
                    parent[find(i)] = find(j)
            for word in topics:
                words.setdefault(word, []).append(i)
            for word in place_words:
                places.setdefault(word, []).append(i)
        for word, members in words.items():
            join(members + places.get(word, []))
        groups: dict[int, list[GroundedSignal]] = {}
        for i, g in enumerate(grounded):
            groups.setdefault(find(i), []).append(g)
        return list(groups.values())

    def stories(self, group: Sequence[GroundedSignal]) -> list[list[GroundedSignal]]:
        """A group of related signals as stories: the most actionable signal leads
        one, with the signals related to it directly; the rest form the next.

        Relation is transitive, a story is not: in a valley the wolves' alliance
        names the Greywood, the Greywood the missing herbalist, the wolves the
        village's fear, the village the smith's order for swords -- one group, but
        the swords are no part of the rescue. Led by a rescue, such a group made
        every trouble of the valley a rescue.
        """
        rest = list(group)
        keys = dict(zip(map(id, rest), self._keys(rest), strict=True))
        out: list[list[GroundedSignal]] = []
        while rest:
            lead = self._lead(rest)
            story = [g for g in rest if g is lead or self._linked(keys[id(lead)], keys[id(g)])]
            out.append(story)
            rest = [g for g in rest if not any(g is m for m in story)]
        return out

    def _lead(self, signals: Sequence[GroundedSignal]) -> GroundedSignal:
        return min(signals, key=lambda g: (self._rank(g.seed_type), -g.signal.importance))

    def _keys(self, grounded: Sequence[GroundedSignal]) -> list[Links]:
        # ``related``'s NPCs, areas and topics of each signal, computed once (not
        # once per pair: 40 recent signals are 780 pairs).
        out = []
        for g in grounded:
            if g.links is None:
                areas = self._areas(g)
                g.links = (self._npcs(g), areas, self._topics(g), self._place_words(areas))
            out.append(g.links)
        return out

    @staticmethod
    def _linked(a: Links, b: Links) -> bool:
        # Words of one's area names count against the other's own words only:
        # "the bandits of Darkwood" meets a situation in Darkwood, but two places
        # whose names share a word ("North Farm", "South Farm") are not one story.
        return bool(a[0] & b[0] or a[1] & b[1] or a[2] & b[2] or a[2] & b[3] or a[3] & b[2])

    def related(self, a: GroundedSignal, b: GroundedSignal) -> bool:
        return self._linked(*self._keys([a, b]))

    def _npcs(self, g: GroundedSignal) -> set[int]:
        # The people the situation is about (its giver, the sides, the one to
        # rescue, the supplier), not everyone the signal names: a threat's signal
        # lists every NPC aware of it, and in a valley where news travels that is
        # nearly everyone, which made one story (led by whatever ranked first, a
        # rescue) of every trouble at once. As integers: a UUID hashes in Python
        # code, an int in C.
        grounding = g.grounding
        sides = (grounding.fields.get(k) for k in NPC_FIELDS)
        return {
            u.int
            for u in (grounding.primary_npc, *grounding.involved_npcs, *sides)
            if isinstance(u, UUID)
        }

    def _areas(self, g: GroundedSignal) -> set[str]:
        # Where the situation is, not where the people are: a smith and a guard
        # live in the same village without their troubles being one story.
        rooms = [r for r in [g.grounding.location, *g.grounding.affected_area] if r]
        return {a for a in (self.facts.area_of(r) for r in rooms) if a}

    def _topics(self, g: GroundedSignal) -> set[str]:
        """What the signal's own words say it is about."""
        ctx = g.signal.context
        texts = [str(ctx[k]) for k in TOPIC_KEYS if ctx.get(k)]
        texts.extend(
            str(v)
            for k, v in g.grounding.fields.items()
            if k in ("threat_source", "blocker", "resource_type") and v
        )
        return topic_tokens(*texts)

    def _place_words(self, areas: set[str]) -> set[str]:
        return topic_tokens(*(self.facts.area_name(a) for a in areas))

    # -- composition ------------------------------------------------------------------
    def _rank(self, seed_type: QuestSeedType) -> int:
        try:
            return self.precedence.index(seed_type)
        except ValueError:
            # Pack-defined types rank after the built-in situations but before a
            # bare goal assistance.
            return len(self.precedence) - 1

    def _stake(self, npc: UUID) -> float:
        facts = self.facts
        needs = facts.needs(npc)
        lowest = min((s.value for s in needs.values() if s.unmet), default=1.0)
        blocked = [g.priority for g in facts.open_goals(npc) if g.status == GoalStatus.BLOCKED]
        return (1.0 - lowest) + max(blocked, default=0.0)

    def _compose_steps(
        self, cluster: list[GroundedSignal], draw_only: bool = False
    ) -> Steps[QuestSeed | Rejection | None]:
        lead = self._lead(cluster)
        candidates: list[UUID] = []
        for g in sorted(cluster, key=lambda g: -g.signal.importance):
            if g.grounding.primary_npc not in candidates:
                candidates.append(g.grounding.primary_npc)
        # The highest stake; of equals, the earliest candidate.
        primary = candidates[
            max(range(len(candidates)), key=lambda i: (self._stake(candidates[i]), -i))
        ]
        mean = sum(g.signal.importance for g in cluster) / len(cluster)
        importance = min(1.0, mean * self.COMPOUND_BOOST)
        if importance < self.evaluator.MIN_IMPORTANCE:
            return Rejection(
                "evaluate",
                "compound importance below threshold",
                ("importance_below_threshold",),
            )
        if draw_only:
            self.evaluator.draw_seed_id(cluster, lead, importance, primary_npc=primary)
            return None
        return (
            yield from self.evaluator.build_seed_steps(
                cluster, lead, importance, primary_npc=primary
            )
        )
