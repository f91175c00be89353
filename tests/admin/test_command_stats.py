"""The command counter and duration histogram, kept in plain numbers, expose what
prometheus_client's own Counter and Histogram would."""

from __future__ import annotations

import re

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from maid_engine.metrics import TICK_BUCKETS, EngineMetrics


class _Cmd:
    def __init__(self, category: str) -> None:
        self.category = category


def _without_created(text: bytes) -> list[str]:
    return [line for line in text.decode().splitlines() if "_created" not in line]


def test_command_counts_and_durations_read_as_the_librarys() -> None:
    metrics = EngineMetrics()
    metrics.category_known("admin")
    library = CollectorRegistry()
    counter = Counter("maid_commands", "Commands executed", ["category"], registry=library)
    histogram = Histogram(
        "maid_command_duration_seconds",
        "Wall time of one command",
        buckets=TICK_BUCKETS,
        registry=library,
    )
    counter.labels("admin")
    # Values on a bound belong to its bucket (le), past the last to +Inf only.
    runs = [("general", 0.0003), ("general", 0.0005), ("movement", 0.001)]
    runs += [("general", 0.02), ("combat", 1.0), ("general", 7.5), ("general", 0.0)]
    for category, seconds in runs:
        metrics.command_executed(_Cmd(category), seconds)
        counter.labels(category).inc()
        histogram.observe(seconds)
    ours = [
        line
        for line in _without_created(metrics.render())
        if re.match(r"(# (HELP|TYPE) )?maid_command", line)
    ]
    assert ours == _without_created(generate_latest(library))
    assert metrics.commands.count("general") == 5
    assert metrics.commands.count("admin") == 0
