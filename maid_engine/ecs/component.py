"""Typed components.

A component is a ``@dataclass`` subclass of :class:`Component`. Every subclass is
registered by name so that persistence can turn stored rows back into objects.
Assigning a field marks the owning entity dirty for the next checkpoint; code that
changes a component any other way (``inv.items.append(x)``) reports it with
:meth:`World.modified <maid_engine.ecs.world.World.modified>`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar
from uuid import UUID

from pydantic import ConfigDict, TypeAdapter

C = TypeVar("C", bound="Component")

_REGISTRY: dict[str, type[Component]] = {}
_ADAPTERS: dict[type[Component], TypeAdapter[Any]] = {}


class Component:
    """Base class of every component.

    Class attributes a subclass may set:

    * ``persist`` -- ``False`` for runtime-only state (combat rounds, caches).
    * ``component_name`` -- the stable stored name; defaults to the class name.
      Set it explicitly if a class may be renamed later.
    * ``name_field`` -- the field the world's name index reads, if any.
    """

    persist: ClassVar[bool] = True
    component_name: ClassVar[str] = ""
    name_field: ClassVar[str | None] = None
    # pydantic writes a NaN or an infinity in a float field as NaN / Infinity
    # (not JSON) instead of null: the checkpoints tell it from a None that way.
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(ser_json_inf_nan="constants")

    # Set by World.add_component: the holding world's change marker (one function
    # per world, shared by all its components) and the entity holding this one.
    # Plain attributes (not dataclass fields), so neither compared nor serialised.
    _owner: Callable[[UUID, type[Component]], None] | None = None
    _entity: UUID | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("component_name") or cls.__name__
        cls.component_name = name
        existing = _REGISTRY.get(name)
        if existing is not None and existing.__qualname__ != cls.__qualname__:
            raise TypeError(
                f"component name {name!r} is used by both {existing.__module__}."
                f"{existing.__qualname__} and {cls.__module__}.{cls.__qualname__}"
            )
        _REGISTRY[name] = cls

    def __setattr__(self, key: str, value: Any) -> None:
        object.__setattr__(self, key, value)
        held = self.__dict__
        owner = held.get("_owner")
        if owner is not None and key != "_owner":
            owner(held["_entity"], type(self))


def _adapter(cls: type[Component]) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"component {cls.__name__} must be a dataclass to persist")
        adapter = TypeAdapter(cls)
        _ADAPTERS[cls] = adapter
    return adapter


def dump_component(component: Component) -> dict[str, Any]:
    """JSON-ready dict of a component's fields."""
    data = _adapter(type(component)).dump_python(component, mode="json")
    assert isinstance(data, dict)
    return data


def dump_component_json(component: Component) -> bytes:
    """A component's fields as JSON text (UTF-8), encoded in one step: the data
    :func:`dump_component` gives, without building it as Python objects first.

    A NaN or an infinity in a float field comes out as ``NaN`` / ``Infinity``,
    which is not JSON: a caller that must not write them checks for those words
    and takes :func:`dump_component` instead, for the store's encoder to refuse.
    One where no type says float (``Any``, a bare ``dict``) comes out as ``null``
    in both, as pydantic's JSON mode always wrote it."""
    return _adapter(type(component)).dump_json(component)


def load_component(name: str, data: dict[str, Any]) -> Component:
    """Rebuild a stored component; unknown names raise ``KeyError`` naming the type."""
    cls = _REGISTRY.get(name)
    if cls is None:
        raise KeyError(f"unknown component type {name!r} (is its content pack loaded?)")
    obj = _adapter(cls).validate_python(data)
    assert isinstance(obj, cls)
    return obj
