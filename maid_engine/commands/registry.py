"""The command registry: lookup, prefix matching, permissions, execution."""

from __future__ import annotations

import difflib
import inspect
import logging
import time
from collections.abc import Callable
from typing import Protocol

from maid_engine.commands.command import (
    Command,
    CommandContext,
    CommandError,
    CommandsPort,
    Fallback,
    Guard,
    Interceptor,
    Observer,
    Rescue,
    Role,
)
from maid_engine.net.markup import escape_markup
from maid_engine.ports import DispatchPort

log = logging.getLogger("maid.commands")

#: One-character shortcuts: ``'hello`` -> ``say hello``, ``:waves`` -> ``emote waves``.
SHORTCUTS = {"'": "say", '"': "say", ":": "emote", ";": "emote"}


class CommandRegistry:
    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._names: dict[str, Command] = {}
        self._owner: dict[str, str] = {}
        self.fallbacks: list[Fallback] = []
        self.rescues: list[Rescue] = []
        #: Told of every command a character runs, just before it runs.
        self.observers: list[Observer] = []
        self.guards: list[Guard] = []
        #: Asked first for every line (a line editor takes lines as text).
        self.interceptors: list[Interceptor] = []
        self.executed = 0
        self.on_executed: Callable[[Command, float], None] | None = None

    def add(self, cmd: Command, pack: str = "") -> None:
        for name in cmd.names:
            other = self._names.get(name)
            if other is not None and other.key != cmd.key:
                raise ValueError(
                    f"command name {name!r} of {cmd.key!r} ({pack or 'engine'}) is already "
                    f"used by {other.key!r} ({self._owner.get(other.key) or 'engine'})"
                )
        old = self._commands.get(cmd.key)
        if old is not None:
            # A later pack may replace a command on purpose (a richer `score`), but
            # never silently: the log says who replaced whom.
            log.warning(
                "command %r of %s replaced by %s",
                cmd.key,
                self._owner.get(cmd.key) or "engine",
                pack or "engine",
            )
            for name in old.names:
                self._names.pop(name, None)
        self._commands[cmd.key] = cmd
        self._owner[cmd.key] = pack
        for name in cmd.names:
            self._names[name] = cmd

    def add_fallback(self, fallback: Fallback) -> None:
        self.fallbacks.append(fallback)

    def add_rescue(self, rescue: Rescue) -> None:
        """Ask ``rescue`` before a command's refusal is shown (see :data:`Rescue`)."""
        self.rescues.append(rescue)

    def add_guard(self, guard: Guard) -> None:
        self.guards.append(guard)

    def add_interceptor(self, interceptor: Interceptor) -> None:
        """Let ``interceptor`` take lines before they are commands (see :data:`Interceptor`)."""
        self.interceptors.append(interceptor)

    def add_observer(self, observer: Observer) -> None:
        """Tell ``observer`` of every command before it runs (see :data:`Observer`)."""
        self.observers.append(observer)

    def all(self) -> list[Command]:
        return list(self._commands.values())

    def get(self, key: str) -> Command | None:
        return self._commands.get(key.lower())

    def visible_to(self, role: Role) -> list[Command]:
        return sorted(
            (c for c in self._commands.values() if c.permission <= role), key=lambda c: c.key
        )

    def match(self, word: str, role: Role = Role.ADMIN) -> list[Command]:
        """Commands ``word`` selects: an exact name, else the best prefix matches."""
        word = word.lower()
        exact = self._names.get(word)
        if exact is not None:
            return [exact]
        found: dict[str, Command] = {}
        for name, cmd in self._names.items():
            if cmd.prefix_match and name.startswith(word) and cmd.permission <= role:
                found[cmd.key] = cmd
        if len(found) <= 1:
            return list(found.values())
        best = max(c.priority for c in found.values())
        return sorted((c for c in found.values() if c.priority == best), key=lambda c: c.key)

    def suggestions(self, word: str, role: Role, limit: int = 3) -> list[str]:
        """Names (keys and aliases) ``role`` may use that look like a mistyped ``word``.

        Close spellings by difflib's ratio, the nearest first; one-letter aliases are
        left out, as nearly anything is one edit away from them.
        """
        word = word.lower()
        names = [
            name
            for name, cmd in self._names.items()
            if cmd.permission <= role and len(name) > 1 and name != word
        ]
        found = difflib.get_close_matches(word, names, n=limit * 2, cutoff=0.66)
        # An alias and its key may both match ("inv", "inventory"): name a command once.
        seen: set[str] = set()
        out: list[str] = []
        for name in found:
            key = self._names[name].key
            if key not in seen:
                seen.add(key)
                out.append(name)
        return out[:limit]

    def unknown(self, word: str, role: Role) -> str:
        """What a player reads after a line no command matched."""
        close = self.suggestions(word, role)
        if not close:
            return f"Huh? '{word}' is not a command. Type 'help' for a list."
        quoted = [f"'{name}'" for name in close]
        options = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
        return f"Huh? '{word}' is not a command. Did you mean {options}?"

    @staticmethod
    def split(line: str) -> tuple[str, str]:
        line = line.strip()
        if not line:
            return "", ""
        if line[0] in SHORTCUTS:
            return SHORTCUTS[line[0]], line[1:].strip()
        word, _, rest = line.partition(" ")
        return word, rest.strip()

    async def execute(self, ctx: CommandContext, line: str) -> bool:
        """Parse and run ``line``. Returns False if nothing handled it."""
        for interceptor in self.interceptors:
            if interceptor(ctx, line):
                return True
        name, args = self.split(line)
        ctx.raw, ctx.name, ctx.args = line, name, args
        if not name:
            return True
        matches = self.match(name, ctx.role)
        if len(matches) > 1:
            names = ", ".join(c.key for c in matches[:8])
            ctx.send(f"'{name}' could mean: {names}. Type more letters.")
            return True
        if not matches:
            for fallback in self.fallbacks:
                handled = fallback(ctx)
                if inspect.isawaitable(handled):
                    handled = await handled
                if handled:
                    return True
            ctx.send(self.unknown(name, ctx.role))
            return False
        cmd = matches[0]
        ctx.command = cmd
        if cmd.permission > ctx.role and ctx.role < Role.BUILDER:
            # Staff commands are not a player's business: like any MUD, a player
            # typing one reads the same "Huh?" as for a word that is no command
            # (and learns nothing about which staff commands exist).
            ctx.send(self.unknown(name, ctx.role))
            return False
        if cmd.permission > ctx.role:
            ctx.send(
                f"You do not have permission to use {cmd.key} "
                f"(it needs the {cmd.permission.name.lower()} role)."
            )
            return True
        if cmd.needs_character and ctx.actor is None:
            ctx.send("You need to be playing a character to do that.")
            return True
        if cmd.needs_character and ctx.actor is not None and not ctx.world.entity_exists(ctx.actor):
            ctx.send("Your character is not in the world right now.")
            return True
        for guard in self.guards:
            refusal = guard(ctx, cmd)
            if refusal is not None:
                ctx.send(refusal)
                return True
        for observer in self.observers:
            try:
                observer(ctx, cmd)
            except Exception:
                log.exception("command observer %r failed", observer)
        started = time.perf_counter()
        try:
            await cmd.run(ctx)
        except CommandError as exc:
            if not await self._rescued(ctx, exc):
                # A refusal is plain text: a usage line's "[player|builder]" or a
                # key such as "tension:bandits|guard" is not a colour code.
                ctx.send(escape_markup(str(exc)))
        except Exception:
            log.exception("command %r failed (input %r)", cmd.key, line)
            ctx.send("Something went wrong running that command; it has been logged.")
        finally:
            self.executed += 1
            if self.on_executed is not None:
                self.on_executed(cmd, time.perf_counter() - started)
        return True

    async def _rescued(self, ctx: CommandContext, error: CommandError) -> bool:
        for rescue in self.rescues:
            handled = rescue(ctx, error)
            if inspect.isawaitable(handled):
                handled = await handled
            if handled:
                return True
        return False


class LineHost(CommandsPort, DispatchPort, Protocol):
    """What running a line needs: the registry, then the safe point for its events."""


async def run_line(engine: LineHost, ctx: CommandContext, line: str) -> bool:
    """Execute a line and then deliver the events it queued."""
    handled = await engine.commands.execute(ctx, line)
    await engine.dispatch_events()
    return handled
