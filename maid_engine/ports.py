"""Ports: the narrow things collaborators of the engine are given.

Nothing below the engine imports ``maid_engine.engine``. A collaborator states
what it uses as one or more of the small Protocols here (the world, the event
bus, the clocks, the service registry, the sessions, the store ...), and
``GameEngine`` satisfies all of them structurally. A class that uses several
declares a Protocol next to itself combining exactly those. :class:`Host`, the
composite of them all, is named only where the engine is handed on to other
packs' code, which may reach anything (a system, a command body, a pack
registering itself); never ``GameEngine``.

This module is a leaf at run time: it imports nothing from the project except
under ``TYPE_CHECKING`` (the concrete types the ports expose), so any module may
import it without creating a cycle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from uuid import UUID

if TYPE_CHECKING:
    import asyncio
    import random

    from maid_engine.clock import GameClock
    from maid_engine.config import Settings
    from maid_engine.ecs.world import World
    from maid_engine.events.bus import EventBus
    from maid_engine.llm.service import LLMService
    from maid_engine.metrics import EngineMetrics
    from maid_engine.sessions import Session
    from maid_engine.slicing import TickSlice
    from maid_engine.store import Store, Transaction

T = TypeVar("T")

__all__ = [
    "ClockPort",
    "DispatchPort",
    "EventsPort",
    "Host",
    "LLMPort",
    "LineRunner",
    "LoginFlow",
    "MetricsPort",
    "PackInfo",
    "PacksPort",
    "RandomPort",
    "ServiceRegistry",
    "ServicesPort",
    "Sessions",
    "SessionsPort",
    "SettingsPort",
    "ShutdownPort",
    "StorePort",
    "SystemsPort",
    "TransactionWrites",
    "WorldLockPort",
    "WorldPort",
]


# -- the shapes behind the ports -------------------------------------------------------
class ServiceRegistry(Protocol):
    """A typed registry of shared services (``maid_engine.content.Services``)."""

    def provide(self, key: type[T], service: T) -> None: ...

    def get(self, key: type[T]) -> T: ...

    def try_get(self, key: type[T]) -> T | None: ...

    def __contains__(self, key: type[Any]) -> bool: ...


class LoginFlow(Protocol):
    """Drives a session from connect to puppeting a character (``maid_engine.accounts``)."""

    async def greet(self, session: Session) -> None: ...

    async def handle_line(self, session: Session, line: str) -> None: ...

    async def closed(self, session: Session) -> None: ...


class Sessions(Protocol):
    """Who is connected, as whom, and how to reach them
    (``maid_engine.session_manager.SessionManager``)."""

    login: LoginFlow | None
    mssp_providers: dict[str, Callable[[], str | list[str]]]
    prompt_provider: Callable[[Session], str] | None

    @property
    def presence_version(self) -> int: ...

    def watch_presence(self, hook: Callable[[UUID], None]) -> None: ...

    @property
    def online_count(self) -> int: ...

    def all(self) -> list[Session]: ...

    def playing(self) -> list[Session]: ...

    def session_for(self, character_id: UUID) -> Session | None: ...

    def is_online(self, character_id: UUID) -> bool: ...

    def characters_online(self) -> list[UUID]: ...

    def attach(self, session: Session, character_id: UUID) -> Session | None: ...

    def detach(self, session: Session) -> UUID | None: ...

    def send_to(self, character_id: UUID, text: str) -> bool: ...

    def send_many(
        self, character_ids: Iterable[UUID], text: str, exclude: Iterable[UUID] = ()
    ) -> None: ...

    def gmcp_to(self, character_id: UUID, package: str, data: Any) -> None: ...

    def broadcast(self, text: str) -> None: ...

    def prompt(self, session: Session) -> None: ...

    async def execute(self, session: Session, line: str) -> None: ...

    def mssp_status(self) -> Mapping[str, str | list[str]]: ...


class PackInfo(Protocol):
    """What others may read of a loaded content pack: its name and folder."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Path: ...


# -- the small ports ---------------------------------------------------------------------
class WorldPort(Protocol):
    """The entity world."""

    @property
    def world(self) -> World: ...


class EventsPort(Protocol):
    """The event bus."""

    @property
    def events(self) -> EventBus: ...


class ClockPort(Protocol):
    """Game time plus the injectable monotonic and wall clocks."""

    @property
    def clock(self) -> GameClock: ...


class ServicesPort(Protocol):
    """The registry of shared services."""

    @property
    def services(self) -> ServiceRegistry: ...


class SessionsPort(Protocol):
    """Connected sessions and messaging to characters."""

    @property
    def sessions(self) -> Sessions: ...


class TransactionWrites(Protocol):
    """An operation's own writes, run inside the transaction of a commit."""

    async def __call__(self, tx: Transaction) -> None: ...


class StorePort(Protocol):
    """The database, when the engine has one (``has_store``).

    Entities reach the database only whole and all together: a checkpoint, or
    ``commit_now`` for an operation that must be on disk before the player is
    told. Writing one entity alone would put half of a trade on disk.
    """

    @property
    def store(self) -> Store: ...

    @property
    def has_store(self) -> bool: ...

    async def save_entities_now(self, *entity_ids: Any) -> None:
        """A commit of everything (``commit_now``) that takes ``world_lock`` itself:
        not for code already holding the lock."""
        ...

    def commit_now(self, writes: TransactionWrites | None = None) -> Awaitable[int]:
        """Collect every change since the last checkpoint at once (call it holding
        ``world_lock``) and write it, with ``writes``, in one transaction; await the
        result for the write. On failure the changes go back to the world."""
        ...


class SettingsPort(Protocol):
    """The process's settings."""

    @property
    def settings(self) -> Settings: ...


class RandomPort(Protocol):
    """The engine's seeded random source (simulations replay with the same seed)."""

    @property
    def random(self) -> random.Random: ...


class WorldLockPort(Protocol):
    """The lock ticks and player commands take turns with (a command runs inside a
    system's update only at a point the system offers, ``LendPort``)."""

    @property
    def world_lock(self) -> asyncio.Lock: ...


class LendPort(Protocol):
    """Where a long system lets the players' commands in: a point inside its
    update where the world and its own state are whole (``GameEngine.lend_point``;
    True: commands ran, what it read of the world before may have changed)."""

    async def lend_point(self) -> bool: ...

    def lend_due(self) -> bool:
        """Whether ``lend_point`` would lend now (cheap; asked between small steps)."""
        ...

    def tick_slice(self, system: str) -> TickSlice:
        """``system``'s share of this tick's real time (``settings.tick_slice``,
        within what is left of ``settings.tick_budget``), from now: asked at the
        start of an update whose work is spread over ticks, and between two of its
        steps whether it is spent."""
        ...


class DispatchPort(Protocol):
    """The safe point: destroy what was scheduled, deliver queued events."""

    async def dispatch_events(self) -> None: ...


class MetricsPort(Protocol):
    """The Prometheus registry of the engine."""

    @property
    def metrics(self) -> EngineMetrics: ...


class LLMPort(Protocol):
    """The process's one LLM service (rate limit and token budget are global)."""

    @property
    def llm(self) -> LLMService: ...


class PacksPort(Protocol):
    """The loaded content packs, in dependency order."""

    @property
    def packs(self) -> Sequence[PackInfo]: ...


class SystemsPort(Protocol):
    """Lookup of a registered system by type."""

    def get_system(self, system_type: type[T]) -> T: ...


class ShutdownPort(Protocol):
    """Asking the hosting server to stop gracefully."""

    def request_shutdown(self, reason: str = "", requested_by: Any = None) -> None: ...


# -- composites ----------------------------------------------------------------------------
class Host(
    WorldPort,
    EventsPort,
    ClockPort,
    ServicesPort,
    SessionsPort,
    StorePort,
    SettingsPort,
    RandomPort,
    WorldLockPort,
    LendPort,
    DispatchPort,
    MetricsPort,
    LLMPort,
    PacksPort,
    SystemsPort,
    ShutdownPort,
    Protocol,
):
    """Everything a system, a command body or a pack may reach, as one type.

    Only for where the engine is handed on to other packs' code (``System``,
    command contexts, pack contexts, score sections): such code may reach
    anything. Every other collaborator takes the small ports it uses, or a
    Protocol of its own listing them (``tests/engine/test_ports.py`` checks it).
    """


#: A command line run for a puppeting session (what ``SessionManager.execute`` calls).
LineRunner = Callable[["Session", str], Awaitable[None]]
