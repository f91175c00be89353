"""Validation of the RPG data sections (problems read "file: entry: message")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from rpg.rpgkit import rpg_pack

from classic_rpg.characters.components import Dialogue
from classic_rpg.combat.components import CombatProfile, CombatRules, LootTable, SpawnPoint
from classic_rpg.components import Attributes, CharacterStats, Health
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import PackError
from maid_engine.engine import GameEngine
from maid_stdlib.pack import StdlibContentPack
from maid_stdlib.world import NPC, WorldDataPack


def data_pack(tmp_path: Path, npcs: list[dict[str, Any]], items: list[dict[str, Any]]) -> Any:
    root = tmp_path / "datapack"
    (root / "areas").mkdir(parents=True)
    area = {
        "area": {"key": "a", "name": "A", "region": "r"},
        "rooms": [{"key": "room", "name": "Room", "description": "A room."}],
        "npcs": npcs,
        "items": items,
    }
    (root / "areas" / "a.yaml").write_text(yaml.safe_dump(area))

    class DataPack(WorldDataPack):
        name = "dp"
        # WorldDataPack's un-annotated default narrows the type to tuple[str] (drop the
        # ignore once maid_stdlib/world/datapack.py annotates it as ClassVar[tuple[str, ...]]).
        requires = ("stdlib", "classic_rpg")

        @property
        def path(self) -> Path:
            return root

    return DataPack()


def engine_for(tmp_path: Path, pack: Any) -> GameEngine:
    return GameEngine(
        Settings(data_dir=tmp_path, random_seed=3),
        clock=ManualClock(),
        packs=[StdlibContentPack(), rpg_pack(), pack],
        use_store=False,
    )


def npc(**extra: Any) -> dict[str, Any]:
    return {"key": "orc", "name": "an orc", "keywords": ["orc"], "room": "room", **extra}


async def test_problems_are_reported_with_file_and_entry(tmp_path: Path) -> None:
    pack = data_pack(
        tmp_path,
        [
            npc(stats={"level": 0, "damage": [5, 2]}, loot=[{"item": "nope", "chance": 2}]),
            npc(key="ghost", combat={"hostile": True}),
            npc(key="imp", loot=[{"item": "gem", "count": [3, 1]}], dialogue={"greeting": ""}),
        ],
        [
            {"key": "gem", "name": "a gem", "keywords": ["gem"], "stats": {"tier": 9}},
            {
                "key": "axe",
                "name": "an axe",
                "keywords": ["axe"],
                "stats": {"damage": [1, 4], "slot": "body", "colour": "red"},
            },
        ],
    )
    engine = engine_for(tmp_path, pack)
    try:
        await engine.start()
    except PackError as exc:
        text = str(exc)
    else:  # pragma: no cover
        await engine.stop()
        raise AssertionError("the data should have been rejected")
    assert "npc 'orc': stats.level: Input should be greater than or equal to 1" in text
    assert "npc 'orc': loot.0.chance: Input should be less than or equal to 1" in text
    assert "npc 'ghost': combat: hostile or respawning NPCs need a stats: section" in text
    assert "npc 'imp': dialogue.greeting: the greeting needs text" in text
    assert "item 'gem': stats.tier: Input should be less than or equal to 5" in text
    assert "item 'axe': stats.colour: unknown key" in text
    await engine.stop()


async def test_cross_checks(tmp_path: Path) -> None:
    pack = data_pack(
        tmp_path,
        [npc(stats={"damage": [5, 2]}, loot=[{"item": "nope"}, {"item": "gem", "count": [3, 1]}])],
        [
            {
                "key": "gem",
                "name": "a gem",
                "keywords": ["gem"],
                "stats": {"damage": [1, 4], "slot": "body"},
            }
        ],
    )
    ctx = _ctx(tmp_path, pack)
    problems = "\n".join(pack.validate_data(ctx))
    assert "npc 'orc': stats: damage [5, 2] must be [min, max]" in problems
    assert "npc 'orc': loot: [0].item: unknown item template 'dp:nope'" in problems
    assert "npc 'orc': loot: [1].count must be a number or [min, max]" in problems
    assert "item 'gem': stats: damage needs slot: weapon" in problems


def test_a_bounty_names_items_of_the_pack_once_each(tmp_path: Path) -> None:
    bounty = [{"item": "nope", "pays": 2}, {"item": "gem", "pays": 1}, {"item": "gem", "pays": 3}]
    pack = data_pack(
        tmp_path,
        [npc(bounty=bounty)],
        [{"key": "gem", "name": "a gem", "keywords": ["gem"]}],
    )
    problems = "\n".join(pack.validate_data(_ctx(tmp_path, pack)))
    assert "npc 'orc': bounty: [0].item: unknown item template 'dp:nope'" in problems
    assert "npc 'orc': bounty: [2].item: 'dp:gem' is paid for twice" in problems
    assert "[1].item" not in problems


def test_an_owner_is_one_placed_npc_of_the_pack(tmp_path: Path) -> None:
    def thing(key: str, owner: str) -> dict[str, Any]:
        return {"key": key, "name": key, "keywords": [key], "room": "room", "owner": owner}

    pack = data_pack(
        tmp_path,
        [npc(), npc(key="rat", count=3), npc(key="tmpl", room=None)],
        [
            thing("cup", "orc"),
            thing("jug", "nobody"),
            thing("pot", "rat"),
            thing("pan", "tmpl"),
            thing("mug", "other:orc"),
            {"key": "kit", "name": "kit", "keywords": ["kit"], "owner": "orc"},
        ],
    )
    problems = "\n".join(pack.validate_data(_ctx(tmp_path, pack)))
    assert "item 'cup'" not in problems
    assert "item 'jug': owner: unknown NPC 'dp:nobody' (an owner is an NPC of this pack)" in (
        problems
    )
    assert "item 'pot': owner: NPC 'dp:rat' is not one placed NPC" in problems
    assert "item 'pan': owner: NPC 'dp:tmpl' is not one placed NPC" in problems
    assert "item 'mug': owner: unknown NPC 'other:orc'" in problems
    assert "item 'kit': owner: an owner needs the item placed in a room" in problems


def _ctx(tmp_path: Path, pack: Any) -> Any:
    from maid_engine.content import PackContext, collect_packs, register_packs

    engine = engine_for(tmp_path, pack)
    engine.packs = collect_packs([StdlibContentPack(), rpg_pack(), pack])
    register_packs(engine, engine.packs)
    return PackContext(engine, pack)


async def test_sections_become_components_with_defaults(tmp_path: Path) -> None:
    pack = data_pack(
        tmp_path,
        [
            npc(
                stats={"level": 3, "gold": [2, 9], "attributes": {"strength": 15}},
                combat={"respawn": 30},
                loot=[{"item": "gem", "chance": 0.5, "count": [1, 2]}],
                dialogue={"greeting": "Grr.", "topics": {"Gold  Coins": "Mine!"}},
            )
        ],
        [{"key": "gem", "name": "a gem", "keywords": ["gem"], "stats": {"value": 50}}],
    )
    async with engine_for(tmp_path, pack).lifespan() as engine:
        [orc] = [uid for uid, n in engine.world.each(NPC) if n.template == "dp:orc"]
        world = engine.world
        health = world.get_component(orc, Health)
        assert health.current == health.maximum == 10 + 8 * 3
        stats = world.get_component(orc, CharacterStats)
        assert stats.level == 3
        assert 2 <= stats.gold <= 9
        assert world.get_component(orc, Attributes).strength == 15
        profile = world.get_component(orc, CombatProfile)
        assert (profile.damage_min, profile.damage_max, profile.xp_value) == (2, 6, 60)
        assert world.get_component(orc, CombatRules).respawn == 30
        assert world.get_component(orc, SpawnPoint).room == "dp:room"
        [entry] = world.get_component(orc, LootTable).entries
        assert (entry.item, entry.chance, entry.min_count, entry.max_count) == ("dp:gem", 0.5, 1, 2)
        assert world.get_component(orc, Dialogue).topics == {"gold coins": "Mine!"}


def test_a_dialogue_condition_names_a_room_the_pack_has(tmp_path: Path) -> None:
    # A mistyped room would leave "not:threat_in:glad" holding for ever.
    line = {"text": "The glade is quiet.", "when": ["not:threat_in:glad"]}
    topic = [{"text": "At the inn.", "when": ["at:room"]}, {"text": "Out."}]
    pack = data_pack(tmp_path, [npc(dialogue={"greeting": [line], "topics": {"where": topic}})], [])
    problems = "\n".join(pack.validate_data(_ctx(tmp_path, pack)))
    assert (
        "npc 'orc': dialogue: greeting: unknown room 'dp:glad' in 'not:threat_in:glad'" in problems
    )
    assert "topic 'where'" not in problems
