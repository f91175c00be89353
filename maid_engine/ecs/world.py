"""The ECS world: the only place in MAID that touches esper.

esper 3 keeps its state in module globals switched by name, so every World owns a
uniquely named esper context and switches to it before each call. Entities are
addressed by stable UUIDs everywhere outside this module; esper's integer ids are
an implementation detail.
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
        self._pending_destroy: list[UUID] = []
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
            self._pending_destroy.append(entity_id)
            self.listing_version += 1

    def flush_destroyed(self) -> list[UUID]:
        """Destroy everything scheduled. Called by the engine between systems."""
        if not self._pending_destroy:
            return []
        self._use()
        done = self._pending_destroy
        self._pending_destroy = []
        for uid in done:
            eid = self._uuid_to_eid.pop(uid, None)
            if eid is None:
                continue
            del self._eid_to_uuid[eid]
            components: tuple[Component, ...] = esper.components_for_entity(eid)
            for component in components:
                self._unindex(uid, component)
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
        if ctype in self.listing_types:
            self.listing_version += 1
        self._unindex(entity_id, component)
        component._owner = None
        if entity_id in self._persistent and ctype.persist:
            self._removed.append((entity_id, ctype.component_name))
        return component

    def get_component(self, entity_id: UUID, ctype: type[C]) -> C:
        """The component, or ``ComponentNotFound``/``EntityNotFound``."""
        eid = self._eid(entity_id)
        self._use()
        component = esper.try_component(eid, ctype)
        if component is None:
            raise ComponentNotFound(entity_id, ctype)
        return component

    def try_component(self, entity_id: UUID, ctype: type[C]) -> C | None:
        eid = self._uuid_to_eid.get(entity_id)
        if eid is None:
            return None
        self._use()
        return esper.try_component(eid, ctype)

    def has_component(self, entity_id: UUID, ctype: type[Component]) -> bool:
        eid = self._uuid_to_eid.get(entity_id)
        if eid is None:
            return False
        self._use()
        return esper.has_component(eid, ctype)

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
        self._use()
        rows = esper.get_components(*ctypes)
        e2u = self._eid_to_uuid
        pending = self._pending_destroy
        out = [(e2u[eid], tuple(comps)) for eid, comps in rows]
        if pending:
            dead = set(pending)
            out = [row for row in out if row[0] not in dead]
        return iter(out)

    def each(self, ctype: type[C]) -> Iterator[tuple[UUID, C]]:
        """Single-component query (the common case), materialised like ``query``."""
        self._use()
        e2u = self._eid_to_uuid
        out = [(e2u[eid], comp) for eid, comp in esper.get_component(ctype)]
        if self._pending_destroy:
            dead = set(self._pending_destroy)
            out = [row for row in out if row[0] not in dead]
        return iter(out)

    def count(self, ctype: type[Component]) -> int:
        self._use()
        return len(esper.get_component(ctype))

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
