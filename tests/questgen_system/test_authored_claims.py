"""Generated quests leave the people and places of a hand-written quest someone is
on alone: Hamlet's "Watch the Road" (Warden Tamsin sends a character to the copse)
keeps Tamsin and the copse out of new quests until it is over."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from kits.engines import npc, qg_of, qm
from questgen_system.qskit import make_engine, online, threat

from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.seed import QuestSeed


async def test_a_hand_written_quest_in_progress_keeps_its_npcs_and_places(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        qg = qg_of(engine)
        facts = qg.facts
        tamsin = npc(engine, "tamsin")
        assert facts.claimed_by_authored(tamsin, "hamlet:road_copse") is None
        assert isinstance(await qg.evaluator().evaluate(threat(engine, "tamsin")), QuestSeed)

        hero, _ = await online(engine, "Aldric", room="hamlet:warden_hut", level=2)
        manager = qm(engine)
        manager.offer_quest(hero, "wolf-watch")
        await manager.accept_quest(hero, "wolf-watch")
        assert facts.claimed_by_authored(tamsin) == (tamsin, "Watch the Road")
        assert facts.claimed_by_authored("hamlet:road_copse") == (
            "hamlet:road_copse",
            "Watch the Road",
        )
        # her own seed, and anyone's seed about the copse, wait
        rejected = await qg.evaluator().evaluate(threat(engine, "tamsin"))
        assert isinstance(rejected, Rejection)
        assert rejected.reason.endswith(
            "part of the hand-written quest 'Watch the Road' someone is on"
        )
        other = await qg.evaluator().evaluate(threat(engine, "hollin"))
        assert isinstance(other, Rejection)
        assert "'Watch the Road'" in other.reason

        manager.abandon_quest(hero, "wolf-watch")
        await engine.dispatch_events()
        assert facts.claimed_by_authored(tamsin, "hamlet:road_copse") is None
        assert isinstance(await qg.evaluator().evaluate(threat(engine, "hollin")), QuestSeed)


async def test_the_validator_refuses_objectives_on_claimed_ground(tmp_path: Path) -> None:
    from kits.quests import simple_quest

    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        qg = qg_of(engine)
        quest = simple_quest(engine)  # asks Warden Tamsin about the road
        assert (await qg.validator.validate(quest)).valid
        hero, _ = await online(engine, "Aldric", room="hamlet:warden_hut", level=2)
        qm(engine).offer_quest(hero, "wolf-watch")
        await qm(engine).accept_quest(hero, "wolf-watch")
        result = await qg.validator.validate(quest)
        assert not result.valid
        assert any("'Watch the Road'" in e for e in result.errors), result.errors
        # a quest already under way is not invalidated by it
        assert (await qg.validator.validate(quest, accepted=True)).valid


async def test_the_claims_are_gathered_again_only_when_a_quest_log_or_definition_changes(
    tmp_path: Path,
) -> None:
    from classic_rpg.questgen.wiring import AuthoredClaims
    from classic_rpg.systems.quests.questlog import QuestLog

    engine = make_engine(tmp_path, quiet=True)
    async with engine.lifespan():
        facts = qg_of(engine).facts
        (hook,) = [h for h in facts.authored_claims if isinstance(h, AuthoredClaims)]
        read: list[int] = []  # how many quest logs each gathering read
        read_one = hook._of

        def counted(qlog: QuestLog) -> dict[UUID | str, str]:
            read[-1] += 1
            return read_one(qlog)

        hook._of = counted  # type: ignore[method-assign]

        def claimed(who: UUID) -> tuple[UUID | str, str] | None:
            read.append(0)
            return facts.claimed_by_authored(who)

        tamsin = npc(engine, "tamsin")
        hero, _ = await online(engine, "Aldric", room="hamlet:warden_hut", level=2)
        other, _ = await online(engine, "Brenna", room="hamlet:warden_hut", level=2)
        bystander, _ = await online(engine, "Cora", room="hamlet:warden_hut", level=2)
        manager = qm(engine)
        manager.offer_quest(bystander, "wolf-watch")  # a log that never changes again
        manager.offer_quest(hero, "wolf-watch")
        await manager.accept_quest(hero, "wolf-watch")
        for _ in range(50):
            assert claimed(tamsin) == (tamsin, "Watch the Road")
        logs = engine.world.count(QuestLog)
        assert read[0] == logs  # every log, once
        assert sum(read[1:]) == 0
        # A definition replaced (a new title) is read again at once, every log.
        quest = manager.get_quest("wolf-watch")
        assert quest is not None
        manager.registry.replace(quest.model_copy(update={"title": "Guard the Road"}))
        assert claimed(tamsin) == (tamsin, "Guard the Road")
        assert read[-1] == engine.world.count(QuestLog)
        # A generated quest registered, or another's log changing, reads no log
        # but the changed one.
        generated = quest.model_copy(update={"quest_id": "gen-1", "source": "generated"})
        manager.registry.add(generated)
        assert claimed(tamsin) == (tamsin, "Guard the Road")
        assert read[-1] == 0
        manager.offer_quest(other, "wolf-watch")
        await manager.accept_quest(other, "wolf-watch")
        manager.abandon_quest(hero, "wolf-watch")
        assert claimed(tamsin) == (tamsin, "Guard the Road")  # Brenna is on it now
        assert read[-1] == 2  # her new log and his
        assert engine.world.count(QuestLog) == 3  # Cora's was not read
        manager.abandon_quest(other, "wolf-watch")
        assert claimed(tamsin) is None
        assert read[-1] == 1
