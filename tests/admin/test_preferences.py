"""The player's ``questgen on|less|off`` preference: stored, persisted, honoured."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

from kits.heist import HEIST_WALK, character, make_engine, ticks, until_quest

from classic_rpg.systems.quests.questlog import QuestLog
from maid_engine.testing import cmd
from maid_stdlib.questgen.personalization import PlayProfile, QuestPreference
from maid_stdlib.questgen.preferences import (
    LESS_MAX_PENDING,
    OfferPolicy,
    QuestGenMode,
    QuestGenPreference,
    offer_policy,
    questgen_mode,
)
from maid_stdlib.questgen.vocabulary import QuestState


def test_policy_of_each_mode() -> None:
    on, less, off = (OfferPolicy(m) for m in QuestGenMode)
    assert on.offers
    assert on.scale(0.8) == 0.8
    assert on.max_pending(2) == 2
    assert less.offers
    assert less.scale(0.8) == 0.4
    assert less.max_pending(2) == LESS_MAX_PENDING
    assert less.max_pending(0) == 0  # never above the system's own cap
    assert not off.offers
    assert off.scale(0.8) == 0.0
    assert off.max_pending(2) == 0


async def test_the_command_sets_and_shows_the_mode(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        hero = character(engine, "Ines")
        assert "Generated quests: |won|n" in await cmd(engine, hero, "questgen")
        assert questgen_mode(engine.world, hero) is QuestGenMode.ON
        out = await cmd(engine, hero, "questgen less")
        assert "Generated quests are now |wless|n" in out
        pref = engine.world.get_component(hero, QuestGenPreference)
        assert pref.mode == "less"
        assert pref.changed_at == engine.clock.game_time

        # The personalization layer's delivery reads its own field: kept in step.
        def preference() -> QuestPreference:
            return engine.world.get_component(hero, PlayProfile).preference

        assert preference() is QuestPreference.FEWER
        await cmd(engine, hero, "questgen off")
        assert offer_policy(engine.world, hero).offers is False
        assert preference() is QuestPreference.OFF
        await cmd(engine, hero, "questgen normal")  # the other layer's word for "on"
        assert questgen_mode(engine.world, hero) is QuestGenMode.ON
        assert preference() is QuestPreference.NORMAL
        assert "Usage: questgen on||less||off" in await cmd(engine, hero, "questgen never")


async def test_the_preference_survives_a_restart(tmp_path: Path) -> None:
    engine = make_engine(tmp_path)
    async with engine.lifespan():
        hero = character(engine, "Ines")
        await engine.save_entities_now(hero)
        await cmd(engine, hero, "questgen off")
    again = make_engine(tmp_path)
    async with again.lifespan():
        assert again.world.entity_exists(hero)
        assert questgen_mode(again.world, hero) is QuestGenMode.OFF


async def test_off_means_no_generated_offers(tmp_path: Path) -> None:
    """Two characters walk up to Tamsin when her heist has been generated: the one
    who opted out is not approached, the other is."""
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        heist = await until_quest(engine, "heist")
        keen, shy = character(engine, "Keen"), character(engine, "Shy")
        await cmd(engine, shy, "questgen off")
        for hero in (keen, shy):
            for line in HEIST_WALK:
                await cmd(engine, hero, line)
        await ticks(engine, 2)

        def state(hero: UUID) -> QuestState | None:
            qlog = engine.world.try_component(hero, QuestLog)
            entry = qlog.entry(heist) if qlog is not None else None
            return entry.state if entry is not None else None

        assert state(keen) is QuestState.AVAILABLE
        assert state(shy) is None
