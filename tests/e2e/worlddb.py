"""Reading what a (running or dead) server has persisted, straight from its database."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from maid_engine.store import Store


@dataclass
class Persisted:
    """The parts of a stored world the e2e tests look at."""

    game_time: float | None = None
    #: account key -> account document
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: entity id -> {component name -> data}
    entities: dict[UUID, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def characters(self) -> dict[str, UUID]:
        """Player character name -> entity id (raises on a duplicate name)."""
        out: dict[str, UUID] = {}
        for uid, comps in self.entities.items():
            pc = comps.get("PlayerCharacter")
            if pc is None:
                continue
            name = str(pc.get("name", ""))
            if name in out:
                raise AssertionError(f"two stored characters are called {name}")
            out[name] = uid
        return out

    def room_of(self, name: str) -> str | None:
        uid = self.characters().get(name)
        if uid is None:
            return None
        pos = self.entities[uid].get("Position")
        return str(pos["room"]) if pos else None

    def component(self, name: str, component: str) -> dict[str, Any] | None:
        uid = self.characters().get(name)
        return None if uid is None else self.entities[uid].get(component)


async def read_persisted(url: str) -> Persisted:
    """Open the store at ``url`` (migrations are a no-op on an existing database)."""
    store = Store(url)
    await store.open()
    try:
        result = Persisted()
        clock = await store.documents.get("engine_state", "clock")
        if clock is not None:
            result.game_time = float(clock["game_time"])
        try:
            keys = await store.documents.keys("accounts")
        except Exception:
            keys = []
        for key in keys:
            doc = await store.documents.get("accounts", key)
            if doc is not None:
                result.accounts[key] = doc
        result.entities = await store.entities.load_all()
        return result
    finally:
        await store.close()


def sqlite_url(data_dir: Any) -> str:
    """The database URL ``maid run --data-dir DATA_DIR`` uses by default."""
    from pathlib import Path

    return f"sqlite+aiosqlite:///{(Path(data_dir) / 'maid.db').resolve()}"
