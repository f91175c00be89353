"""Prometheus metrics: one registry per engine, served on ``/metrics``.

Packs add their own metrics to ``engine.metrics.registry`` (use :meth:`counter`,
:meth:`gauge`, :meth:`histogram` so a pack loaded twice in tests never collides).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from bisect import bisect_left
from collections.abc import Iterable, Sequence, Sized
from typing import Any, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString

log = logging.getLogger("maid.metrics")


class SessionCounts(Protocol):
    """What the session gauge reads (``maid_engine.ports.Sessions`` has it)."""

    def all(self) -> Sized: ...

    def playing(self) -> Sized: ...


class CommandLike(Protocol):
    @property
    def category(self) -> str: ...


#: The values of one labelled series: a string for a single label, else a tuple.
LabelValues = str | Sequence[str]

TICK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


def _le(bound: float) -> str:
    """A bucket's bound as the library writes it in ``le`` (``+Inf``, ``0.0005``)."""
    label: str = floatToGoString(bound)  # type: ignore[no-untyped-call]
    return label


class EventCounts(Protocol):
    """What the event bus counts as it delivers (``EventBus``)."""

    dispatched: int
    handler_errors: int


class EventStats(Collector):
    """``maid_events_dispatched_total`` and ``maid_event_handler_errors_total``, read
    from the event bus's own counts when scraped: the library's counter took a
    lock for every event delivered (a player's step is one, to a dozen handlers)."""

    def __init__(self, events: EventCounts) -> None:
        self._events = events
        self._since = time.time()

    def collect(self) -> Iterable[Metric]:
        events = self._events
        for name, documentation, value in (
            ("maid_events_dispatched", "Events delivered", events.dispatched),
            (
                "maid_event_handler_errors",
                "Exceptions raised by event handlers",
                events.handler_errors,
            ),
        ):
            counter = CounterMetricFamily(name, documentation)
            counter.add_metric([], value, created=self._since)
            yield counter


class CommandStats(Collector):
    """``maid_commands_total{category}`` and ``maid_command_duration_seconds``, kept
    in plain numbers and exposed as the client library's counter and histogram are.

    They are counted for every command: the library's counter and histogram check
    their state, take a lock per value and walk the buckets in Python, about 4 us
    a command (7 % of the CPU a crowd's ``look`` costs); here it is a dict entry, a
    bisection and a sum. Everything runs on the event loop, scrapes too.
    """

    def __init__(self, buckets: Sequence[float]) -> None:
        self._bounds = (*buckets, math.inf)
        self._les = [_le(bound) for bound in self._bounds]
        self._counts: dict[str, int] = {}
        self._created: dict[str, float] = {}
        self._buckets = [0] * len(self._bounds)
        self._sum = 0.0
        self._since = time.time()

    def known(self, category: str) -> None:
        """``category``'s count is exposed from now on, at zero until it is used."""
        if category not in self._counts:
            self._counts[category] = 0
            self._created[category] = time.time()

    def record(self, category: str, seconds: float) -> None:
        counts = self._counts
        if category not in counts:
            self.known(category)
        counts[category] += 1
        # A value on a bound belongs to that bucket (le: less or equal), as in
        # the library's histogram.
        self._buckets[bisect_left(self._bounds, seconds)] += 1
        self._sum += seconds

    def count(self, category: str) -> int:
        return self._counts.get(category, 0)

    def collect(self) -> Iterable[Metric]:
        counter = CounterMetricFamily("maid_commands", "Commands executed", labels=["category"])
        for category, n in self._counts.items():
            counter.add_metric([category], n, created=self._created[category])
        yield counter
        histogram = HistogramMetricFamily(
            "maid_command_duration_seconds", "Wall time of one command"
        )
        total, cumulative = 0, []
        for le, n in zip(self._les, self._buckets, strict=True):
            total += n
            cumulative.append((le, float(total)))
        histogram.add_metric([], cumulative, self._sum)
        histogram.samples.append(
            Sample("maid_command_duration_seconds_created", {}, self._since, None)
        )
        yield histogram


class EngineMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._made: dict[str, Any] = {}
        self.tick_duration = self.histogram(
            "maid_tick_duration_seconds",
            "Wall time of one engine tick, less the moments it gave the loop and commands",
            buckets=TICK_BUCKETS,
        )
        self.commands_lent = self.counter(
            "maid_tick_commands_lent",
            "Commands that ran between two systems of a tick instead of after it",
        )
        self.slices_spent = self.counter(
            "maid_tick_slices_spent",
            "Updates in which a system stopped its spread work for the tick's time "
            "limit (tick_slice), leaving the rest for the next tick",
            ["system"],
        )
        self.system_duration = self.histogram(
            "maid_system_update_duration_seconds",
            "Wall time of one system update",
            ["system"],
            buckets=TICK_BUCKETS,
        )
        self.system_errors = self.counter(
            "maid_system_errors", "Exceptions raised by system updates", ["system"]
        )
        self.tick_overruns = self.counter(
            "maid_tick_overruns", "Ticks that took longer than the tick interval"
        )
        self.ticks = self.counter("maid_ticks", "Engine ticks run")
        self.entities = self.gauge("maid_entities", "Live entities in the world")
        self.checkpoint_duration = self.histogram(
            "maid_checkpoint_duration_seconds",
            "Wall time of one checkpoint",
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
        )
        self.checkpoint_collect = self.histogram(
            "maid_checkpoint_collect_seconds",
            "World lock held to collect changes: one piece of a checkpoint, or a commit",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
        )
        self.checkpoint_collect_max = self.gauge(
            "maid_checkpoint_collect_max_seconds", "The longest collection since start"
        )
        self.checkpoint_collect_longest = 0.0
        self.checkpoint_entities = self.counter(
            "maid_checkpoint_entities", "Entities written by checkpoints"
        )
        self.checkpoint_failures = self.counter(
            "maid_checkpoint_failures", "Checkpoints that could not be written"
        )
        self.gc_pauses = self.histogram(
            "maid_gc_pause_seconds",
            "Full garbage collections run between ticks (refreeze or deep)",
            ["kind"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )
        self.event_loop = self.gauge(
            "maid_event_loop", "The event loop the server runs on: 1 for it", ["loop"]
        )
        self.sessions = self.gauge(
            "maid_sessions", "Connected sessions, at the login screen or playing", ["state"]
        )
        # maid_commands_total and maid_command_duration_seconds: counted for every
        # command of every player, in plain numbers (see CommandStats).
        self.commands = CommandStats(TICK_BUCKETS)
        self.registry.register(self.commands)

    def watch_sessions(self, sessions: SessionCounts) -> None:
        """Read the session counts from ``sessions`` at scrape time."""
        playing = self.sessions.labels("playing")
        playing.set_function(lambda: len(sessions.playing()))
        login = self.sessions.labels("login")
        login.set_function(lambda: len(sessions.all()) - len(sessions.playing()))

    def watch_events(self, events: EventCounts) -> None:
        """Read the events delivered and the handlers' errors from ``events`` at
        scrape time."""
        self.registry.register(EventStats(events))

    def command_executed(self, cmd: CommandLike, seconds: float) -> None:
        """Count one command run (the command registry's ``on_executed`` hook)."""
        self.commands.record(cmd.category, seconds)

    def _get(
        self,
        kind: type,
        name: str,
        doc: str,
        labels: Sequence[str],
        known: Iterable[LabelValues],
        **kw: Any,
    ) -> Any:
        metric = self._made.get(name)
        if metric is None:
            metric = kind(name, doc, list(labels), registry=self.registry, **kw)
            self._made[name] = metric
        self.preset(metric, known)
        return metric

    @staticmethod
    def preset(metric: Counter | Gauge | Histogram, known: Iterable[LabelValues]) -> None:
        """Create the children for ``known`` label values now, at zero.

        A labelled series only exists once something touches it, so a dashboard
        panel over a fresh server says "No data" where it means 0; every label
        value the code can produce and knows in advance is made here instead.
        """
        for values in known:
            metric.labels(*((values,) if isinstance(values, str) else values))

    def counter(
        self, name: str, doc: str, labels: Sequence[str] = (), known: Iterable[LabelValues] = ()
    ) -> Counter:
        """A counter; the exposed name gets ``_total`` appended by the client library.

        ``known`` lists label values (one string per value for one label, tuples for
        several) exposed at zero from the start; see :meth:`preset`.
        """
        result: Counter = self._get(Counter, name, doc, labels, known)
        return result

    def gauge(
        self, name: str, doc: str, labels: Sequence[str] = (), known: Iterable[LabelValues] = ()
    ) -> Gauge:
        result: Gauge = self._get(Gauge, name, doc, labels, known)
        return result

    def histogram(
        self,
        name: str,
        doc: str,
        labels: Sequence[str] = (),
        buckets: Sequence[float] = Histogram.DEFAULT_BUCKETS,
        known: Iterable[LabelValues] = (),
    ) -> Histogram:
        result: Histogram = self._get(Histogram, name, doc, labels, known, buckets=tuple(buckets))
        return result

    def system_known(self, name: str) -> None:
        """An engine system exists: its duration and error series start at zero."""
        self.preset(self.system_duration, [name])
        self.preset(self.system_errors, [name])

    def category_known(self, category: str) -> None:
        """A command category exists: its command count starts at zero."""
        self.commands.known(category)

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsServer:
    """A tiny asyncio HTTP server for ``GET /metrics`` (no extra dependency)."""

    def __init__(self, metrics: EngineMetrics, host: str = "127.0.0.1", port: int = 9464):
        self.metrics = metrics
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        sock = self._server.sockets[0].getsockname()
        self.host, self.port = sock[0], sock[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
            first = request.split(b"\r\n", 1)[0].decode("latin-1").split()
            if (
                len(first) >= 2
                and first[0] in {"GET", "HEAD"}
                and first[1].split("?")[0]
                in {
                    "/metrics",
                    "/",
                }
            ):
                body = self.metrics.render()
                head = (
                    f"HTTP/1.1 200 OK\r\nContent-Type: {CONTENT_TYPE_LATEST}\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                )
                writer.write(head.encode() + (body if first[0] == "GET" else b""))
            else:
                msg = b"not found\n"
                writer.write(
                    b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n"
                    + f"Content-Length: {len(msg)}\r\nConnection: close\r\n\r\n".encode()
                    + msg
                )
            await writer.drain()
        except (
            TimeoutError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            ConnectionError,
        ):
            pass
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except ConnectionError:
                pass
