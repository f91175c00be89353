"""ConsequenceSystem: graded outcomes from the event, retries on conflict, failure,
abandonment and expiry consequences, same-target merging, one grade for all."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

import pytest
from kits.engines import hv, living_of, metric, plain, qm
from kits.heroes import new_hero, walk
from kits.quests import (
    accept,
    applied_delta,
    assert_trust,
    consequences_of,
    deliver,
    simple_quest,
    trust,
)

from classic_rpg.systems.quests.grading import grade_outcome
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.consequences import (
    ConsequencesAppliedEvent,
    WorldMutationBatch,
    world_flag,
)
from maid_stdlib.living import KnownGossip, MemoryVisibility
from maid_stdlib.living.api import get_faction_standing, get_need_value, set_need
from maid_stdlib.questgen.events import QuestTurnedInEvent
from maid_stdlib.questgen.vocabulary import QuestOutcome, QuestState


class Applied:
    def __init__(self, engine: GameEngine) -> None:
        self.events: list[ConsequencesAppliedEvent] = []
        engine.events.subscribe(ConsequencesAppliedEvent, self.events.append)


async def started(engine: GameEngine, **kw: Any) -> tuple[UUID, str]:
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine, **kw))
    await accept(engine, hero, quest_id)
    return hero, quest_id


def gossip_of(engine: GameEngine, npc: UUID) -> set[str]:
    known = engine.world.try_component(npc, KnownGossip)
    return {i.content for i in known.items.values()} if known is not None else set()


async def test_a_real_turn_in_changes_the_living_world(engine: GameEngine) -> None:
    hollin, tamsin = hv("hollin"), hv("tamsin")
    set_need(engine.world, hollin, "economic", 0.2)
    hero, _quest_id = await started(engine)
    applied = Applied(engine)
    await walk(engine, hero, "hamlet:warden_hut")
    await cmd(engine, hero, "talk tamsin")
    await walk(engine, hero, "hamlet:mill")
    out = await cmd(engine, hero, "talk hollin")
    assert "Quest complete" in plain(out)
    assert "(perfect)" in out

    assert len(applied.events) == 1
    assert applied.events[0].outcome == "perfect"
    # PERFECT: every success consequence x1.25
    assert applied_delta(engine, "relationship_change", hollin) == pytest.approx(0.375)
    assert applied_delta(engine, "relationship_change", tamsin) == pytest.approx(0.1875)
    assert_trust(engine, hollin, hero, 0.375, talks=2)
    assert_trust(engine, tamsin, hero, 0.1875, talks=1)
    assert get_need_value(engine.world, hollin, "economic") == pytest.approx(0.575)
    assert get_faction_standing(engine.world, hero, "hamlet") == pytest.approx(0.125)
    assert "An adventurer carried Hollin's words to the warden" in gossip_of(engine, hollin)
    assert world_flag(engine.world, "errand:tamsin") == "asked"
    memory = living_of(engine).memory.get_recent(hollin, 1, MemoryVisibility.PUBLIC)[0]
    assert memory.content == "A stranger spoke to Tamsin for me."
    assert memory.player_id == hero
    assert {"quest", "perfect", "visibility:public"} <= set(memory.tags)


async def test_the_outcome_comes_from_the_event_never_regraded(engine: GameEngine) -> None:
    hollin = hv("hollin")
    set_need(engine.world, hollin, "economic", 0.2)
    hero, quest_id = await started(engine)
    manager = qm(engine)
    manager.objectives.talk_now(hero, hv("tamsin"))
    manager.objectives.talk_now(hero, hollin)
    entry = manager.entry(hero, quest_id)
    quest = manager.get_quest(quest_id)
    assert entry is not None
    assert quest is not None
    assert entry.state is QuestState.COMPLETED
    # The objectives would grade PERFECT ...
    assert grade_outcome(quest, entry, manager.now) is QuestOutcome.PERFECT
    applied = Applied(engine)
    # ... but the quest manager's event says PYRRHIC_VICTORY: that is what counts.
    engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.PYRRHIC_VICTORY))
    await engine.dispatch_events()

    assert [e.outcome for e in applied.events] == ["pyrrhic_victory"]
    assert trust(engine, hollin, hero) == pytest.approx(0.3 * 0.3)
    assert get_need_value(engine.world, hollin, "economic") == pytest.approx(0.2 + 0.3 * 0.3)
    memory = living_of(engine).memory.get_recent(hollin, 1)[0]
    assert "pyrrhic_victory" in memory.tags


async def test_each_outcome_is_applied_once(engine: GameEngine) -> None:
    hero, quest_id = await started(engine)
    for _ in range(2):
        engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
        await engine.dispatch_events()
    assert trust(engine, hv("hollin"), hero) == pytest.approx(0.3)


async def test_a_conflict_is_retried_once_from_a_fresh_read(engine: GameEngine) -> None:
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    system = consequences_of(engine)

    def concurrent_writer(batch: WorldMutationBatch, attempt: int) -> None:
        if attempt == 1:  # someone changes Hollin between validation and application
            system.versions.bump(hollin)
            set_need(engine.world, hollin, "economic", 0.25)

    system.before_apply.append(concurrent_writer)
    result = await system.on_turned_in(quest_id, hero, QuestOutcome.COMPLETED)
    assert result is not None
    assert result.status == "applied"
    assert result.attempts == 2
    # the retry planned from the new value
    assert get_need_value(engine.world, hollin, "economic") == pytest.approx(0.55)
    assert trust(engine, hollin, hero) == pytest.approx(0.3)
    assert metric(engine, "maid_consequence_batches_total", status="applied") == 1


async def test_a_second_conflict_is_rolled_back_logged_and_counted(
    engine: GameEngine, caplog: pytest.LogCaptureFixture
) -> None:
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    system = consequences_of(engine)
    need_before = get_need_value(engine.world, hollin, "economic")
    memories_before = living_of(engine).memory.count(hollin)

    def conflict(batch: WorldMutationBatch, attempt: int) -> None:
        system.versions.bump(hollin)  # Hollin changed under the batch

    system.before_apply.append(conflict)
    with caplog.at_level(logging.WARNING, logger="maid.consequences"):
        result = await system.on_turned_in(quest_id, hero, QuestOutcome.COMPLETED)
    assert result is not None
    assert result.status == "conflict"
    assert result.attempts == 2
    assert any("consequence batch failed" in r.getMessage() for r in caplog.records)
    assert metric(engine, "maid_consequence_batches_total", status="conflict") == 1
    assert trust(engine, hollin, hero) == 0.0
    assert get_need_value(engine.world, hollin, "economic") == need_before
    assert living_of(engine).memory.count(hollin) == memories_before
    assert world_flag(engine.world, "errand:tamsin") is None


async def test_abandoning_merges_the_penalty_with_the_failure_consequences(
    engine: GameEngine,
) -> None:
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    applied = Applied(engine)
    out = await cmd(engine, hero, f"abandon {quest_id} yes")
    assert "You abandon" in out
    await engine.dispatch_events()

    assert [e.outcome for e in applied.events] == ["abandoned"]
    # failure -0.1 and abandonment -0.15 on the same giver: merged, not a conflict
    assert trust(engine, hollin, hero) == pytest.approx(-0.25)
    news = gossip_of(engine, hollin)
    # Someone came and walked away: not "nobody came".
    assert not any(n.startswith("Nobody") for n in news), news
    assert "Aria gave up on helping Hollin: The Miller's Errand" in news
    known = engine.world.get_component(hollin, KnownGossip)
    assert all(
        i.confidence == pytest.approx(0.9) for i in known.items.values() if "quest" in i.tags
    )
    memory = living_of(engine).memory.get_recent(hollin, 1)[0]
    assert memory.content == 'Aria took on "The Miller\'s Errand" for me, and gave up on it.'
    assert memory.player_id == hero  # the giver remembers who failed them
    assert "abandoned" in memory.tags


async def test_expiry_applies_the_failure_consequences_once(engine: GameEngine) -> None:
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    applied = Applied(engine)
    assert qm(engine).expire_quest(quest_id) == [hero]
    await engine.dispatch_events()
    assert [e.outcome for e in applied.events] == ["expired"]
    assert applied.events[0].character_ids == [hero]
    assert trust(engine, hollin, hero) == pytest.approx(-0.1)
    news = gossip_of(engine, hollin)
    assert 'Aria tried to help Hollin ("The Miller\'s Errand"), and did not finish in time' in news
    assert not any(n.startswith("Nobody") for n in news), news
    memory = living_of(engine).memory.get_recent(hollin, 1)[0]
    assert "expired" in memory.tags
    assert memory.content == (
        'Aria took on "The Miller\'s Errand" for me, and did not finish in time.'
    )


async def test_an_offer_nobody_took_expiring_still_lets_the_giver_down(
    engine: GameEngine,
) -> None:
    hollin = hv("hollin")
    hero = new_hero(engine)
    quest_id = await deliver(engine, simple_quest(engine))
    qm(engine).offer_quest(hero, quest_id)
    applied = Applied(engine)
    qm(engine).expire_quest(quest_id)
    await engine.dispatch_events()
    assert [e.character_ids for e in applied.events] == [[]]
    assert trust(engine, hollin, hero) == 0.0  # nobody accepted it
    assert "Nobody asked Tamsin for Hollin" in gossip_of(engine, hollin)
    memory = living_of(engine).memory.get_recent(hollin, 1)[0]
    assert memory.content == "Nobody came when I asked for help."
    assert memory.player_id is None  # nobody to remember


async def test_someone_who_tried_and_failed_is_told_apart_from_nobody_coming(
    engine: GameEngine,
) -> None:
    """A failed attempt: the giver's trust in that character drops, the giver
    remembers who failed them, word names them; when the quest lapses afterwards
    nobody says "nobody came" (someone did)."""
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    applied = Applied(engine)
    qm(engine).fail_quest(hero, quest_id)
    await engine.dispatch_events()
    assert [(e.outcome, e.character_ids) for e in applied.events] == [("failed", [hero])]
    assert trust(engine, hollin, hero) == pytest.approx(-0.1)
    news = gossip_of(engine, hollin)
    assert 'Aria tried to help Hollin ("The Miller\'s Errand"), and failed' in news
    memory = living_of(engine).memory.get_recent(hollin, 1)[0]
    assert memory.content == 'Aria took on "The Miller\'s Errand" for me, and failed.'
    assert memory.player_id == hero
    memories = living_of(engine).memory.count(hollin)
    qm(engine).expire_quest(quest_id)  # nobody else took it on before it lapsed
    await engine.dispatch_events()
    assert [e.character_ids for e in applied.events] == [[hero], []]
    assert not any(n.startswith("Nobody") for n in gossip_of(engine, hollin))
    assert living_of(engine).memory.count(hollin) == memories
    assert trust(engine, hollin, hero) == pytest.approx(-0.1)  # not blamed twice


async def test_failure_and_invalidation(engine: GameEngine) -> None:
    hollin = hv("hollin")
    hero, quest_id = await started(engine)
    applied = Applied(engine)
    qm(engine).fail_quest(hero, quest_id)
    await engine.dispatch_events()
    assert [e.outcome for e in applied.events] == ["failed"]
    assert trust(engine, hollin, hero) == pytest.approx(-0.1)

    other = await deliver(engine, simple_quest(engine, "second-errand"))
    await accept(engine, hero, other)
    qm(engine).invalidate_quest(other, "test")
    await engine.dispatch_events()
    assert len(applied.events) == 1  # the world, not the character, ended it
    assert trust(engine, hollin, hero) == pytest.approx(-0.1)


async def test_authored_quests_have_no_generated_consequences(engine: GameEngine) -> None:
    hero = new_hero(engine)
    assert qm(engine).get_quest("wolf-watch") is not None  # Hamlet's authored quest
    applied = Applied(engine)
    engine.events.emit(QuestTurnedInEvent("wolf-watch", hero, QuestOutcome.COMPLETED))
    await engine.dispatch_events()
    assert not applied.events


async def test_involved_npcs_get_witness_memories_of_how_it_ended(engine: GameEngine) -> None:
    """Not only the giver remembers: Warden Tamsin, the informant of the errand,
    remembers who took it on and how it ended (public, at half its importance)."""
    hollin, tamsin = hv("hollin"), hv("tamsin")
    memory = living_of(engine).memory
    hero, quest_id = await started(engine)
    engine.events.emit(QuestTurnedInEvent(quest_id, hero, QuestOutcome.COMPLETED))
    await engine.dispatch_events()
    [seen] = [m for m in memory.get_recent(tamsin, 5) if "quest_witness" in m.tags]
    assert (
        seen.content
        == 'Aria took on "The Miller\'s Errand", and I had a part in it. It ended well.'
    )
    assert seen.player_id == hero
    assert {"role:informant", "completed", "visibility:public"} <= set(seen.tags)
    assert seen.visibility is MemoryVisibility.PUBLIC
    assert seen.importance == pytest.approx(0.4)
    # the giver's own memory is the quest's, not a witness's
    assert not [m for m in memory.get_recent(hollin, 5) if "quest_witness" in m.tags]

    other = await deliver(engine, simple_quest(engine, "second-errand"))
    await accept(engine, hero, other)
    qm(engine).fail_quest(hero, other)
    await engine.dispatch_events()
    failed = [m for m in memory.get_recent(tamsin, 5) if "failed" in m.tags]
    assert [m.content.endswith("It came to nothing.") for m in failed] == [True]


async def test_half_the_job_turned_in_early_is_a_partial_success_at_half_strength(
    engine: GameEngine,
) -> None:
    """A generated quest may be turned in with half its required objectives done:
    PARTIAL_SUCCESS, its success consequences x0.5 (and half the rewards)."""
    hollin, tamsin = hv("hollin"), hv("tamsin")
    set_need(engine.world, hollin, "economic", 0.2)
    hero, quest_id = await started(engine)
    applied = Applied(engine)
    await walk(engine, hero, "hamlet:mill")
    out = await cmd(engine, hero, f"turnin {quest_id}")
    # nothing done yet: nothing to settle for, only a failure to own up to
    assert "less than half" in out
    await walk(engine, hero, "hamlet:warden_hut")
    await cmd(engine, hero, "talk tamsin")
    await walk(engine, hero, "hamlet:mill")
    out = await cmd(engine, hero, f"turnin {quest_id}")
    assert "partial" in plain(out).lower()
    assert [e.outcome for e in applied.events] == ["partial_success"]
    assert trust(engine, hollin, hero) == pytest.approx(0.3 * 0.5)
    assert_trust(engine, tamsin, hero, 0.15 * 0.5, talks=1)
    assert get_need_value(engine.world, hollin, "economic") == pytest.approx(0.2 + 0.3 * 0.5)
    assert get_faction_standing(engine.world, hero, "hamlet") == pytest.approx(0.05)
    entry = qm(engine).entry(hero, quest_id)
    assert entry is not None
    assert entry.outcome is QuestOutcome.PARTIAL_SUCCESS
