"""Turns as players live them: queueing, undo and retry, slow and absent models."""

from __future__ import annotations

import asyncio
from typing import Any

from narration.narrkit import (
    CAMP,
    CELLAR,
    TOWER,
    Gate,
    block,
    fast,
    player,
    room_id,
    scripted,
    service,
    settle,
    until,
)

from maid_engine.engine import GameEngine
from maid_engine.llm import LLMTimeout
from maid_engine.testing import cmd
from maid_stdlib.narration import COLLECTION, LLMService, NarrationConfig
from maid_stdlib.narration.turn import UNFOLDING
from maid_stdlib.worldstate import NarratedPlayerStats, NarratedRoomState


def hp(engine: GameEngine, actor: Any) -> Any:
    return engine.world.get_component(actor, NarratedPlayerStats).values[CELLAR]["hp"]


def room_state(engine: GameEngine, key: str = CELLAR) -> NarratedRoomState:
    room = room_id(engine, key)
    return engine.world.get_component(room, NarratedRoomState)


async def act(engine: GameEngine, actor: Any, line: str) -> str:
    out = await cmd(engine, actor, line)
    await settle(service(engine).drain())
    return out


async def test_the_command_returns_before_the_story_and_everyone_reads_it(
    engine: GameEngine,
) -> None:
    gate = Gate(block('{"player.hp": -10, "flags.has_key": true}', "Aldric finds a key."))
    fast(engine, gate.provider)
    hero, hero_session = player(engine, "Aldric")
    _, friend_session = player(engine, "Bryn")
    _, outsider = player(engine, "Cora", room=CAMP)
    gate.gate("The Cellar")
    out = await cmd(engine, hero, "search the straw")  # no command: the fallback claims it
    assert out.startswith("|>You act: search the straw")
    assert "Aldric acts: search the straw" in friend_session.text()
    assert "finds a key" not in hero_session.text()
    gate.gate("The Cellar").set()
    await settle(service(engine).drain())
    for session in (hero_session, friend_session):
        text = session.text()
        assert "Aldric finds a key." in text
        assert "Changes:" in text
        assert "hp -10" in text
        assert "has key on" in text
        package, data = session.gmcp[-1]
        assert package == "Room.Narration.Changes"
        assert [c["path"] for c in data["applied"]] == ["player.hp", "flags.has_key"]
        assert data["clamped"] == []
        assert data["rejected"] == []
    assert "finds a key" not in outsider.text()
    # Outside, only the two leaving for the cellar were told (Room.RemovePlayer).
    assert [p for p, _ in outsider.gmcp if not p.startswith("Room.RemovePlayer")] == []


async def test_undo_restores_every_value_and_retry_never_applies_twice(
    engine: GameEngine,
) -> None:
    fast(
        engine,
        scripted(
            block('{"player.hp": -10, "milestones.rescue_gwen": true, "npc.gwen.trust": +10}'),
            block('{"player.hp": -20}', "A second telling."),
            block('{"player.hp": -5}', "A third telling."),
        ),
    )
    hero, session = player(engine, "Aldric")
    await act(engine, hero, "act break the cage")
    gwen = service(engine).rooms[CELLAR].npcs["gwen"]
    assert hp(engine, hero) == 80
    assert room_state(engine).milestones == {"rescue_gwen": 1}
    await act(engine, hero, "retry")
    assert hp(engine, hero) == 70  # 90 - 20, not 80 - 20
    assert room_state(engine).milestones == {}
    from maid_stdlib.worldstate import NarratedNPCStats

    assert engine.world.get_component(gwen, NarratedNPCStats).values["trust"] == 20
    assert "A second telling." in session.text()
    await act(engine, hero, "undo")
    assert hp(engine, hero) == 90
    assert room_state(engine).milestones == {}
    assert "last action is undone" in session.text()
    await act(engine, hero, "act try again")
    assert hp(engine, hero) == 85
    docs = await engine.store.documents.query(COLLECTION, {"room": CELLAR})
    assert sorted((d["status"], d["action_index"]) for d in docs) == [
        ("applied", 1),
        ("retried", 1),
        ("undone", 1),
    ]


async def test_undo_refuses_when_someone_else_acted_since(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"player.hp": -10}'), "Bryn looks on."))
    hero, session = player(engine, "Aldric")
    friend, _ = player(engine, "Bryn")
    await act(engine, hero, "act stumble")
    await act(engine, friend, "act watch")
    await act(engine, hero, "undo")
    assert "Someone has acted since" in session.text()
    assert hp(engine, hero) == 80


async def test_a_slow_model_tells_the_room_the_story_is_unfolding(engine: GameEngine) -> None:
    gate = Gate("At last, the lock gives.")
    fast(engine, gate.provider, unfolding_after=0.05)
    hero, session = player(engine, "Aldric")
    _, friend = player(engine, "Bryn")
    release = gate.gate("The Cellar")
    await cmd(engine, hero, "act pick the lock")
    await until(lambda: UNFOLDING in friend.sent)
    release.set()
    await settle(service(engine).drain())
    # Narration is indented and marked as the model's words ("|>").
    assert session.sent.index(UNFOLDING) < session.sent.index("|>  At last, the lock gives.")


async def test_a_timeout_ends_with_a_fallback_no_change_and_a_retry_hint(
    engine: GameEngine,
) -> None:
    gate = Gate(block('{"player.hp": -30}'))
    fast(engine, gate.provider, unfolding_after=0.02, timeout=0.2)
    hero, session = player(engine, "Aldric")
    gate.gate("The Cellar")  # never released: the model hangs
    await act(engine, hero, "act jump")
    assert "lost its thread" in session.text()
    assert "Type 'retry'" in session.text()
    assert hp(engine, hero) == 90
    gate.gate("The Cellar").set()
    await act(engine, hero, "retry")
    assert hp(engine, hero) == 60
    docs = await engine.store.documents.query(COLLECTION, {"room": CELLAR, "active": True})
    assert [d["outcome"] for d in docs] == ["ok"]


async def test_a_failed_retry_leaves_the_old_turn_standing(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"player.hp": -10}'), LLMTimeout()))
    hero, session = player(engine, "Aldric")
    await act(engine, hero, "act fall")
    await act(engine, hero, "retry")
    assert hp(engine, hero) == 80
    assert "your last turn stands" in session.text()


async def test_rooms_do_not_wait_for_each_other_and_the_tick_keeps_going(
    engine: GameEngine,
) -> None:
    gate = Gate("Done.")
    fast(engine, gate.provider)
    cellar_gate = gate.gate("The Cellar")
    hero, _ = player(engine, "Aldric")
    other, _ = player(engine, "Bryn", room=TOWER)
    engine.settings.tick_rate = 200.0
    stop = asyncio.Event()
    ticker = asyncio.create_task(engine.run(stop))
    try:
        svc = service(engine)
        await cmd(engine, hero, "act wait for the guard")
        slow = next(h for h in svc._handles if h.room == CELLAR)
        await until(lambda: slow.phase == "calling")
        ticks = engine.tick_count
        await cmd(engine, other, "act wave from the tower")
        fast_turn = next(h for h in svc._handles if h.room == TOWER)
        await settle(fast_turn)
        await until(lambda: engine.tick_count >= ticks + 5)
        assert not slow.done()
        cellar_gate.set()
        await settle(slow)
    finally:
        stop.set()
        await ticker


async def test_turns_in_one_room_run_in_order(engine: GameEngine) -> None:
    gate = Gate(lambda request: request.messages[-1]["content"].split(": ")[-1][:12])
    fast(engine, gate.provider)
    hero, _ = player(engine, "Aldric")
    friend, _ = player(engine, "Bryn")
    release = gate.gate("The Cellar")
    await cmd(engine, hero, "act first thing")
    second = await cmd(engine, friend, "act second thing")
    assert "1 earlier action" in second
    svc = service(engine)
    await until(lambda: len(gate.provider.requests) == 1)
    assert svc.waiting(CELLAR) == 2
    release.set()
    await settle(svc.drain())
    assert len(gate.provider.requests) == 2
    first_prompt = [m["content"] for m in gate.provider.requests[1].messages]
    assert any("Aldric: first thing" in c for c in first_prompt)  # replayed to the second


async def test_a_player_cannot_queue_a_second_action_before_the_first_is_told(
    engine: GameEngine,
) -> None:
    gate = Gate("Told.")
    fast(engine, gate.provider)
    hero, _ = player(engine, "Aldric")
    release = gate.gate("The Cellar")
    await cmd(engine, hero, "act one")
    assert "still answering your last action" in await cmd(engine, hero, "act two")
    assert "still answering" in await cmd(engine, hero, "three")  # the fallback too
    release.set()
    await settle(service(engine).drain())
    assert len(gate.provider.requests) == 1
    await act(engine, hero, "act four")
    assert len(gate.provider.requests) == 2


async def test_without_a_model_the_room_answers_with_a_template(engine: GameEngine) -> None:
    assert engine.services.get(LLMService).provider is None  # no llm_model in the settings
    svc = service(engine)
    assert svc.provider is None
    svc.config = NarrationConfig(unfolding_after=5.0, timeout=5.0)
    hero, session = player(engine, "Aldric")
    await act(engine, hero, "act light a torch")
    text = session.text()
    assert 'Aldric sets about it: "light a torch"' in text
    assert "No storyteller is configured" in text
    assert hp(engine, hero) == 90


async def test_a_room_without_a_schema_is_untouched(engine: GameEngine) -> None:
    model = scripted("Never asked.")
    fast(engine, model)
    walker, _ = player(engine, "Cora", room=CAMP)
    assert "Huh? 'juggle' is not a command" in await cmd(engine, walker, "juggle wildly")
    assert "Nothing here answers" in await cmd(engine, walker, "act dance")
    assert "Nothing here answers" in await cmd(engine, walker, "state")
    await settle(service(engine).drain())
    assert model.requests == []
    assert await engine.store.documents.count(COLLECTION) == 0
    assert engine.world.try_component(walker, NarratedPlayerStats) is None


async def test_unsafe_narration_is_never_shown(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"player.hp": -10}', "Visit https://example.com now!")))
    hero, session = player(engine, "Aldric")
    await act(engine, hero, "act read the wall")
    assert "example.com" not in session.text()
    assert "lost its thread" in session.text()
    assert hp(engine, hero) == 90


async def test_metrics_count_turns_and_changes(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"player.hp": -50, "world.day": -1}'), LLMTimeout()))
    hero, _ = player(engine, "Aldric")
    await act(engine, hero, "act fight")
    await act(engine, hero, "act fight on")
    text = engine.metrics.render().decode()
    assert 'maid_narrated_turns_total{outcome="ok"} 1.0' in text
    assert 'maid_narrated_turns_total{outcome="timeout"} 1.0' in text
    for kind in ("applied", "clamped", "rejected"):
        assert f'maid_narrated_changes_total{{kind="{kind}"}} 1.0' in text


async def test_stopping_the_engine_drops_a_turn_waiting_for_the_model(
    pack_root: Any, tmp_path: Any
) -> None:
    from narration.narrkit import make_engine

    engine = make_engine(pack_root, tmp_path / "other")
    await engine.start()
    gate = Gate("Never told.")
    fast(engine, gate.provider)
    gate.gate("The Cellar")
    hero, _ = player(engine, "Aldric")
    await cmd(engine, hero, "act wait forever")
    handle = next(iter(service(engine)._handles))
    await until(lambda: handle.phase == "calling")
    await settle(engine.stop())
    assert handle.task.cancelled()
    text = engine.metrics.render().decode()
    assert 'maid_narrated_turns_total{outcome="dropped"} 1.0' in text
