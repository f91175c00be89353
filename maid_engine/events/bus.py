"""Typed events.

``emit()`` queues an event; the engine dispatches the queue after each system of a
tick (and after each player command), in emission order, including events emitted
by handlers while dispatching. ``publish()`` runs the handlers now and awaits them.
Handlers are held strongly (unlike esper's weak references) and a failing handler
is logged and counted without stopping the others.
"""

from __future__ import annotations

import inspect
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger("maid.events")

E = TypeVar("E", bound="Event")
Handler = Callable[[Any], Awaitable[None] | None]

#: Guard against handlers that emit events forever.
MAX_EVENTS_PER_DISPATCH = 100_000


@dataclass
class Event:
    """Base class of every event. Subclasses are dataclasses."""


class EventBus:
    def __init__(self) -> None:
        self._handlers: dict[type[Event], list[Handler]] = {}
        self._resolved: dict[type[Event], tuple[Handler, ...]] = {}
        self._queue: deque[Event] = deque()
        self.dispatched = 0
        self.handler_errors = 0

    def subscribe(self, event_type: type[E], handler: Callable[[E], Any]) -> None:
        """Call ``handler`` (sync or async) for ``event_type`` and its subclasses."""
        self._handlers.setdefault(event_type, []).append(handler)
        self._resolved.clear()

    def unsubscribe(self, event_type: type[Event], handler: Callable[..., Any]) -> bool:
        handlers = self._handlers.get(event_type, [])
        if handler in handlers:
            handlers.remove(handler)
            self._resolved.clear()
            return True
        return False

    def handlers_for(self, event_type: type[Event]) -> tuple[Handler, ...]:
        resolved = self._resolved.get(event_type)
        if resolved is None:
            out: list[Handler] = []
            for klass in event_type.__mro__:
                out.extend(self._handlers.get(klass, ()))
            resolved = tuple(out)
            self._resolved[event_type] = resolved
        return resolved

    def emit(self, event: Event) -> None:
        """Queue ``event`` for the next dispatch point."""
        self._queue.append(event)

    @property
    def pending(self) -> int:
        return len(self._queue)

    async def publish(self, event: Event) -> None:
        """Deliver ``event`` to its handlers now."""
        self.dispatched += 1
        for handler in self.handlers_for(type(event)):
            try:
                result = handler(event)
                # Most handlers are plain functions: asking inspect of their None
                # was nearly a tenth of delivering a step's event.
                if result is not None and inspect.isawaitable(result):
                    await result
            except Exception:
                self.handler_errors += 1
                log.exception("event handler %s failed on %s", _name(handler), type(event).__name__)

    async def dispatch_pending(self) -> int:
        """Deliver queued events (and those they cause) in order. Returns the count."""
        count = 0
        queue = self._queue
        while queue:
            if count >= MAX_EVENTS_PER_DISPATCH:
                log.error("event storm: %d events left queued for the next dispatch", len(queue))
                break
            await self.publish(queue.popleft())
            count += 1
        return count


def _name(handler: Callable[..., Any]) -> str:
    return getattr(handler, "__qualname__", repr(handler))
