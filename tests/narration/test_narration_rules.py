"""The narration rules' checklist, end to end through the service: a player acts, a scripted
model answers, the engine clamps, and the outcome is read back from the store."""

from __future__ import annotations

from narration.narrkit import CELLAR, block, fast, player, room_id, scripted, service, settle

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.narration import COLLECTION, TurnRecord
from maid_stdlib.world import WorldService, data_uuid
from maid_stdlib.worldstate import NarratedNPCStats, NarratedPlayerStats, NarratedRoomState


async def turn(engine: GameEngine, actor: object, line: str) -> TurnRecord:
    """Act, wait for the turn, and return the stored turn read back from the store."""
    await cmd(engine, actor, line)  # type: ignore[arg-type]
    svc = service(engine)
    await settle(svc.drain())
    room = engine.services.get(WorldService).room_key_of(actor)  # type: ignore[arg-type]
    recent = await svc.log.recent(room or CELLAR, 1)
    doc = await engine.store.documents.get(COLLECTION, recent[0].key)
    assert doc is not None
    return TurnRecord.model_validate(doc)


def hp(engine: GameEngine, actor: object) -> object:
    stats = engine.world.get_component(actor, NarratedPlayerStats)  # type: ignore[arg-type]
    return stats.values[CELLAR].get("hp")


async def test_a_change_over_the_cap_is_cut_to_it_then_stops_at_the_floor(
    engine: GameEngine,
) -> None:
    fast(engine, scripted(*[block('{"player.hp": -50}')] * 4))
    hero, _ = player(engine, "Aldric")
    values = []
    for _ in range(4):
        record = await turn(engine, hero, "act charge the bandits")
        values.append(hp(engine, hero))
    assert values == [60, 30, 0, 0]
    first = record.parsed_report()
    assert first is not None
    assert [c.code for c in first.clamped] == ["at_limit"]
    assert "minimum of 0" in (first.clamped[0].fix or "")


async def test_cooldown_two_refuses_the_second_change_until_two_actions_pass(
    engine: GameEngine,
) -> None:
    fast(engine, scripted(*[block('{"player.mana": -5}')] * 3))
    hero, _ = player(engine, "Aldric")
    outcomes = []
    for _ in range(3):
        record = await turn(engine, hero, "act cast a spark")
        report = record.parsed_report()
        assert report is not None
        outcomes.append([c.code for c in report.applied + report.rejected])
    assert outcomes == [["applied"], ["cooldown"], ["applied"]]


async def test_a_counter_refuses_a_negative_change_and_advances_by_one(
    engine: GameEngine,
) -> None:
    fast(engine, scripted(block('{"world.day": -1}'), block('{"world.day": +1}')))
    hero, _ = player(engine, "Aldric")
    first = (await turn(engine, hero, "act wait")).parsed_report()
    assert first is not None
    assert first.rejected[0].code == "counter_negative"
    await turn(engine, hero, "act sleep")
    room = room_id(engine, CELLAR)
    assert engine.world.get_component(room, NarratedRoomState).world["day"] == 2


async def test_a_milestone_is_sticky_and_false_is_ignored(engine: GameEngine) -> None:
    fast(
        engine,
        scripted(
            block('{"milestones.rescue_gwen": true}'),
            block('{"milestones.rescue_gwen": true}'),
            block('{"milestones.rescue_gwen": false}'),
        ),
    )
    hero, _ = player(engine, "Aldric")
    first = await turn(engine, hero, "act open the cage")
    second = await turn(engine, hero, "act open it again")
    third = await turn(engine, hero, "act close the cage")
    room = room_id(engine, CELLAR)
    state = engine.world.get_component(room, NarratedRoomState)
    assert state.milestones == {"rescue_gwen": first.action_index}
    codes = [r.parsed_report().rejected[0].code for r in (second, third)]  # type: ignore[union-attr]
    assert codes == ["milestone_repeat", "milestone_unset"]


async def test_npc_stats_live_on_the_npc_entity(engine: GameEngine) -> None:
    fast(engine, scripted(block('{"npc.gwen.trust": +10}')))
    hero, _ = player(engine, "Aldric")
    await turn(engine, hero, "act free gwen's hands")
    gwen = data_uuid("testpack", "narrated_npc", f"{CELLAR}:gwen")
    stats = engine.world.get_component(gwen, NarratedNPCStats)
    assert stats.npc_id == "gwen"
    assert stats.values["trust"] == 30
    room = room_id(engine, CELLAR)
    assert "trust" not in engine.world.get_component(room, NarratedRoomState).world


async def test_a_malformed_block_is_refused_and_a_missing_one_is_nothing(
    engine: GameEngine,
) -> None:
    fast(engine, scripted("Gwen glares.\n```state\n{hp: ??? \n```", "Nothing else happens."))
    hero, session = player(engine, "Aldric")
    malformed = await turn(engine, hero, "act wave")
    missing = await turn(engine, hero, "act wave again")
    for record in (malformed, missing):
        report = record.parsed_report()
        assert record.outcome == "ok"
        assert report is not None
        assert report.delta == {}
        assert not report.applied
    # The unreadable block is a refusal like any other (the turn still completes).
    refused = malformed.parsed_report()
    assert refused is not None
    assert [(c.path, c.code, c.requested) for c in refused.rejected] == [
        ("state block", "unreadable", "{hp: ???")
    ]
    report = missing.parsed_report()
    assert report is not None
    assert not report.rejected
    assert "Gwen glares." in session.text()
    assert "```" not in session.text()


async def test_an_empty_block_is_a_no_op(engine: GameEngine) -> None:
    fast(engine, scripted(block("{}", "Quiet.")))
    hero, session = player(engine, "Aldric")
    record = await turn(engine, hero, "act listen")
    report = record.parsed_report()
    assert report is not None
    assert not report.entries()
    assert "Changes:" not in session.text()
    assert hp(engine, hero) == 90  # instantiated lazily at its initial, never moved


async def test_the_stored_report_carries_all_three_lists(engine: GameEngine) -> None:
    fast(
        engine,
        scripted(
            block('{"player.hp": -50, "world.day": -1, "npc.gwen.trust": +5, "player.luck": 3}')
        ),
    )
    hero, _ = player(engine, "Aldric")
    record = await turn(engine, hero, "act fight")
    raw = record.report
    assert raw is not None
    assert {c["path"] for c in raw["applied"]} == {"player.hp", "npc.gwen.trust"}
    assert [c["path"] for c in raw["clamped"]] == ["player.hp"]
    assert {c["path"] for c in raw["rejected"]} == {"world.day", "player.luck"}
    assert all(c["fix"] for c in raw["rejected"])
    assert record.snapshot_before is not None
    assert record.snapshot_before["values"]["player.hp"] == 90
