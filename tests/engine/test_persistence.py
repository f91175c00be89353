"""Checkpoint + restart on both backends: same UUIDs, same components, game time kept."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_engine.store import EntityChangeSet


@dataclass
class Wallet(Component):
    gold: int = 0
    history: list[int] = field(default_factory=list)


@dataclass
class Tag(Component):
    name_field = "name"
    name: str = ""


@dataclass
class Ephemeral(Component):
    persist = False
    n: int = 0


def make(db_url: str, tmp_path: Path) -> GameEngine:
    return GameEngine(
        Settings(data_dir=tmp_path, database_url=db_url), clock=ManualClock(), packs=[]
    )


async def test_checkpoint_and_restart_restore_entities(db_url: str, tmp_path: Path) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        rich = engine.world.create_entity(Wallet(10, [1]), Tag("Hollin"), Ephemeral(3))
        poor = engine.world.create_entity(Wallet(1))
        doomed = engine.world.create_entity(Tag("Grey"))
        temp = engine.world.create_entity(Wallet(99), persistent=False)
        await engine.checkpoint()
        # Changes after the checkpoint: field set, in-place change, removal, destroy.
        engine.world.get_component(poor, Wallet).gold = 5
        w = engine.world.get_component(rich, Wallet)
        w.history.append(2)
        engine.world.modified(rich, w)
        engine.world.remove_component(rich, Tag)
        engine.world.destroy_entity(doomed)
        await engine.dispatch_events()
        await engine.run_ticks(30)
        game_time = engine.clock.game_time
    # lifespan exit wrote the final checkpoint
    async with make(db_url, tmp_path).lifespan() as engine2:
        w2 = engine2.world.get_component(rich, Wallet)
        assert (w2.gold, w2.history) == (10, [1, 2])
        assert engine2.world.try_component(rich, Tag) is None
        assert engine2.world.try_component(rich, Ephemeral) is None
        assert engine2.world.get_component(poor, Wallet).gold == 5
        assert not engine2.world.entity_exists(doomed)
        assert not engine2.world.entity_exists(temp)
        assert engine2.world.find_by_name("grey") == []
        assert engine2.clock.game_time == game_time
        # Nothing changed since load: the next checkpoint writes no entity.
        assert await engine2.checkpoint() == 0


async def test_a_restored_seeded_world_does_not_reuse_the_seeds_ids(
    db_url: str, tmp_path: Path
) -> None:
    """The seeded id sequence was used by the run that stored the world: after a
    restart a new entity must not take the id of one that was stored or destroyed."""

    def seeded() -> GameEngine:
        settings = Settings(data_dir=tmp_path, database_url=db_url, random_seed=3)
        return GameEngine(settings, clock=ManualClock(), packs=[])

    async with seeded().lifespan() as engine:
        kept = engine.world.create_entity(Wallet(1))
        gone = engine.world.create_entity(Wallet(2))
        engine.world.destroy_entity(gone)
        await engine.dispatch_events()
    async with seeded().lifespan() as engine2:
        assert engine2.world.entity_exists(kept)
        new = [engine2.world.create_entity(Wallet(3)) for _ in range(3)]
        assert {kept, gone}.isdisjoint(new)


async def test_only_changed_entities_are_written(db_url: str, tmp_path: Path) -> None:
    async with make(db_url, tmp_path).lifespan() as engine:
        ids = [engine.world.create_entity(Wallet(i)) for i in range(50)]
        assert await engine.checkpoint() == 50
        assert await engine.checkpoint() == 0
        engine.world.get_component(ids[7], Wallet).gold += 1
        assert await engine.checkpoint() == 1


async def test_only_changed_components_are_written(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maid_engine.store.entities import EntityStore

    saved: list[dict[UUID, dict[str, Any]]] = []
    real_save = EntityStore.save

    async def spy(self: EntityStore, changes: EntityChangeSet) -> None:
        # A checkpoint's rows come encoded already.
        saved.append(
            {
                uid: {
                    name: json.loads(data) if isinstance(data, bytes) else data
                    for name, data in comps.items()
                }
                for uid, comps in changes.upserts.items()
            }
        )
        await real_save(self, changes)

    monkeypatch.setattr(EntityStore, "save", spy)
    async with make(db_url, tmp_path).lifespan() as engine:
        uid = engine.world.create_entity(Wallet(1, [1]), Tag("Hollin"))
        await engine.checkpoint()
        assert set(saved[-1][uid]) == {"Wallet", "Tag"}
        engine.world.get_component(uid, Wallet).gold = 7
        await engine.checkpoint()
        assert saved[-1] == {uid: {"Wallet": {"gold": 7, "history": [1]}}}
        tag = engine.world.get_component(uid, Tag)
        engine.world.modified(uid, tag)
        await engine.checkpoint()
        assert set(saved[-1][uid]) == {"Tag"}
    async with make(db_url, tmp_path).lifespan() as engine2:
        assert engine2.world.get_component(uid, Wallet).gold == 7
        assert engine2.world.get_component(uid, Tag).name == "Hollin"


async def test_final_checkpoint_retries_then_reports_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maid_engine import engine as engine_module
    from maid_engine.store import StoreUnavailable

    monkeypatch.setattr(engine_module, "FINAL_CHECKPOINT_FIRST_DELAY", 0.0)
    url = f"sqlite+aiosqlite:///{tmp_path / 'maid.db'}"
    engine = make(url, tmp_path)
    await engine.start()
    engine.world.create_entity(Wallet(1))
    calls = 0
    real_atomic = engine.store.atomic

    def flaky_atomic() -> object:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise StoreUnavailable("database went away")
        return real_atomic()

    monkeypatch.setattr(engine.store, "atomic", flaky_atomic)
    await engine.stop()
    assert calls == 3
    assert not engine.final_checkpoint_failed

    engine = make(url, tmp_path)
    await engine.start()
    engine.world.create_entity(Wallet(2))

    def down() -> object:
        raise StoreUnavailable("database went away")

    monkeypatch.setattr(engine.store, "atomic", down)
    await engine.stop()
    assert engine.final_checkpoint_failed
