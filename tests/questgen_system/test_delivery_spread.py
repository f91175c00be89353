"""A new quest reaches the characters online a few a tick, every one of them once,
in order; a tick as long as the spread (a simulation's) reaches all at once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast
from uuid import UUID, uuid4

from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.pipeline.publish import PublishStage
from maid_stdlib.questgen.quest import GeneratedQuest


@dataclass
class _Deliveries:
    calls: list[tuple[list[str], list[UUID]]] = field(default_factory=list)

    def match(self, quest_ids: Iterable[str], characters: Iterable[UUID]) -> int:
        self.calls.append((list(quest_ids), list(characters)))
        return 0


@dataclass
class _Facts:
    now: float = 0.0


@dataclass
class _Quest:
    id: str


def _stage(
    online: list[UUID], spread: float, per_tick: int
) -> tuple[PublishStage, _Deliveries, _Facts]:
    deliveries, facts = _Deliveries(), _Facts()
    stage = PublishStage(
        lambda: None,
        lambda _q: cast(Any, None),
        cast(WorldFacts, facts),
        cast(Any, None),
        {},
        cast(Any, None),
        cast(QuestDeliveryService, deliveries),
        lambda: list(online),
        spread,
        per_tick,
    )
    return stage, deliveries, facts


def _quest(quest_id: str) -> GeneratedQuest:
    return cast(GeneratedQuest, _Quest(quest_id))


def _tick(stage: PublishStage, facts: _Facts, delta: float) -> int:
    facts.now += delta
    stage.tick_started(delta)
    return stage.deliver_waiting()


def _matched(deliveries: _Deliveries) -> list[tuple[str, UUID]]:
    return [(q, c) for quests, chars in deliveries.calls for q in quests for c in chars]


def test_a_crowd_is_matched_a_slice_a_tick_each_character_once_in_order() -> None:
    crowd = [uuid4() for _ in range(200)]
    stage, deliveries, facts = _stage(crowd, spread=24.0, per_tick=16)
    stage.tick_started(2.4)
    stage.deliver(_quest("q1"))
    # This tick's share: 200 characters over 24 game s, 2.4 s a tick -> 20.
    assert len(_matched(deliveries)) == 20
    per_tick = []
    while stage.waiting:
        per_tick.append(_tick(stage, facts, 2.4))
    assert max(per_tick) <= 20
    assert len(per_tick) == 9  # within the spread: ten ticks in all
    assert _matched(deliveries) == [("q1", c) for c in crowd]


def test_two_quests_share_one_allowance_oldest_first() -> None:
    crowd = [uuid4() for _ in range(30)]
    stage, deliveries, facts = _stage(crowd, spread=24.0, per_tick=16)
    stage.tick_started(2.4)
    stage.deliver(_quest("q1"))
    stage.deliver(_quest("q2"))
    assert len(_matched(deliveries)) == 16  # the floor, since 30 * 2.4 / 24 < 16
    assert {q for q, _ in _matched(deliveries)} == {"q1"}
    while stage.waiting:
        assert _tick(stage, facts, 2.4) <= 16
    assert _matched(deliveries) == [("q1", c) for c in crowd] + [("q2", c) for c in crowd]


def test_a_tick_as_long_as_the_spread_matches_everyone_at_once() -> None:
    crowd = [uuid4() for _ in range(200)]
    stage, deliveries, _facts = _stage(crowd, spread=24.0, per_tick=16)
    stage.tick_started(60.0)
    stage.deliver(_quest("q1"))
    assert _matched(deliveries) == [("q1", c) for c in crowd]
    assert stage.waiting == 0


def test_no_spread_matches_at_once_and_a_few_characters_need_no_later_tick() -> None:
    crowd = [uuid4() for _ in range(50)]
    stage, deliveries, _facts = _stage(crowd, spread=0.0, per_tick=1)
    stage.deliver(_quest("q1"))
    stage.deliver(_quest("q2"))
    assert len(_matched(deliveries)) == 100
    few = [uuid4() for _ in range(5)]
    stage, deliveries, _facts = _stage(few, spread=24.0, per_tick=16)
    stage.deliver(_quest("q1"))  # outside a tick (an admin's forced quest)
    assert _matched(deliveries) == [("q1", c) for c in few]


def test_a_character_who_left_before_their_turn_is_skipped() -> None:
    crowd = [uuid4() for _ in range(40)]
    online = list(crowd)
    stage, deliveries, facts = _stage(online, spread=24.0, per_tick=16)
    stage.tick_started(2.4)
    stage.deliver(_quest("q1"))
    gone = crowd[30]
    online.remove(gone)
    stage._characters_online = lambda: list(online)
    while stage.waiting:
        _tick(stage, facts, 2.4)
    assert _matched(deliveries) == [("q1", c) for c in crowd if c != gone]
