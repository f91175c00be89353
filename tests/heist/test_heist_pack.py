"""The heist pack: its quest arises from real state and is played through commands."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import npc
from kits.heist import HEIST_WALK, character, do_heist, make_engine, ticks, until_quest

from classic_rpg.items.components import HeldBy
from classic_rpg.systems.quests import QuestManager
from content_packs.heist.detector import SIGNAL_TYPE, detect_heist_opportunities
from content_packs.heist.questgen import (
    ARCHETYPE_ID,
    SEED_TYPE,
    STEALTH_OBJECTIVE,
    STEALTH_PATTERN,
    ground_heist,
    load_templates,
)
from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.living import LivingWorld
from maid_stdlib.living.components import NeedsComponent, Relationships
from maid_stdlib.narration.service import NarrationService
from maid_stdlib.questgen import QuestGen
from maid_stdlib.questgen.narrative import TemplateRegistry
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.story import StorySignal, StorySignalEvent
from maid_stdlib.story.detectors import DetectionContext
from maid_stdlib.world import WorldService
from maid_stdlib.world.components import Item

TEMPLATES = load_templates(
    Path(__file__).resolve().parents[2] / "content_packs" / "heist" / "narrative.yaml"
)["heist"]


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    engine = make_engine(tmp_path)
    async with engine.lifespan():
        yield engine


def detect(engine: GameEngine) -> list[str]:
    living = engine.services.get(LivingWorld)
    found = detect_heist_opportunities(DetectionContext(living, engine.clock.game_time))
    return [d.key for d in found]


async def test_the_pack_extends_every_registry(engine: GameEngine) -> None:
    qg = engine.services.get(QuestGen)
    assert qg.seed_types.description(SEED_TYPE) == "A valuable target is poorly guarded"
    assert qg.contracts.get(SIGNAL_TYPE) is not None
    assert qg.objective_builder.has(STEALTH_PATTERN)
    archetype = qg.archetypes.get(ARCHETYPE_ID)
    assert archetype is not None
    assert archetype.objective_pattern == STEALTH_PATTERN
    templates = engine.services.get(TemplateRegistry)
    assert templates.templates(ARCHETYPE_ID, "title") == tuple(TEMPLATES["title"])
    ws = engine.services.get(WorldService)
    assert ws.exits_of("ironvale:market_row")["north"] == "heist:counting_lane"
    assert ws.is_reachable("ironvale:square", "heist:strongroom")
    # The pack's hand-authored quest and its narrated room are loaded too.
    authored = engine.services.get(QuestManager).get_quest("missing-page")
    assert authored is not None
    assert authored.giver_npc_id == npc(engine, "heist:vesk")
    assert "heist:counting_house" in engine.services.get(NarrationService).rooms


async def test_no_opportunity_while_the_guard_sits_in_the_strongroom(engine: GameEngine) -> None:
    ws = engine.services.get(WorldService)
    hobb = npc(engine, "heist:hobb")
    assert ws.room_key_of(hobb) == "heist:strongroom"  # 8:00, the night watch
    assert detect(engine) == []
    ws.move(hobb, "heist:counting_house")
    assert len(detect(engine)) == 1


async def test_no_opportunity_without_a_grudge_or_a_need(engine: GameEngine) -> None:
    ws = engine.services.get(WorldService)
    ws.move(npc(engine, "heist:hobb"), "heist:counting_house")
    tamsin, vesk = npc(engine, "heist:tamsin"), npc(engine, "heist:vesk")
    needs = engine.world.get_component(tamsin, NeedsComponent)
    needs.needs["economic"].value = 0.9
    assert detect(engine) == []
    needs.needs["economic"].value = 0.2
    grudge = engine.world.get_component(tamsin, Relationships).entries[str(vesk)]
    grudge.kind, grudge.trust = "", 0.1
    assert detect(engine) == []


async def test_the_quest_arises_from_real_state(engine: GameEngine) -> None:
    signals: list[StorySignal] = []
    engine.events.subscribe(StorySignalEvent, lambda e: signals.append(e.signal))
    quest_id = await until_quest(engine, ARCHETYPE_ID)
    (signal,) = [s for s in signals if s.signal_type == SIGNAL_TYPE]
    ctx = signal.context
    assert (ctx["npc_name"], ctx["mark_name"], ctx["vault_key"]) == (
        "Tamsin Reed",
        "Orlan Vesk",
        "heist:strongroom",
    )
    assert ctx["guard_names"] == ["Hobb"]
    assert ctx["valuables_template"] == "heist:strongbox"
    assert engine.clock.game_time >= 9 * 3600  # Hobb left the strongroom at nine
    qg = engine.services.get(QuestGen)
    entry = qg.history.get(quest_id)
    assert entry is not None
    assert entry.seed_type == SEED_TYPE
    quest = engine.services.get(QuestManager).get_quest(quest_id)
    assert quest is not None
    assert quest.giver_npc_id == npc(engine, "heist:tamsin")
    kinds = [(o.objective_type.value, o.order) for o in quest.objectives]
    assert kinds == [("visit", 1), ("custom", 2), ("collect", 2), ("deliver", 3)]
    assert quest.objective(STEALTH_OBJECTIVE) is not None
    assert any(
        t.format(ally="Orlan Vesk", location="Vesk's Strongroom") == quest.title
        for t in TEMPLATES["title"]
    ), quest.title


async def test_a_character_plays_it_through_commands(engine: GameEngine) -> None:
    quest_id = await until_quest(engine, ARCHETYPE_ID)
    tamsin = npc(engine, "heist:tamsin")
    economic = engine.world.get_component(tamsin, NeedsComponent).needs["economic"]
    before = economic.value
    hero = character(engine, "Aria")
    out = "\n".join(await do_heist(engine, hero, quest_id))
    assert "Go unseen by Hobb |g- done|n" in out
    assert re.search(r"Quest complete: '.+' \(perfect\)", out)
    manager = engine.services.get(QuestManager)
    assert manager.quest_state(hero, quest_id) is QuestState.TURNED_IN
    (box,) = [u for u, item in engine.world.each(Item) if item.template == "heist:strongbox"]
    assert engine.world.get_component(box, HeldBy).holder == tamsin
    await ticks(engine, 2)
    assert economic.value >= before + 0.4  # the consequences reached Tamsin
    follow_up = await until_quest(engine, "investigation", limit=20)
    entry = engine.services.get(QuestGen).history.get(follow_up)
    assert entry is not None
    assert entry.chain_parent_id == quest_id
    assert entry.quest_giver_id == npc(engine, "heist:vesk")


async def test_taken_under_the_guards_nose_fails_the_quest(engine: GameEngine) -> None:
    quest_id = await until_quest(engine, ARCHETYPE_ID)
    hero = character(engine, "Bold")
    for line in HEIST_WALK:
        await cmd(engine, hero, line)
    await cmd(engine, hero, "talk tamsin")
    assert "You accept" in await cmd(engine, hero, f"accept {quest_id}")
    for line in ("east", "east", "north"):
        await cmd(engine, hero, line)
    # Hobb comes back early.
    engine.services.get(WorldService).move(npc(engine, "heist:hobb"), "heist:strongroom")
    out = await cmd(engine, hero, "get strongbox")
    assert 'Hobb shouts: "Thief! Stop, thief!"' in out
    assert "Quest failed" in out
    assert "seen by Hobb" in out
    manager = engine.services.get(QuestManager)
    assert manager.quest_state(hero, quest_id) is QuestState.FAILED


async def test_the_signal_grounds_only_while_the_strongbox_is_there(engine: GameEngine) -> None:
    ws = engine.services.get(WorldService)
    ws.move(npc(engine, "heist:hobb"), "heist:counting_house")
    living = engine.services.get(LivingWorld)
    (found,) = detect_heist_opportunities(DetectionContext(living, engine.clock.game_time))
    qg = engine.services.get(QuestGen)
    signal = StorySignal(
        found.signal_type, found.importance, found.involved_npcs, context=found.context
    )
    grounding = ground_heist(signal, qg.facts)
    assert grounding is not None
    assert grounding.location == "heist:strongroom"
    assert grounding.fields["item_template"] == "heist:strongbox"
    assert grounding.fields["party_a"] == npc(engine, "heist:vesk")
    hero = character(engine, "Quick")
    ws.move(hero, "heist:strongroom")
    await cmd(engine, hero, "get strongbox")
    assert ground_heist(signal, qg.facts) is None
