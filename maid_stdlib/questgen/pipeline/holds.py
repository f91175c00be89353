"""SeedHolds: the rules that make a seed wait instead of being built and thrown away.

A hold is not an attempt: the seed keeps its attempts and is looked at again next
cycle, and each cycle it waits is counted by rule
(``maid_questgen_seed_holds_total{rule}``). Holding is cheaper than building and
rejecting, and says more: the quest would have been fine, only not now.

Before a seed is planned:

* ``giver_daily_cap``: its giver already gave its share of the rolling day's quests
  (``max_giver_share``) while another giver has a seed waiting, or as many as the
  quality filter's ``npc_monopoly`` allows whoever waits;
* ``area_daily_cap``: its place's area had ``MAX_SAME_AREA`` quests in the rolling
  day (the quality filter's ``location_repetition`` would reject the build).

Per archetype, while planning (the plan stage tries the next archetype):

* ``threat_absent``: a quest to clear a threat (or clear the way) finds none
  (driven off, regrouping);
* ``threat_claimed``: an open generated quest (or one being written) already sends
  someone after the same threat. Two quests on one band of foes invalidate each
  other (whoever kills the leader ends the other quest) and the second adds its
  own foes to the world's.

With the quality filter's history rules (``fetch_loop``, ``combat_fatigue``,
``archetype_repetition``) these are ``HOLD_RULES``: a plan refused only by them
holds the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from uuid import UUID

from maid_engine.clock import GAME_DAY
from maid_stdlib.questgen.archetypes import QuestArchetype
from maid_stdlib.questgen.builder import QuestPlan
from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.patterns import clear_targets
from maid_stdlib.questgen.pipeline.quotas import Quotas
from maid_stdlib.questgen.quality import QuestQualityFilter
from maid_stdlib.questgen.seed import QuestSeed
from maid_stdlib.questgen.types import ObjectivePatterns
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = ["HOLD_RULES", "SeedHolds"]

#: The patterns whose quests send someone to defeat a threat (the multi-stage quest
#: clears the way first).
THREAT_PATTERNS = frozenset({ObjectivePatterns.CLEAR, ObjectivePatterns.MULTI_STAGE})

#: The rules that hold a seed (it waits, no attempt spent) rather than reject a build.
HOLD_RULES = frozenset(
    {
        *QuestQualityFilter.HISTORY_RULES,
        "giver_daily_cap",
        "area_daily_cap",
        "threat_absent",
        "threat_claimed",
    }
)


class SeedHolds:
    def __init__(
        self,
        facts: WorldFacts,
        history: QuestHistory,
        quotas: Quotas,
        open_quests: Mapping[str, OpenQuest],
        in_flight: Callable[[], Iterable[QuestPlan]] = lambda: (),
    ) -> None:
        self._facts = facts
        self._history = history
        self._quotas = quotas
        self._open_quests = open_quests
        #: The plans of the builds in flight: quests in all but name already.
        self._in_flight = in_flight

    def before_plan(self, seed: QuestSeed, now: float, others_waiting: bool) -> str | None:
        """The rule that holds ``seed`` before it is planned, None if none.
        ``others_waiting``: another giver has a seed that could be built now."""
        giver = seed.primary_npc
        flying = sum(1 for p in self._in_flight() if p.seed.primary_npc == giver)
        given = self._quotas.given_today(giver, now) + flying
        at_share = others_waiting and self._quotas.giver_at_share(giver, now, flying)
        if at_share or given >= QuestQualityFilter.MAX_PER_NPC_PER_DAY:
            # Past the quality filter's own limit nothing lets a giver go on
            # (``npc_monopoly`` would reject the build).
            return "giver_daily_cap"
        area = self._facts.area_of(seed.location)
        if area is not None:
            since = now - GAME_DAY
            same = sum(1 for e in self._history.since(since) if e.area == area)
            if same >= QuestQualityFilter.MAX_SAME_AREA:
                return "area_daily_cap"
        return None

    def for_archetype(self, seed: QuestSeed, archetype: QuestArchetype) -> str | None:
        """The rule that holds ``seed`` from a quest of ``archetype`` now, None if none."""
        if archetype.objective_pattern not in THREAT_PATTERNS:
            return None
        threats = clear_targets(seed, self._facts)
        if not threats:
            return "threat_absent"
        if self._claimed(threats):
            return "threat_claimed"
        return None

    def items_claimed(self, template: str) -> int:
        """How many items of ``template`` the open generated quests and the builds
        in flight send someone to collect (``WorldFacts.item_claims``)."""
        quests = [oq.quest.objectives for oq in self._open_quests.values()]
        quests += [plan.objectives for plan in self._in_flight()]
        return sum(
            o.quantity
            for objectives in quests
            for o in objectives
            if o.objective_type is ObjectiveType.COLLECT and o.item_template == template
        )

    def _claimed(self, threats: list[UUID]) -> bool:
        """Does an open generated quest already send someone after these threats
        (the same foes, foes of the same kind, or the same band)?"""
        facts = self._facts
        ids = set(threats)
        kinds = {k for k in (facts.template(t) for t in threats) if k}
        bands: set[str] | None = None
        quests = [oq.quest.objectives for oq in self._open_quests.values()]
        quests += [plan.objectives for plan in self._in_flight()]
        for objectives in quests:
            targets: list[UUID] = []
            for o in objectives:
                if o.objective_type is not ObjectiveType.KILL:
                    continue
                if ids & set(o.target_entity_ids) or (o.target_template in kinds):
                    return True
                targets += o.target_entity_ids
            if targets:
                if bands is None:
                    bands = set(facts.threat_keys(threats))
                if bands & set(facts.threat_keys(targets)):
                    return True
        return False
