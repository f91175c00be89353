"""The ECS world: the only place in MAID that touches esper.

esper 3 keeps its state in module globals switched by name, so every World owns a
uniquely named esper context and switches to it before each call. Entities are
addressed by stable UUIDs everywhere outside this module; esper's integer ids are
an implementation detail.

Reads do not go through esper: the World keeps its own index, component type ->
{entity UUID: component}, updated on every add, remove and destroy. esper drops
*every* query cache on any structural change and rebuilds a query by walking the
type's entity set, so in a big world where something is created, destroyed or
gains a component on most ticks, each ``each(NPC)`` cost 7-14 ms at 10,000
entities; from the index it is ~1 ms, and ``try_component`` is two dict lookups
instead of a context check and an esper call.

Queries iterate in esper's order (its per-type sets of entity ids), which the
World mirrors set for set, operation for operation: iteration order is part of
what a seeded simulation reproduces, so reading from the index must not change
which NPC acts first.
"""

from __future__ import annotations

import itertools
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar, overload
from uuid import UUID

import esper

from maid_engine.ecs.component import Component

C = TypeVar("C", bound=Component)
C2 = TypeVar("C2", bound=Component)
C3 = TypeVar("C3", bound=Component)

_world_ids = itertools.count(1)


class EntityNotFound(KeyError):
    """Raised when an operation names an entity that does not exist."""

    def __init__(self, entity_id: UUID) -> None:
        super().__init__(f"entity {entity_id} does not exist")
        self.entity_id = entity_id


class ComponentNotFound(KeyError):
    def __init__(self, entity_id: UUID, ctype: type[Component]) -> None:
        super().__init__(f"entity {entity_id} has no {ctype.__name__}")
        self.entity_id = entity_id
        self.component_type = ctype


class World:
    """Entities, their components, a name index, and dirty tracking for persistence."""

    def __init__(self) -> None:
        self._context = f"maid-world-{next(_world_ids)}-{uuid.uuid4().hex[:8]}"
        esper.switch_world(self._context)
        self._uuid_to_eid: dict[UUID, int] = {}
        self._eid_to_uuid: dict[int, UUID] = {}
        # Ordered (destroyed in scheduling order) and O(1) to test.
        self._pending_destroy: dict[UUID, None] = {}
        #: component type -> {entity: component}: the read index (module docstring).
        self._by_type: dict[type[Component], dict[UUID, Component]] = {}
        #: component type -> esper ids, a mirror of esper's own set (same adds,
        #: discards and deletions in the same order): the order of queries.
        self._order: dict[type[Component], set[int]] = {}
        #: component type -> {esper id: (entity, component)}: ``each`` rows, built
        #: once per add instead of once per query.
        self._rows: dict[type[Component], dict[int, tuple[UUID, Component]]] = {}
        #: component type -> a counter bumped when which entities have one (or
        #: which component object they have) changes: see ``version_of``.
        self._versions: dict[type[Component], int] = {}
        self._names: dict[str, set[UUID]] = defaultdict(set)
        self._persistent: set[UUID] = set()
        self._dirty: set[UUID] = set()
        self._removed: list[tuple[UUID, str]] = []
        #: component type -> callbacks ``(entity, component)`` run after a component
        #: of that type is added (or replaced): systems that keep their own index of
        #: the entities needing work (RegenSystem's wounded set) learn of new ones.
        self.added_hooks: dict[type[Component], list[Callable[[UUID, Any], None]]] = {}
        self._destroyed: list[UUID] = []
        self._closed = False
        #: Component types whose addition or removal ``listing_version`` tracks
        #: (registered by caches that depend on which entities have them).
        self.listing_types: set[type[Component]] = set()
        #: Bumped when a component of a ``listing_types`` type is added or removed and
        #: when an entity is scheduled for destruction.
        self.listing_version = 0

    # -- context ---------------------------------------------------------------
    def _use(self) -> None:
        if esper.current_world != self._context:
            esper.switch_world(self._context)

    def close(self) -> None:
        """Drop the esper context. The World is unusable afterwards."""
        if self._closed:
            return
        self._closed = True
        if esper.current_world == self._context:
            esper.switch_world("default")
        esper.delete_world(self._context)

    # -- entities --------------------------------------------------------------
    def create_entity(
        self,
        *components: Component,
        entity_id: UUID | None = None,
        persistent: bool = True,
    ) -> UUID:
        """Create an entity and return its UUID.

        ``persistent=False`` keeps it out of checkpoints (e.g. temporary effects).
        """
        uid = entity_id or uuid.uuid4()
        if uid in self._uuid_to_eid:
            raise ValueError(f"entity {uid} already exists")
        self._use()
        eid = esper.create_entity()
        self._uuid_to_eid[uid] = eid
        self._eid_to_uuid[eid] = uid
        if persistent:
            self._persistent.add(uid)
            self._dirty.add(uid)
        for component in components:
            self.add_component(uid, component)
        return uid

    def destroy_entity(self, entity_id: UUID) -> None:
        """Schedule destruction at the next safe point (between systems).

        Until then the entity is reported as not existing, but its components can
        still be read, so an iteration in progress is not disturbed.
        """
        if entity_id in self._uuid_to_eid and entity_id not in self._pending_destroy:
            self._pending_destroy[entity_id] = None
            self.listing_version += 1
            # It leaves every query at once: caches keyed on versions must see it.
            self._use()
            held: tuple[Component, ...] = esper.components_for_entity(self._uuid_to_eid[entity_id])
            for component in held:
                self.changed(type(component))

    def flush_destroyed(self) -> list[UUID]:
        """Destroy everything scheduled. Called by the engine between systems."""
        if not self._pending_destroy:
            return []
        self._use()
        done = list(self._pending_destroy)
        self._pending_destroy = {}
        by_type = self._by_type
        for uid in done:
            eid = self._uuid_to_eid.pop(uid, None)
            if eid is None:
                continue
            del self._eid_to_uuid[eid]
            components: tuple[Component, ...] = esper.components_for_entity(eid)
            for component in components:
                self._unindex(uid, component)
                index = by_type.get(type(component))
                if index is not None:
                    index.pop(uid, None)
                self._unorder(eid, type(component))
                component._owner = None
            if esper.entity_exists(eid):
                esper.delete_entity(eid, immediate=True)
            if uid in self._persistent:
                self._persistent.discard(uid)
                self._dirty.discard(uid)
                self._destroyed.append(uid)
        return done

    def entity_exists(self, entity_id: UUID) -> bool:
        return entity_id in self._uuid_to_eid and entity_id not in self._pending_destroy

    def is_persistent(self, entity_id: UUID) -> bool:
        return entity_id in self._persistent

    def entities(self) -> list[UUID]:
        return [u for u in self._uuid_to_eid if u not in self._pending_destroy]

    @property
    def entity_count(self) -> int:
        return len(self._uuid_to_eid) - len(self._pending_destroy)

    def _eid(self, entity_id: UUID) -> int:
        eid = self._uuid_to_eid.get(entity_id)
        if eid is None:
            raise EntityNotFound(entity_id)
        return eid

    # -- components ------------------------------------------------------------
    def add_component(self, entity_id: UUID, component: Component) -> None:
        eid = self._eid(entity_id)
        self._use()
        old = esper.try_component(eid, type(component))
        if old is not None:
            self._unindex(entity_id, old)
            old._owner = None
        esper.add_component(eid, component)
        ctype = type(component)
        index = self._by_type.get(ctype)
        if index is None:
            index = self._by_type[ctype] = {}
        index[entity_id] = component
        order = self._order.get(ctype)
        if order is None:
            order = self._order[ctype] = set()
            self._rows[ctype] = {}
        order.add(eid)
        self._rows[ctype][eid] = (entity_id, component)
        self.changed(ctype)
        if type(component) in self.listing_types:
            self.listing_version += 1
        if entity_id in self._persistent:
            component._owner = self._dirty_marker(entity_id)
            self._dirty.add(entity_id)
        self._index(entity_id, component)
        for hook in self.added_hooks.get(type(component), ()):
            hook(entity_id, component)

    def remove_component(self, entity_id: UUID, ctype: type[C]) -> C | None:
        eid = self._eid(entity_id)
        self._use()
        if not esper.has_component(eid, ctype):
            return None
        component = esper.remove_component(eid, ctype)
        assert isinstance(component, ctype)
        self._by_type[ctype].pop(entity_id, None)
        self._unorder(eid, ctype)
        self.changed(ctype)
        if ctype in self.listing_types:
            self.listing_version += 1
        self._unindex(entity_id, component)
        component._owner = None
        if entity_id in self._persistent and ctype.persist:
            self._removed.append((entity_id, ctype.component_name))
        return component

    def get_component(self, entity_id: UUID, ctype: type[C]) -> C:
        """The component, or ``ComponentNotFound``/``EntityNotFound``."""
        index = self._by_type.get(ctype)
        component = index.get(entity_id) if index is not None else None
        if component is None:
            if entity_id not in self._uuid_to_eid:
                raise EntityNotFound(entity_id)
            raise ComponentNotFound(entity_id, ctype)
        return component  # type: ignore[return-value]

    def try_component(self, entity_id: UUID, ctype: type[C]) -> C | None:
        index = self._by_type.get(ctype)
        return index.get(entity_id) if index is not None else None  # type: ignore[return-value]

    def has_component(self, entity_id: UUID, ctype: type[Component]) -> bool:
        index = self._by_type.get(ctype)
        return index is not None and entity_id in index

    def components_of(self, entity_id: UUID) -> tuple[Component, ...]:
        eid = self._eid(entity_id)
        self._use()
        return tuple(esper.components_for_entity(eid))

    # -- queries ---------------------------------------------------------------
    @overload
    def query(self, c1: type[C], /) -> Iterator[tuple[UUID, tuple[C]]]: ...
    @overload
    def query(self, c1: type[C], c2: type[C2], /) -> Iterator[tuple[UUID, tuple[C, C2]]]: ...
    @overload
    def query(
        self, c1: type[C], c2: type[C2], c3: type[C3], /
    ) -> Iterator[tuple[UUID, tuple[C, C2, C3]]]: ...
    @overload
    def query(self, *ctypes: type[Component]) -> Iterator[tuple[UUID, tuple[Any, ...]]]: ...

    def query(self, *ctypes: type[Component]) -> Iterator[tuple[UUID, tuple[Any, ...]]]:
        """Entities having all of ``ctypes``, skipping those scheduled for destruction.

        The result is materialised first, so the caller may create, destroy or
        change components while iterating.
        """
        if not ctypes:
            return iter(())
        by_type, order = self._by_type, self._order
        indexes = [by_type.get(t) for t in ctypes]
        sets = [order.get(t) for t in ctypes]
        if any(not ix for ix in indexes):
            return iter(())
        # Walk the smallest set (the first of equals, as esper does); look the
        # others up.
        lead = min(sets, key=len)  # type: ignore[arg-type]
        e2u, pending = self._eid_to_uuid, self._pending_destroy
        out = []
        for eid in lead:  # type: ignore[union-attr]
            uid = e2u[eid]
            if uid in pending:
                continue
            row = []
            for ix in indexes:
                comp = ix.get(uid)  # type: ignore[union-attr]
                if comp is None:
                    break
                row.append(comp)
            else:
                out.append((uid, tuple(row)))
        return iter(out)

    def each(self, ctype: type[C]) -> Iterator[tuple[UUID, C]]:
        """Single-component query (the common case), materialised like ``query``."""
        order = self._order.get(ctype)
        if not order:
            return iter(())
        rows = list(map(self._rows[ctype].__getitem__, order))
        pending = self._pending_destroy
        if pending:
            rows = [row for row in rows if row[0] not in pending]
        return iter(rows)  # type: ignore[arg-type]

    def each_in(self, ctype: type[C], entities: Iterable[UUID]) -> Iterator[tuple[UUID, C]]:
        """``each(ctype)`` restricted to ``entities``, in ``each`` order, without
        visiting every holder in Python (for a few among thousands)."""
        order = self._order.get(ctype)
        if not order:
            return iter(())
        u2e, pending = self._uuid_to_eid, self._pending_destroy
        wanted = {u2e[u] for u in entities if u in u2e and u not in pending}
        rows = self._rows[ctype]
        return iter([rows[e] for e in filter(wanted.__contains__, order)])  # type: ignore[misc]

    def notify(self, entity_id: UUID, component: Component) -> None:
        """Tell the ``added_hooks`` (and ``version_of`` caches) of ``component``'s
        type that it changed in place (say, a membership gained a faction)."""
        ctype = type(component)
        self.changed(ctype)
        for hook in self.added_hooks.get(ctype, ()):
            hook(entity_id, component)

    def holders(self, ctype: type[Component]) -> list[UUID]:
        """Entities with a ``ctype``, in ``each`` order (a copy)."""
        order = self._order.get(ctype)
        if not order:
            return []
        uids = list(map(self._eid_to_uuid.__getitem__, order))
        pending = self._pending_destroy
        return [u for u in uids if u not in pending] if pending else uids

    def count_any(self, *ctypes: type[Component]) -> int:
        """Entities holding at least one of ``ctypes`` (scheduled destructions
        included, like ``count``), without hashing their UUIDs."""
        sets = [self._order.get(t) for t in ctypes]
        present = [s for s in sets if s]
        if not present:
            return 0
        return len(present[0].union(*present[1:]))

    def version_of(self, ctype: type[Component]) -> int:
        """Changes whenever a ``ctype`` is added, replaced or removed, an entity
        holding one is scheduled for destruction, or someone calls ``changed``: a
        cache derived from the holders of a type keys on it."""
        return self._versions.get(ctype, 0)

    def changed(self, ctype: type[Component]) -> None:
        """Bump ``version_of(ctype)`` (after changing such components in place in a
        way the caches keyed on it must notice)."""
        self._versions[ctype] = self._versions.get(ctype, 0) + 1

    def count(self, ctype: type[Component]) -> int:
        """Entities with a ``ctype`` (those scheduled for destruction included)."""
        index = self._by_type.get(ctype)
        return len(index) if index is not None else 0

    def _unorder(self, eid: int, ctype: type[Component]) -> None:
        order = self._order.get(ctype)
        if order is not None:
            order.discard(eid)
            self._rows[ctype].pop(eid, None)
            if not order:
                del self._order[ctype]  # esper drops an empty set too
                del self._rows[ctype]

    # -- names -----------------------------------------------------------------
    def _index(self, entity_id: UUID, component: Component) -> None:
        field = component.name_field
        if field:
            name = getattr(component, field, None)
            if isinstance(name, str) and name:
                self._names[name.casefold()].add(entity_id)

    def _unindex(self, entity_id: UUID, component: Component) -> None:
        field = component.name_field
        if field:
            name = getattr(component, field, None)
            if isinstance(name, str) and name:
                bucket = self._names.get(name.casefold())
                if bucket is not None:
                    bucket.discard(entity_id)
                    if not bucket:
                        del self._names[name.casefold()]

    def rename(self, entity_id: UUID, component: Component, new_name: str) -> None:
        """Change the indexed name field of ``component`` keeping the index right."""
        field = component.name_field
        if not field:
            raise TypeError(f"{type(component).__name__} has no name field")
        self._unindex(entity_id, component)
        setattr(component, field, new_name)
        self._index(entity_id, component)

    def find_by_name(self, name: str) -> list[UUID]:
        """Entities whose indexed name equals ``name`` (case-insensitive)."""
        bucket = self._names.get(name.casefold(), ())
        return [u for u in bucket if self.entity_exists(u)]

    # -- persistence support ---------------------------------------------------
    def _dirty_marker(self, entity_id: UUID) -> Any:
        def mark() -> None:
            self._dirty.add(entity_id)

        return mark

    def mark_dirty(self, entity_id: UUID) -> None:
        if entity_id in self._persistent:
            self._dirty.add(entity_id)

    def take_changes(self) -> tuple[set[UUID], list[tuple[UUID, str]], list[UUID]]:
        """Dirty entities, removed components and destroyed entities since last call.

        The caller owns the returned collections; if saving fails it hands them
        back with :meth:`restore_changes` so nothing is lost.
        """
        dirty, removed, destroyed = self._dirty, self._removed, self._destroyed
        self._dirty, self._removed, self._destroyed = set(), [], []
        return dirty, removed, destroyed

    def restore_changes(
        self, dirty: Iterable[UUID], removed: list[tuple[UUID, str]], destroyed: list[UUID]
    ) -> None:
        self._dirty.update(u for u in dirty if u in self._persistent)
        self._removed[:0] = removed
        self._destroyed[:0] = destroyed

    @property
    def dirty_count(self) -> int:
        return len(self._dirty)
