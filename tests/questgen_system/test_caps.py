"""Per-region quest density, the per-character pending-offer cap, and expiry."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.engines import metric, qg_of, qm, questgen_of
from questgen_system.qskit import move, no_holds, online, seed_for, started, ticks, until

from maid_engine.clock import ManualClock
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.delivery import PendingDeliveries
from maid_stdlib.questgen.events import QuestExpiredInternalEvent
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.vocabulary import QuestState


@pytest.fixture(autouse=True)
def no_quality_filter(quiet: GameEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    # Several wolf quests in a row would trip combat fatigue; these tests are
    # about the caps.
    monkeypatch.setattr(qg_of(quiet).quality_filter, "check", lambda _quest: [])
    monkeypatch.setattr(qg_of(quiet).quality_filter, "check_plan", lambda _quest: [])
    monkeypatch.setattr(qg_of(quiet).quality_filter, "archetype_blocked", lambda _a: [])
    no_holds(quiet, monkeypatch)


async def build(engine: GameEngine, *givers: str) -> list[str]:
    system = questgen_of(engine)
    before = len(system.open_quests())
    for giver in givers:
        system.enqueue(seed_for(engine, giver))
    await until(engine, lambda: len(system.open_quests()) >= before + len(givers))
    return list(system.open_quests())[before:]


async def test_a_full_region_gets_no_new_builds_until_a_quest_closes(quiet: GameEngine) -> None:
    system = questgen_of(quiet)
    await build(quiet, "pell", "tamsin", "marta")
    region = next(iter(system.open_quests().values())).quest.region
    assert region == "ashford"
    assert qg_of(quiet).history.count_active_in_region(region) == 3
    waiting = seed_for(quiet, "wenna")
    system.enqueue(waiting)
    await ticks(quiet, 3)
    assert waiting.attempt_count == 0
    assert waiting in system.pending_seeds()
    first = next(iter(system.open_quests()))
    system.quest_turned_in(first, "completed")
    await until(quiet, lambda: waiting.attempt_count == 1)


async def test_the_density_cap_is_checked_again_when_a_build_finishes(quiet: GameEngine) -> None:
    system = questgen_of(quiet)
    await build(quiet, "pell", "tamsin")
    for giver in ("marta", "wenna"):
        system.enqueue(seed_for(quiet, giver))
    # Both launch in one cycle: the region holds 2 of 3.
    await until(quiet, lambda: len(system.in_flight_ids()) == 2)
    await ticks(quiet)
    assert len(system.open_quests()) == 3
    assert [r.outcome for r in system.build_records()][-2:] == [
        "registered",
        "rejected:region_density",
    ]
    assert metric(quiet, "maid_questgen_rejections_total", stage="region_density") == 1


async def test_a_character_never_holds_more_unanswered_offers_than_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(tmp_path, QuestGenerationConfig(max_pending_offers_per_player=1)) as quiet:
        no_holds(quiet, monkeypatch)  # two quests on the same wolves
        hero, session = await online(quiet, "Aldric", level=4)
        tamsin_quest, hollin_quest = await build(quiet, "tamsin", "hollin")
        manager = qm(quiet)
        await move(quiet, hero, "warden_hut")
        assert manager.quest_state(hero, tamsin_quest) is QuestState.AVAILABLE
        for room in ("green", "mill_lane", "mill"):
            await move(quiet, hero, room)
        assert manager.quest_state(hero, hollin_quest) is None  # one unanswered offer is enough
        assert manager.count_pending_offers(hero) == 1
        await manager.accept_quest(hero, tamsin_quest)
        await move(quiet, hero, "mill_lane")
        await move(quiet, hero, "mill")
        assert manager.quest_state(hero, hollin_quest) is QuestState.AVAILABLE
        assert "beckons you closer" in session.text()
        assert metric(quiet, "maid_questgen_offers_total", method="direct_offer") == 2


async def test_open_quests_expire_on_game_time(quiet: GameEngine) -> None:
    system = questgen_of(quiet)
    expired: list[QuestExpiredInternalEvent] = []
    quiet.events.subscribe(QuestExpiredInternalEvent, expired.append)
    hero, _ = await online(quiet, "Aldric", level=4)
    [quest_id] = await build(quiet, "tamsin")
    quest = system.open_quests()[quest_id].quest
    await move(quiet, hero, "warden_hut")
    manager = qm(quiet)
    await manager.accept_quest(hero, quest_id)
    await move(quiet, hero, "green")
    assert isinstance(quiet.clock, ManualClock)
    quiet.clock.skip(quest.expiry - quiet.clock.game_time - 90.0)
    await ticks(quiet)
    assert quest_id in system.open_quests()  # not yet
    await ticks(quiet)
    assert quest_id not in system.open_quests()
    assert not manager.is_open(quest_id)
    assert manager.quest_state(hero, quest_id) is QuestState.FAILED
    assert qg_of(quiet).history.get(quest_id).outcome == "expired"  # type: ignore[union-attr]
    assert [e.character_ids for e in expired] == [[hero]]
    assert (
        quiet.world.try_component(hero, PendingDeliveries) is None
        or not quiet.world.get_component(hero, PendingDeliveries).items
    )
