"""The quest economy's acceptance check: several seeds, one table.

``maid simulate --acceptance`` runs ``--days`` game days (7) with ``--bots``
players (4) on each seed of ``--seeds`` (1-10) and checks, per seed:

=================  ================================================================
column             passes when
=================  ================================================================
``per_day``        every game day had 2-5 generated quests
``grounded``       every quest was grounded at generation and at each acceptance
``chain``          a chain of depth >= 2 emerged
``variety``        no archetype three times in a row
``archetypes``     every registered archetype appeared
``short``          at least one quest ended in partial success or failed (expired)
``feasible``       every quest was completed by a bot of the right level (or ended as
                   its bot meant it to)
``rejections``     fewer than half of the builds were rejected
``givers``         no giver gave more than 30% of a day's quests (one always allowed)
=================  ================================================================

A seed passes when every column does; the check passes when every seed does.
Each run is the same as ``maid simulate --seed S`` with those options, so a
failing seed is read with its own report (``--json``, ``--trace``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from classic_rpg.simulate.runner import SimulationOptions, run_simulation

__all__ = ["CRITERIA", "DEFAULT_SEEDS", "SeedResult", "criteria", "run_acceptance", "table"]

DEFAULT_SEEDS = tuple(range(1, 11))
MAX_REJECTION_RATE = 0.5
#: Outcomes of a quest that did not end in full success.
SHORT_OUTCOMES = frozenset({"partial_success", "failed", "expired"})


def _short(report: dict[str, Any]) -> bool:
    return any(report["outcomes"].get(k, 0) > 0 for k in SHORT_OUTCOMES)


def _rejections(report: dict[str, Any]) -> bool:
    rate = report["rejections"]["rejection_rate"]
    return rate is None or rate < MAX_REJECTION_RATE


#: column -> whether a report passes it
CRITERIA: dict[str, Callable[[dict[str, Any]], bool]] = {
    "per_day": lambda r: bool(r["targets"]["quests_per_day"]),
    "grounded": lambda r: bool(r["targets"]["grounded"]),
    "chain": lambda r: bool(r["targets"]["chain_depth"]),
    "variety": lambda r: bool(r["targets"]["variety"]),
    "archetypes": lambda r: not r["variety"]["missing_archetypes"],
    "short": _short,
    "feasible": lambda r: bool(r["targets"]["feasibility"]),
    "rejections": _rejections,
    "givers": lambda r: bool(r["targets"]["givers_spread"]),
}


def criteria(report: dict[str, Any]) -> dict[str, bool]:
    """Each acceptance column for one simulation report."""
    return {name: check(report) for name, check in CRITERIA.items()}


@dataclass(frozen=True)
class SeedResult:
    seed: int
    checks: dict[str, bool]
    per_day: list[int]
    rejection_rate: float | None
    missing_archetypes: list[str]
    max_chain_depth: int
    seconds: float

    @property
    def passed(self) -> bool:
        return all(self.checks.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "passed": self.passed,
            "checks": self.checks,
            "per_day": self.per_day,
            "rejection_rate": self.rejection_rate,
            "missing_archetypes": self.missing_archetypes,
            "max_chain_depth": self.max_chain_depth,
            "seconds": self.seconds,
        }


def result_of(seed: int, report: dict[str, Any]) -> SeedResult:
    return SeedResult(
        seed,
        criteria(report),
        list(report["quests"]["per_game_day"]),
        report["rejections"]["rejection_rate"],
        list(report["variety"]["missing_archetypes"]),
        int(report["chains"]["max_depth"]),
        round(float(report["simulation"].get("wall_seconds", 0.0)), 1),
    )


async def run_acceptance(
    options: SimulationOptions,
    seeds: Sequence[int] = DEFAULT_SEEDS,
    progress: Callable[[SeedResult], None] | None = None,
) -> list[SeedResult]:
    """One simulation per seed, in turn (``options`` but for the seed)."""
    results = []
    for seed in seeds:
        report = await run_simulation(replace(options, seed=seed, progress=False))
        result = result_of(seed, report)
        results.append(result)
        if progress is not None:
            progress(result)
    return results


def row(result: SeedResult) -> str:
    marks = " ".join(f"{'ok' if ok else '--':<{len(name)}}" for name, ok in result.checks.items())
    rate = "-" if result.rejection_rate is None else f"{result.rejection_rate:.0%}"
    return (
        f"{result.seed:>5} {marks}  {'PASS' if result.passed else 'FAIL'}  "
        f"{result.per_day} rejected {rate}"
        + (f"; missing {', '.join(result.missing_archetypes)}" if result.missing_archetypes else "")
    )


def header() -> str:
    return f"{'seed':>5} " + " ".join(CRITERIA) + "  verdict"


def table(results: Sequence[SeedResult]) -> str:
    """The acceptance table, and a last line per column: how many seeds passed it."""
    lines = [header(), *(row(r) for r in results)]
    counts = " ".join(f"{sum(r.checks[name] for r in results):<{len(name)}}" for name in CRITERIA)
    passed = sum(r.passed for r in results)
    lines.append(f"{'seeds':>5} {counts}  {passed}/{len(results)} passed")
    return "\n".join(lines)
