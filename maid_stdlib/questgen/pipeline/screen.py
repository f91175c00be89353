"""SeedScreen: does the world that produced a seed still hold?

Checked just before a seed is built (and by ``@quest force-generate``): the
seed's grounding (giver alive and able to reach the place), the giver still
wanting something, its story situations not all resolved, the giver not a
threat, no open quest from the same giver, and the giver off cooldown. The first
failing check is the reason; a stale seed is dropped, not retried.

A seed of a type that stands alone (registered ``merge=False``: an errand of its
own, such as an order a keeper cannot fill) is not the double of the giver's
open request: it waits for that request to close and the giver's cooldown to
pass (:meth:`SeedScreen.waits`). So does a chain's follow-up, which is about what
a finished quest left behind: neither the giver's open request nor the giver's
own wants (a content giver still has the follow-up to ask for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from maid_engine.ecs import World
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.questgen.builder import QuestBuilder
from maid_stdlib.questgen.delivery import OpenQuest
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed

__all__ = ["ResolvedSituations", "SeedScreen"]


class ResolvedSituations:
    """Story situations resolved since their signals arrived (the intake reopens
    one when a new signal about it is admitted)."""

    def __init__(self) -> None:
        self._keys: set[str] = set()

    def resolve(self, key: str) -> None:
        self._keys.add(key)

    def reopen(self, key: str) -> None:
        self._keys.discard(key)

    def all_resolved(self, keys: Iterable[str]) -> bool:
        keys = list(keys)
        return bool(keys) and all(k in self._keys for k in keys)


class SeedScreen:
    def __init__(
        self,
        facts: WorldFacts,
        world: World,
        builder: QuestBuilder,
        history: QuestHistory,
        open_quests: Mapping[str, OpenQuest],
        resolved: ResolvedSituations,
        giver_cooldown: float,
        stands_alone: Callable[[str], bool] = lambda _type: False,
    ) -> None:
        self._facts = facts
        self._world = world
        self._builder = builder
        self._history = history
        self._open_quests = open_quests
        self._resolved = resolved
        self.giver_cooldown = giver_cooldown
        self._stands_alone = stands_alone

    def keeps_its_giver(self, seed: QuestSeed) -> bool:
        """Whether ``seed`` is an errand its giver still has to ask for whatever else
        the giver asks meanwhile (a stand-alone type, or a chain's follow-up), not a
        double of the giver's other requests."""
        return self._stands_alone(seed.seed_type) or seed.chain_depth > 0

    def waits(self, seed: QuestSeed) -> bool:
        """Whether ``seed`` waits, unscreened, for its giver to be free: a stand-alone
        errand is another matter than the giver's open request (not its double), and
        a giver on cooldown asks for it later. It still expires like any seed."""
        if not self.keeps_its_giver(seed):
            return False
        giver = seed.primary_npc
        busy = any(
            oq.quest.quest_giver_id == giver and oq.quest.seed_id != seed.id
            for oq in self._open_quests.values()
        )
        return busy or self._history.recent_quest_from_npc(
            giver, self.giver_cooldown, self._facts.now
        )

    def screen(self, seed: QuestSeed) -> Rejection | None:
        """None if the seed still stands on the world, else why not (stage ``screen``)."""
        stale = self._stale(seed)
        return Rejection("screen", stale[1], (stale[0],)) if stale is not None else None

    def _stale(self, seed: QuestSeed) -> tuple[str, str] | None:
        """(rule, reason) of the first check the seed fails, None if none."""
        facts = self._facts
        problem = self._builder.grounding_problem(seed)
        if problem is not None:
            return "grounding_lost", problem
        goals = self._world.try_component(seed.primary_npc, GoalsComponent)
        if (
            seed.chain_depth == 0
            and goals is not None
            and goals.goals
            and not goals.open_goals()
            and not any(s.unmet for s in facts.needs(seed.primary_npc).values())
        ):
            return "giver_content", "the giver wants nothing any more"
        situations = [
            k for k in (getattr(s, "situation_key", "") for s in seed.source_signals) if k
        ]
        if self._resolved.all_resolved(situations):
            return "situation_resolved", "every situation of the seed is resolved"
        living = facts.living
        if living is not None and living.is_threat(seed.primary_npc):
            # Nobody can walk up to a hostile bandit chief and ask for work.
            return "giver_is_threat", "the giver is a threat"
        giver = seed.primary_npc
        if any(oq.quest.quest_giver_id == giver for oq in self._open_quests.values()):
            # the new seed is its double
            return "giver_has_open_quest", "the giver already has an open request"
        if self._history.recent_quest_from_npc(giver, self.giver_cooldown, facts.now):
            return "giver_cooldown", "the giver is on cooldown"
        return None
