"""The Iron Crisis (the worked example) arises in Ironvale by itself, and ends when the
bandits are gone. No test code touches needs, goals or gossip: only time passes,
and later the bandits die."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.engines import living_of
from kits.quests import SignalLog
from living.livingkit import make_engine, run_hours, story_of

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.living import GoalsComponent, GoalStatus, KnownGossip, NeedsComponent
from maid_stdlib.questgen import QuestGen
from maid_stdlib.story import REQUIRED_CONTEXT, StorySignalType, StorySituationResolvedEvent
from maid_stdlib.world import data_uuid

T = StorySignalType


class IronvaleLivingPack(ContentPack):
    """Ironvale with its living.yaml (the ironvale pack loads it itself)."""

    name = "ironvale_living_test"
    requires = ("ironvale",)

    def register(self, ctx: PackContext) -> None:
        """Ironvale and the groups it requires did the wiring."""


def iv(key: str, kind: str = "npc") -> str:
    return str(data_uuid("ironvale", kind, key))


@pytest.mark.slow
async def test_the_iron_crisis_emerges_and_resolves(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [IronvaleLivingPack])
    resolved: list[StorySituationResolvedEvent] = []
    engine.events.subscribe(StorySituationResolvedEvent, resolved.append)
    async with engine.lifespan():
        signals = SignalLog(engine).signals
        gundrik = data_uuid("ironvale", "npc", "gundrik")
        living = living_of(engine)
        await run_hours(engine, 3 * 24)

        contracts = engine.services.get(QuestGen).contracts
        for s in signals:
            assert s.missing_context() == [], s
            # A signal of the RPG's own (a crafting request) has its keys in its
            # quest contract, not in the story layer's table.
            contract = contracts.get(s.signal_type)
            assert contract is not None, s.signal_type
            required = REQUIRED_CONTEXT.get(s.signal_type, contract.required_keys)
            assert set(required) <= set(s.context)
        types = {s.signal_type for s in signals}
        assert {
            T.GOAL_BLOCKED,
            T.THREAT_DETECTED,
            T.RESOURCE_SCARCITY,
            T.RIVALRY_ESCALATION,
            T.CRISIS,
        } <= types

        # GOAL_BLOCKED: Gundrik's ACQUIRE iron goal, blocked by the bandits on the road.
        blocked = [
            s
            for s in signals
            if s.signal_type == T.GOAL_BLOCKED and s.context["npc_id"] == str(gundrik)
        ]
        assert blocked
        assert blocked[0].involved_npcs == [gundrik]
        ctx = blocked[0].context
        assert ctx["blocked_goal"] == "Source quality iron"
        assert ctx["goal_type"] == "ACQUIRE"
        assert ctx["threat_source"] == "bandits"
        assert "bandits at the Broken Wagon on the Old Trade Road" in ctx["blocker"]
        assert blocked[0].importance >= 0.8

        # THREAT_DETECTED: the trade road, known to Selena and Voss among others.
        threats = [s for s in signals if s.signal_type == T.THREAT_DETECTED]
        assert threats[0].context["threat_source"] == "bandits"
        assert threats[0].context["threat_location"] == iv("road_wagon", "room")
        assert threats[0].context["threat_area"] == iv("old_trade_road", "area")
        aware = {str(u) for u in threats[0].involved_npcs}
        assert {iv("selena"), iv("voss")} <= aware

        scarcity = [
            s
            for s in signals
            if s.signal_type == T.RESOURCE_SCARCITY and s.context["resource_type"] == "iron"
        ]
        assert scarcity
        assert scarcity[0].context["affected_npcs"] == [str(gundrik)]
        rivalry = [s for s in signals if s.signal_type == T.RIVALRY_ESCALATION]
        assert {rivalry[0].context["npc_a"], rivalry[0].context["npc_b"]} == {
            iv("selena"),
            iv("voss"),
        }
        # The village's own crisis (the mine and the Greywood have theirs).
        crisis = [
            s
            for s in signals
            if s.signal_type == T.CRISIS and s.context["affected_area"] == iv("village", "area")
        ]
        assert crisis
        assert crisis[0].context["crisis_type"] == "fear"

        # The state behind the signals, as the worked example describes it.
        needs = engine.world.get_component(gundrik, NeedsComponent)
        assert (needs.value("economic") or 0.0) < 0.2
        goal = engine.world.get_component(gundrik, GoalsComponent).get("source_iron")
        assert goal is not None
        assert goal.status == GoalStatus.BLOCKED
        selena = data_uuid("ironvale", "npc", "selena")
        key = "threat:bandits:ironvale:old_trade_road"
        assert engine.world.get_component(selena, KnownGossip).items[key].confidence == 1.0
        assert any("andits" in line for line in living.gossip_lines(selena))
        assert (
            key
            in engine.world.get_component(data_uuid("ironvale", "npc", "voss"), KnownGossip).items
        )
        assert (
            engine.world.get_component(data_uuid("ironvale", "npc", "bram"), KnownGossip)
            .items[key]
            .confidence
            < 1.0
        )  # heard it, did not see it

        # The bandits die: the road clears, the goal unblocks and is reached.
        for uid, _source in list(living.threat_map().by_room.get("ironvale:road_wagon", [])):
            engine.world.destroy_entity(uid)
        await engine.dispatch_events()
        await run_hours(engine, 1)
        assert goal.status == GoalStatus.ACTIVE
        assert goal.blocker is None
        gone = {r.situation_key for r in resolved}
        assert any(k.startswith(f"goal_blocked:{gundrik}:source_iron") for k in gone)
        assert "scarcity:iron" in gone
        await run_hours(engine, 6)
        assert goal.status == GoalStatus.DONE
        assert (needs.value("economic") or 0.0) >= 0.4
        assert not story_of(engine).is_active(blocked[-1].situation_key)
