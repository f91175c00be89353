"""MemoryService: recency, visibility, tags, persistence across restarts."""

from __future__ import annotations

import copy
from pathlib import Path

from kits.engines import living_of
from living.livingkit import LIVING, hamlet_pack, make_engine, npc

from maid_stdlib.living import EmotionalValence, EpisodicMemory, MemoryVisibility
from maid_stdlib.living import memory as memory_module


async def test_recent_memories_newest_first_with_visibility_and_tags(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        memory = living_of(engine).memory
        smith = npc(engine, "hollin")
        first = memory.add(EpisodicMemory(smith, "A quiet morning.", tags=["daily"]))
        assert first.visibility == MemoryVisibility.PRIVATE  # the default
        assert first.game_time == engine.clock.game_time
        assert first.id is not None
        await engine.run_ticks(1)
        memory.add(
            EpisodicMemory(
                smith,
                "Told the square about the road.",
                visibility=MemoryVisibility.PUBLIC,
                tags=["road"],
            )
        )
        await engine.run_ticks(1)
        # The ``visibility:public`` tag means PUBLIC too.
        memory.add(
            EpisodicMemory(
                smith,
                "Quest done.",
                tags=["quest", "visibility:public"],
                emotional_valence=EmotionalValence.POSITIVE,
            )
        )
        assert [m.content for m in memory.get_recent(smith)] == [
            "Quest done.",
            "Told the square about the road.",
            "A quiet morning.",
        ]
        public = memory.get_recent(smith, visibility_filter=MemoryVisibility.PUBLIC)
        assert [m.content for m in public] == ["Quest done.", "Told the square about the road."]
        private = memory.get_recent(smith, visibility_filter=MemoryVisibility.PRIVATE)
        assert [m.content for m in private] == ["A quiet morning."]
        assert [m.content for m in memory.get_recent(smith, limit=1)] == ["Quest done."]
        assert [m.content for m in memory.get_recent(smith, tags=["road"])] == [
            "Told the square about the road."
        ]
        assert memory.get_recent(npc(engine, "pell")) == []
        assert {m.content for m in memory.with_tag("quest")} == {"Quest done."}


async def test_memories_of_a_destroyed_npc_are_forgotten(tmp_path: Path) -> None:
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        memory = living_of(engine).memory
        trader = npc(engine, "pell")
        memory.add(EpisodicMemory(trader, "Sold a knife."))
        engine.world.destroy_entity(trader)
        await engine.dispatch_events()
        assert memory.get_recent(trader) == []
        assert memory.count(trader) == 0


async def test_memory_cap_forgets_the_least_important(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(memory_module, "MAX_MEMORIES_PER_NPC", 3)
    async with make_engine(tmp_path, [hamlet_pack(tmp_path / "p")]).lifespan() as engine:
        memory = living_of(engine).memory
        smith = npc(engine, "hollin")
        for i, importance in enumerate((0.9, 0.1, 0.8, 0.7)):
            memory.add(EpisodicMemory(smith, f"m{i}", importance=importance))
        assert sorted(m.content for m in memory.get_recent(smith)) == ["m0", "m2", "m3"]


async def test_memories_survive_a_restart(db_url: str, tmp_path: Path) -> None:
    data = copy.deepcopy(LIVING)
    data["npcs"]["hollin"]["memories"] = [
        {
            "content": "The last wagon came three days ago.",
            "visibility": "public",
            "importance": 0.6,
            "age_hours": 72,
            "tags": ["iron"],
        }
    ]
    pack = hamlet_pack(tmp_path / "p", data)
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        memory = living_of(engine).memory
        smith = npc(engine, "hollin")
        seeded = memory.get_recent(smith)
        assert [m.content for m in seeded] == ["The last wagon came three days ago."]
        assert seeded[0].game_time == engine.clock.game_time - 72 * 3600
        await engine.run_ticks(1)
        memory.add(
            EpisodicMemory(
                smith,
                "Queued, written at shutdown.",
                importance=0.7,
                player_id=npc(engine, "pell"),
                location="hamlet:mill",
            )
        )
        await engine.run_ticks(1)
        durable = await memory.store(EpisodicMemory(smith, "Written at once.", tags=["x"]))
        assert memory.pending == 0
        await engine.run_ticks(1)
        memory.add(EpisodicMemory(smith, "Also queued.", visibility=MemoryVisibility.PUBLIC))
        assert memory.pending == 1
        expected = [
            (m.id, m.content, m.visibility, m.game_time, m.player_id, m.location)
            for m in memory.get_recent(smith)
        ]
    async with make_engine(tmp_path, [pack], db_url=db_url).lifespan() as engine:
        memory = living_of(engine).memory
        got = [
            (m.id, m.content, m.visibility, m.game_time, m.player_id, m.location)
            for m in memory.get_recent(npc(engine, "hollin"))
        ]
        assert got == expected
        assert len(got) == 4  # the data memory was seeded once, not again
        assert memory.get(durable.id) is not None  # type: ignore[arg-type]
        assert [
            m.content
            for m in memory.get_recent(
                npc(engine, "hollin"), visibility_filter=MemoryVisibility.PUBLIC
            )
        ] == ["Also queued.", "The last wagon came three days ago."]
