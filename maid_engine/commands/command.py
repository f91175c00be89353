"""Declarative commands.

    @command("look", aliases=("l",))
    def look(ctx: CommandContext) -> None:
        '''Look around, or at something.

        Usage: look [<target>]
        '''

The first docstring line is the summary shown in ``help``; the whole docstring is
the help entry. Game rules do not live in command bodies: a command validates
input, then changes components or emits events that systems act on.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from maid_engine.ecs.world import World
from maid_engine.net.wrapping import unwrap_paragraphs
from maid_engine.ports import Host
from maid_engine.sessions import Session


class Role(enum.IntEnum):
    """Account roles; a higher role may do everything a lower one may.

    An owner is an admin who may also make and unmake admins; owners themselves
    are made and unmade only on the server's command line (``maid create-admin
    --owner``), so that no account inside the game can take over all the others.
    """

    PLAYER = 1
    BUILDER = 2
    ADMIN = 3
    OWNER = 4

    @classmethod
    def parse(cls, value: str | int | Role) -> Role:
        if isinstance(value, Role):
            return value
        if isinstance(value, int):
            return cls(value)
        try:
            return cls[value.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown role {value!r} (player, builder, admin or owner)") from None


class CommandError(Exception):
    """Raise from a command to tell the user something went wrong (no traceback)."""


CommandFunc = Callable[["CommandContext"], Awaitable[None] | None]


@dataclass(frozen=True)
class Command:
    key: str
    func: CommandFunc
    aliases: tuple[str, ...] = ()
    permission: Role = Role.PLAYER
    category: str = "general"
    #: Needs a puppeted character (most game commands do).
    needs_character: bool = True
    #: Whether unambiguous prefixes of the key select this command.
    prefix_match: bool = True
    #: Breaks ties between prefix matches (higher wins), e.g. "n" -> north.
    priority: int = 0
    help: str = ""

    @property
    def summary(self) -> str:
        return self.help.strip().splitlines()[0] if self.help.strip() else ""

    @property
    def names(self) -> tuple[str, ...]:
        return (self.key, *self.aliases)

    async def run(self, ctx: CommandContext) -> None:
        result = self.func(ctx)
        # Most commands are plain functions (None): no need to ask inspect, a
        # Python-level call, on every command a crowd sends.
        if result is not None and inspect.isawaitable(result):
            await result


#: Called with the context of input no command matched; returns True if it handled it.
Fallback = Callable[["CommandContext"], Awaitable[bool] | bool]
#: Called before a matched command runs; a text refuses it (sent to the user), None
#: lets it run. Rules layers use it for states that forbid actions (asleep, ...).
Guard = Callable[["CommandContext", Command], str | None]

#: Called when a matched command refused its input (raised :class:`CommandError`):
#: returns True if it gave the line another meaning, and the refusal is then not shown
#: (a narrated room tells "look for a key among the sacks" as an action).
Rescue = Callable[["CommandContext", "CommandError"], Awaitable[bool] | bool]

#: Told of each command a matched line runs, just before it runs (e.g. any command but
#: ``afk`` ends being away); it must not fail, and what it raises is only logged.
Observer = Callable[["CommandContext", "Command"], None]

#: Asked before a line is parsed: True takes the line (it is not a command). A line
#: editor holds a builder's next lines this way until they finish.
Interceptor = Callable[["CommandContext", str], bool]


class CommandTable(Protocol):
    """What others use of the command registry
    (:class:`~maid_engine.commands.registry.CommandRegistry`).

    Declared here, not in ``maid_engine.ports``: a command's context reaches the
    registry, whose commands take that context, so the types form a loop that must
    close inside one module (this one); ``ports`` stays a leaf.
    """

    def add(self, cmd: Command, pack: str = "") -> None: ...

    def add_fallback(self, fallback: Fallback) -> None: ...

    def add_rescue(self, rescue: Rescue) -> None: ...
    def add_guard(self, guard: Guard) -> None: ...

    def add_interceptor(self, interceptor: Interceptor) -> None: ...

    def add_observer(self, observer: Observer) -> None: ...

    def visible_to(self, role: Role) -> list[Command]: ...

    def match(self, word: str, role: Role = Role.ADMIN) -> list[Command]: ...

    async def execute(self, ctx: CommandContext, line: str) -> bool: ...


class CommandsPort(Protocol):
    """The command registry."""

    @property
    def commands(self) -> CommandTable: ...


class CommandHost(Host, CommandsPort, Protocol):
    """What a command body is handed: the composite :class:`~maid_engine.ports.Host`
    plus the command registry (``help`` lists and matches commands)."""


def command(
    key: str,
    *,
    aliases: tuple[str, ...] | list[str] = (),
    permission: Role | str = Role.PLAYER,
    category: str = "general",
    needs_character: bool = True,
    prefix_match: bool = True,
    priority: int = 0,
) -> Callable[[CommandFunc], Command]:
    """Decorator turning a function into a :class:`Command`."""
    role = Role.parse(permission)
    if key.startswith("@") and role < Role.BUILDER:
        raise ValueError(f"{key}: @-commands are for builders or admins")

    def wrap(func: CommandFunc) -> Command:
        return Command(
            key=key.lower(),
            func=func,
            aliases=tuple(a.lower() for a in aliases),
            permission=role,
            category=category,
            needs_character=needs_character,
            prefix_match=prefix_match,
            priority=priority,
            # Docstrings are wrapped for the source; the session wraps to the client.
            help=unwrap_paragraphs(inspect.cleandoc(func.__doc__ or "")),
        )

    return wrap


@dataclass
class CommandContext:
    """Everything a command body may use.

    ``engine`` is a :class:`CommandHost`: the composite
    :class:`~maid_engine.ports.Host` port (world, events, clock, services, sessions,
    store, ...) plus the command registry. Command bodies are plugin code and reach
    many of them.
    """

    engine: CommandHost
    session: Session | None
    actor: UUID | None
    role: Role = Role.PLAYER
    account_id: str | None = None
    raw: str = ""
    name: str = ""
    args: str = ""
    command: Command | None = None
    output: list[str] = field(default_factory=list)

    @property
    def world(self) -> World:
        return self.engine.world

    @property
    def argv(self) -> list[str]:
        return self.args.split()

    def send(self, text: str) -> None:
        """Send text to whoever issued the command."""
        if self.session is not None:
            self.session.send(text)
        else:
            self.output.append(text)

    def service(self, key: type[Any]) -> Any:
        return self.engine.services.get(key)

    def require_actor(self) -> UUID:
        if self.actor is None:
            raise CommandError("You need to be playing a character to do that.")
        return self.actor
