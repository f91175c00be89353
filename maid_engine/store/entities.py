"""Persistence of ECS entities as rows of JSON components."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from maid_engine.jsontext import ComponentData, dump_json
from maid_engine.store.connection import ConnectionSource
from maid_engine.store.rows import RowStatement, chunks, json_text
from maid_engine.store.schema import components, entities, upsert_statement

# Keeps IN (...) lists well below the bound-parameter limits of both backends.
_DELETE_CHUNK = 500
# Encoding yields to the loop after this much work: a row counts its JSON text
# plus a fixed cost per call (most rows are small, so the calls dominate). About
# half a millisecond of encoding at a normal machine speed.
ENCODE_SLICE = 32 * 1024
_ROW_COST = 500
# A row already encoded (a checkpoint stages its rows as JSON text) is only
# passed on: about a twelfth of an encoding call. A busy checkpoint hands over
# thousands of them, a millisecond and more in one go if they did not count.
_KEPT_COST = 40


async def encode_upserts(
    upserts: Mapping[UUID, Mapping[str, ComponentData]], slice_cost: int = ENCODE_SLICE
) -> dict[UUID, dict[str, ComponentData]]:
    """``upserts`` with every component's data turned into JSON text (UTF-8
    bytes), a slice at a time: between slices other tasks run.

    Encoding a checkpoint's rows in one go (as the database driver's JSON type
    would, when the rows are bound) held the event loop for as long as it took --
    tens of milliseconds for a busy world's checkpoint, seconds for the first one of
    a big world -- while commands waited. Raises ``ValueError`` (NaN, infinity) or
    ``TypeError`` (not JSON) for bad data, before anything is written.
    """
    out: dict[UUID, dict[str, ComponentData]] = {}
    spent = 0
    for entity_id, comps in upserts.items():
        encoded: dict[str, ComponentData] = {}
        for type_name, data in comps.items():
            if isinstance(data, bytes):
                encoded[type_name] = data
                spent += _KEPT_COST
            else:
                text = dump_json(data).encode()
                encoded[type_name] = text
                spent += len(text) + _ROW_COST
            if spent >= slice_cost:
                spent = 0
                await asyncio.sleep(0)
        out[entity_id] = encoded
    return out


@dataclass
class EntityChangeSet:
    """What changed since the last save; produced by the ECS, applied by save().

    Applied in this order, so a later category wins over an earlier one for the
    same target: upserts, then removed, then destroyed.
    """

    # entity -> {component type name -> JSON data}, only the components that changed.
    # An entity with an empty dict is still created (it may have no components yet).
    # The data may be JSON text already, as UTF-8 bytes (``encode_upserts``).
    upserts: dict[UUID, dict[str, ComponentData]] = field(default_factory=dict)
    # Components removed from entities that still exist.
    removed: list[tuple[UUID, str]] = field(default_factory=list)
    # Entities gone entirely, with all their components.
    destroyed: list[UUID] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.upserts or self.removed or self.destroyed)


def _check(changes: EntityChangeSet) -> None:
    """Fail on malformed input before touching the database."""
    for entity_id, comps in changes.upserts.items():
        if not isinstance(entity_id, UUID):
            raise TypeError(f"entity ids must be UUIDs, not {entity_id!r}")
        for type_name, data in comps.items():
            if not isinstance(type_name, str) or not type_name:
                raise ValueError(f"component type must be a non-empty string: {type_name!r}")
            if not isinstance(data, (dict, bytes)):
                raise TypeError(
                    f"component {type_name!r} of {entity_id} must be a dict or JSON bytes, "
                    f"not {type(data).__name__}"
                )
    for entity_id, type_name in changes.removed:
        if not isinstance(entity_id, UUID) or not isinstance(type_name, str):
            raise TypeError(f"removed entries must be (UUID, str), not {(entity_id, type_name)!r}")
    for entity_id in changes.destroyed:
        if not isinstance(entity_id, UUID):
            raise TypeError(f"entity ids must be UUIDs, not {entity_id!r}")


class EntityStore:
    """Entities and their components, saved in batches and loaded back whole."""

    def __init__(self, connections: ConnectionSource) -> None:
        self._connections = connections

    async def save(self, changes: EntityChangeSet) -> None:
        """Apply ``changes`` in one transaction (all or nothing).

        Rows go to the database as executemany batches, not one statement per row.
        """
        _check(changes)
        if changes.is_empty():
            return
        async with self._connections.writing() as conn:
            await self._apply(conn, changes)

    async def load_all(self) -> dict[UUID, dict[str, dict[str, Any]]]:
        """Every stored entity with all its components."""
        async with self._connections.reading() as conn:
            result = await conn.execute(self._select())
            loaded: dict[UUID, dict[str, dict[str, Any]]] = {}
            for entity_id, type_name, data in result:
                comps = loaded.setdefault(UUID(entity_id), {})
                if type_name is not None:
                    comps[type_name] = data
        return loaded

    async def load(self, entity_id: UUID) -> dict[str, dict[str, Any]] | None:
        """One entity's components, or None if the entity is not stored."""
        async with self._connections.reading() as conn:
            result = await conn.execute(self._select().where(entities.c.id == str(entity_id)))
            rows = result.all()
        if not rows:
            return None
        return {type_name: data for _, type_name, data in rows if type_name is not None}

    @staticmethod
    def _select() -> sa.Select[tuple[str, str | None, Any]]:
        # Outer join so entities without components load too.
        return sa.select(entities.c.id, components.c.type, components.c.data).select_from(
            entities.outerjoin(components, components.c.entity_id == entities.c.id)
        )

    @staticmethod
    async def _apply(conn: AsyncConnection, changes: EntityChangeSet) -> None:
        if changes.upserts:
            await _NEW_ENTITY.run(conn, ((str(e),) for e in changes.upserts))
            await _COMPONENT_UPSERT.run(conn, _component_rows(changes.upserts))
        if changes.removed:
            await _COMPONENT_DELETE.run(conn, ((str(e), t) for e, t in set(changes.removed)))
        if changes.destroyed:
            ids = sorted({str(e) for e in changes.destroyed})
            for chunk in chunks(ids, _DELETE_CHUNK):
                # ON DELETE CASCADE would do on its own; deleting components
                # explicitly keeps this correct even where foreign keys are off.
                await conn.execute(sa.delete(components).where(components.c.entity_id.in_(chunk)))
                await conn.execute(sa.delete(entities).where(entities.c.id.in_(chunk)))


def _component_rows(
    upserts: Mapping[UUID, Mapping[str, ComponentData]],
) -> Iterator[tuple[str, str, str]]:
    """(entity, type, JSON text) for each component, made as they are bound."""
    for entity_id, comps in upserts.items():
        entity = str(entity_id)
        for type_name, data in comps.items():
            yield entity, type_name, data.decode() if isinstance(data, bytes) else dump_json(data)


def _new_entity(dialect: str) -> Any:
    insert = upsert_statement(dialect, entities).values(id=sa.bindparam("b_id"))
    return insert.on_conflict_do_nothing(index_elements=[entities.c.id])


def _component_upsert(dialect: str) -> Any:
    """Insert or replace a component row whose data is bound as JSON text."""
    insert = upsert_statement(dialect, components).values(
        entity_id=sa.bindparam("b_entity"), type=sa.bindparam("b_type"), data=json_text(dialect)
    )
    return insert.on_conflict_do_update(
        index_elements=[components.c.entity_id, components.c.type],
        # A literal: a bound 1 would be one more parameter in every row.
        set_={
            "data": insert.excluded.data,
            "version": components.c.version + sa.literal_column("1"),
        },
    )


def _component_delete(_dialect: str) -> Any:
    return sa.delete(components).where(
        components.c.entity_id == sa.bindparam("b_entity"),
        components.c.type == sa.bindparam("b_type"),
    )


_NEW_ENTITY = RowStatement(_new_entity, ("b_id",))
_COMPONENT_UPSERT = RowStatement(_component_upsert, ("b_entity", "b_type", "b_data"))
_COMPONENT_DELETE = RowStatement(_component_delete, ("b_entity", "b_type"))
