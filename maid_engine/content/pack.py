"""Content packs: the plugin unit of MAID.

A pack (a plugin) is one class with ``name``, ``version``, ``requires`` and a
single ``register(ctx)`` method that registers, exactly once, everything it adds
through the :class:`PackContext`: systems, event handlers, commands, document
collections, services, entries of other plugins' extension registries, and data
read from the pack's own folder.

* ``requires`` names the plugins (by name, or by class) that must register before
  this one, so the services they provide exist when ``register`` runs; a missing
  one stops start-up with an error naming both.
* ``provides`` declares the services ``register`` provides (checked after it ran).
* A group (:class:`PluginGroup`) bundles feature plugins: the loader expands its
  ``plugins`` in order and registers them before the group itself. ``stdlib`` and
  ``classic_rpg`` are groups.
* ``finish(ctx)`` runs once every pack registered, in load order: a plugin
  validates there what other packs added to the registries it owns.
* A plugin owning an extension registry declares it (``ctx.add_registry``): the
  engine locks it once it has started (:mod:`maid_engine.content.registries`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from maid_engine.commands.command import CommandsPort, Guard
from maid_engine.content.errors import PackError
from maid_engine.content.registries import Claims, Registries
from maid_engine.ports import Host

if TYPE_CHECKING:
    from maid_engine.ecs import System
    from maid_engine.events import Event

T = TypeVar("T")


class ContentPack:
    name: ClassVar[str] = ""
    version: ClassVar[str] = "0.1.0"
    requires: ClassVar[tuple[str | type[ContentPack], ...]] = ()
    #: Services ``register`` provides; start-up fails if one is not provided.
    provides: ClassVar[tuple[type[Any], ...]] = ()
    #: A group's feature plugins, registered (in this order) before the group.
    plugins: ClassVar[tuple[type[ContentPack], ...]] = ()
    description: ClassVar[str] = ""

    @property
    def path(self) -> Path:
        """The folder of the pack's module (where its data files live)."""
        return Path(inspect.getfile(type(self))).resolve().parent

    def register(self, ctx: PackContext) -> None:
        """Register everything the pack adds."""
        raise NotImplementedError(f"content pack {self.name!r} must implement register()")

    def finish(self, ctx: PackContext) -> None:
        """Called once every pack registered (in load order): validate what other
        packs added to this plugin's registries; raise a PackError naming the pack
        whose entry is bad."""

    async def on_world_loaded(self, ctx: PackContext) -> None:
        """Called after persisted entities were loaded (or on an empty world).

        Packs that build world entities from data do it here, creating only what
        is not in the store yet, so a restart continues the world instead of
        duplicating it.
        """


class PackHost(Host, CommandsPort, Protocol):
    """The composite :class:`~maid_engine.ports.Host` port plus what only packs do
    while registering: add commands and systems, declare document collections and
    extension registries."""

    @property
    def registries(self) -> Registries: ...

    def add_system(self, system: System, *, pack: str | None = None) -> None: ...

    def declare_collection(self, name: str) -> None: ...


class PluginGroup(ContentPack):
    """A bundle of feature plugins under one name (what users put in ``--pack``).

    It adds nothing itself unless a subclass overrides ``register``."""

    def register(self, ctx: PackContext) -> None:
        """A group's members did the registering."""


def requirement_name(req: str | type[ContentPack]) -> str:
    return req if isinstance(req, str) else req.name


class PackContext:
    """What a pack may touch while registering."""

    def __init__(self, engine: PackHost, pack: ContentPack) -> None:
        self.engine = engine
        self.pack = pack
        self.collections: list[str] = []

    @property
    def world(self) -> Any:
        return self.engine.world

    @property
    def path(self) -> Path:
        return self.pack.path

    def add_system(self, system: System) -> None:
        self.engine.add_system(system, pack=self.pack.name)

    def subscribe(self, event_type: type[Event], handler: Callable[..., Any]) -> None:
        self.engine.events.subscribe(event_type, handler)

    def add_command(self, command: Any) -> None:
        self.engine.commands.add(command, pack=self.pack.name)

    def add_commands(self, commands: Any) -> None:
        for command in commands:
            self.add_command(command)

    def add_command_guard(self, guard: Guard) -> None:
        """Refuse matched commands in some state (asleep, ...): see ``Guard``."""
        self.engine.commands.add_guard(guard)

    def ensure_collection(self, name: str) -> None:
        """Declare a document collection (created when the store opens)."""
        self.engine.declare_collection(name)
        self.collections.append(name)

    def add_registry(self, *claims: Claims) -> None:
        """Declare the extension registries this plugin owns (their Claims): listed
        by ``maid registries``, locked once the engine has started."""
        self.engine.registries.add(*claims)

    def provide(self, key: type[T], service: T) -> None:
        """Make ``service`` available to other packs and systems under ``key``."""
        self.engine.services.provide(key, service)

    def service(self, key: type[T]) -> T:
        return self.engine.services.get(key)

    def error(self, message: str, file: Path | str | None = None) -> PackError:
        return PackError(self.pack.name, message, file)


class Services:
    """A typed registry of shared services (archetype registries, managers ...)."""

    def __init__(self) -> None:
        self._items: dict[type[Any], Any] = {}

    def provide(self, key: type[T], service: T) -> None:
        if key in self._items:
            raise ValueError(f"service {key.__name__} is already provided")
        self._items[key] = service

    def get(self, key: type[T]) -> T:
        try:
            result: T = self._items[key]
        except KeyError:
            raise LookupError(
                f"no service {key.__name__} (is the pack that provides it loaded?)"
            ) from None
        return result

    def try_get(self, key: type[T]) -> T | None:
        return self._items.get(key)

    def __contains__(self, key: type[Any]) -> bool:
        return key in self._items
