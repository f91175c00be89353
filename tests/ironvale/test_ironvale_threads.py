"""Ironvale's stories besides the bandits, raised by the living world on its own
(needs, schedules, threats, relationships in the pack's data; nothing injected):
the failing mine, the herbalist missing in the Greywood, the Miller-Harrow feud and
the trade shortages. Each signal names live entities, and the quest pipeline makes
a quest of the right archetype from it."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from ironvale.ironkit import ironvale_engine, iv
from kits.quests import SignalLog, build

from maid_engine.engine import GameEngine
from maid_stdlib.living import NeedsComponent, Relationships, Schedule
from maid_stdlib.questgen import GeneratedQuest, QuestGen
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.story import StorySignal
from maid_stdlib.world import NPC, WorldService


def live(engine: GameEngine, uids: list[UUID]) -> bool:
    return all(engine.world.entity_exists(u) for u in uids) and bool(uids)


async def test_the_valley_has_sixty_rooms_five_areas_and_twenty_five_people(
    tmp_path: Path,
) -> None:
    async with ironvale_engine(tmp_path).lifespan() as engine:
        ws = engine.services.get(WorldService)
        rooms = [r for r in ws.room_keys() if r.startswith("ironvale:")]
        assert len(rooms) >= 60
        areas = {ws.area_of(r) for r in rooms}
        for area in ("village", "outskirts", "mine", "greywood", "millstream", "old_trade_road"):
            assert f"ironvale:{area}" in areas
        # Every exit leads somewhere that leads back.
        for room in rooms:
            for target in ws.exits_of(room).values():
                assert room in ws.exits_of(target).values(), (room, target)
        # People (not beasts, not bandits) with needs, a goal to form, a day, ties
        # and a side.
        people = []
        for uid, npc in engine.world.each(NPC):
            needs = engine.world.try_component(uid, NeedsComponent)
            if needs is None or not any(n.goal is not None for n in needs.needs.values()):
                continue
            if not engine.world.try_component(uid, Schedule):
                continue
            rels = engine.world.try_component(uid, Relationships)
            if rels is None or not rels.entries:
                continue
            people.append(npc.template)
        assert len(people) >= 25, sorted(people)


def _of(signals: SignalLog, kind: str, npc: UUID | None = None) -> list[StorySignal]:
    return [s for s in signals.of(kind) if npc is None or npc in s.involved_npcs]


async def test_the_valley_raises_its_own_troubles(tmp_path: Path) -> None:
    engine = ironvale_engine(tmp_path, tick=300.0)
    async with engine.lifespan():
        signals = SignalLog(engine)
        hilde = iv("hilde")
        dace = iv("dace")
        mine: GeneratedQuest | None = None
        case: GeneratedQuest | None = None
        for _ in range(34 * 4):  # to the evening of the second day
            await engine.run_ticks(3)  # 15 game minutes at 300 s a tick
            # The mine's trouble comes and goes with the crawlers (up in the seam
            # from the afternoon, back in their cave by morning): a quest is built
            # while it holds.
            blocked_now = [
                s for s in _of(signals, "GOAL_BLOCKED", hilde) if "crawlers" in s.context["blocker"]
            ]
            crawling = [
                s for s in signals.of("THREAT_DETECTED") if s.context["threat_source"] == "crawlers"
            ]
            if mine is None and blocked_now and crawling:
                mine = await build(engine, [blocked_now[-1], crawling[-1]])
            # Likewise the theft, while it is news.
            stolen = [s for s in signals.of("BETRAYAL") if UUID(s.context["betrayer"]) == dace]
            if case is None and stolen:
                case = await build(engine, [stolen[-1]])
        jory, selena = iv("jory"), iv("selena")
        wren, fenn, aldous, brin = iv("wren"), iv("fenn"), iv("aldous"), iv("brin")

        # The failing mine: the crawlers hold the deep seam; Hilde's ore stops.
        blocked = [
            s for s in _of(signals, "GOAL_BLOCKED", hilde) if "crawlers" in s.context["blocker"]
        ]
        assert blocked, [s.context for s in signals.of("GOAL_BLOCKED")]
        scarcity = [
            s for s in signals.of("RESOURCE_SCARCITY") if s.context["resource_type"] == "ore"
        ]
        assert scarcity
        assert live(engine, scarcity[0].involved_npcs)
        crawlers = [
            s for s in signals.of("THREAT_DETECTED") if s.context["threat_source"] == "crawlers"
        ]
        assert crawlers
        assert crawlers[-1].context["threat_room_key"] == "ironvale:deep_seam"
        assert mine is not None
        assert mine.quest_giver_id == hilde
        assert mine.archetype_id == "threat_elimination"
        ws = engine.services.get(WorldService)
        assert {ws.area_of(o.target_location) for o in mine.objectives if o.target_location} & {
            "ironvale:mine"
        }

        # Missing in the Greywood: Wren went for moonwort where the wolves den and
        # could not come home; Fenn, her brother, raises the alarm.
        missing = [
            s for s in signals.of("CRISIS") if s.context.get("crisis_type") == "missing person"
        ]
        assert missing, [s.context for s in signals.of("CRISIS")]
        alarm = missing[0]
        assert alarm.involved_npcs == [fenn, wren]
        assert alarm.context["affected_area_key"] == "ironvale:herb_glade"
        assert live(engine, alarm.involved_npcs)
        rescue = await build(engine, [alarm])
        assert rescue.archetype_id == "rescue_mission"
        assert rescue.quest_giver_id == fenn

        # The feud: Aldous and Brin sour on each other at the weir and before the
        # elder, faster as the dry fields wear Brin down.
        feud = [
            s
            for s in signals.of("RIVALRY_ESCALATION")
            if {UUID(s.context["npc_a"]), UUID(s.context["npc_b"])} == {aldous, brin}
        ]
        assert feud
        talks = await build(engine, [feud[0]])
        assert talks.archetype_id in ("diplomatic_resolution", "faction_choice")
        assert {aldous, brin} <= {talks.quest_giver_id, *talks.involved_npcs}

        # Shortages: the lamp room's oil runs low and Selena sells lamp oil.
        trade = [
            s
            for s in signals.of("TRADE_OPPORTUNITY")
            if s.context["item_type"] == "lamp oil" and UUID(s.context["demand_npc"]) == jory
        ]
        assert trade, [s.context for s in signals.of("TRADE_OPPORTUNITY")]
        assert UUID(trade[0].context["supply_npc"]) == selena
        supply = await build(engine, [trade[0]])
        assert supply.archetype_id == "supply_chain"

        # A theft with a culprit to find: Dace, pressed by his debts, takes coin from
        # the wage chest while Mara is out; she finds it missing, not who took it.
        mara = iv("mara")
        thefts = [
            s
            for s in signals.of("BETRAYAL")
            if UUID(s.context["betrayer"]) == dace and UUID(s.context["victim"]) == mara
        ]
        assert thefts, [s.context for s in signals.of("BETRAYAL")]
        theft = thefts[0]
        assert theft.context["evidence_location"] == str(ws.room_id("ironvale:pay_office"))
        assert "Dace" not in (theft.context["what_happened"] or "")
        assert case is not None
        assert case.archetype_id == "investigation"
        assert dace in {case.quest_giver_id, *case.involved_npcs}

        # Every trade the world raised names goods that are really there to carry.
        qg = engine.services.get(QuestGen)
        wanted = set()
        for signal in signals.of("TRADE_OPPORTUNITY"):
            grounded = qg.evaluator().ground(signal)
            assert not isinstance(grounded, Rejection), (signal.context, grounded)
            wanted.add(signal.context["item_type"])
        assert {"lamp oil", "plough share"} <= wanted
