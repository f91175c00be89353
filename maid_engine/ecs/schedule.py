"""The tick's schedule: named phases in one ordered list, and the resolver.

A system says where it belongs instead of carrying a magic number::

    class ConsequenceSystem(System):
        phase = "consequences"

    class RespawnSystem(System):
        phase = "combat"
        after = (CombatSystem,)

Phases run in the order of :data:`PHASES`. Inside a phase the order is a
topological sort of the ``after``/``before`` declarations (a target is a System
class, matching its instances and subclasses, or a system name); systems the
declarations leave free are ordered by their ``order`` sort key (lower first),
then by registration order. A declaration that crosses phases must agree with the
phase order. Every target must be registered: a declared dependency on a system
that is not there is a mistake to report, not an order to guess.

Anything wrong (no phase, an unknown phase, an unknown target, a cycle, a
declaration against the phase order) raises :class:`ScheduleError` naming the
systems, when the engine first resolves its systems at start.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from maid_engine.ecs.system import System, SystemRef

#: The phases of one tick, in run order.
#:
#: * ``combat``: bodies -- regeneration, fights, deaths and respawns.
#: * ``living``: NPCs follow their schedules, pursue goals, gossip.
#: * ``quests``: quest timers and lifecycle (expiry, failure).
#: * ``story``: situations in the world become story signals.
#: * ``generation``: story signals become offered quests.
#: * ``consequences``: quest outcomes change the living world.
#: * ``grounding``: open quests are checked against the changed world.
#: * ``persistence``: runtime state is folded into what the checkpoint writes.
PHASES: tuple[str, ...] = (
    "combat",
    "living",
    "quests",
    "story",
    "generation",
    "consequences",
    "grounding",
    "persistence",
)


class ScheduleError(Exception):
    """The declared schedule cannot be resolved; the message names the systems."""


def _target_name(target: SystemRef) -> str:
    return target if isinstance(target, str) else target.__name__


def _matches(system: System, target: SystemRef) -> bool:
    if isinstance(target, str):
        return system.name == target or type(system).__name__ == target
    return isinstance(system, target)


def resolve_order(systems: Sequence[System]) -> list[System]:
    """``systems`` (in registration order) in run order; ScheduleError if impossible."""
    problems: list[str] = []
    phase_of: dict[int, int] = {}
    for i, system in enumerate(systems):
        phase = system.phase
        if "priority" in vars(type(system)) or "priority" in vars(system):
            problems.append(
                f"{system.name} declares a priority: tick order is declared with "
                f"phase (one of {', '.join(PHASES)}) and after/before"
            )
        elif not phase:
            problems.append(f"{system.name} declares no phase (one of {', '.join(PHASES)})")
        elif phase not in PHASES:
            problems.append(
                f"{system.name} declares the unknown phase {phase!r} (phases: {', '.join(PHASES)})"
            )
        else:
            phase_of[i] = PHASES.index(phase)
    if problems:
        raise ScheduleError("; ".join(problems))

    # edges[a] = the systems that must run after a (indices into ``systems``).
    edges: dict[int, set[int]] = {i: set() for i in range(len(systems))}
    for i, system in enumerate(systems):
        for word, targets in (("after", system.after), ("before", system.before)):
            for target in targets:
                found = [j for j, other in enumerate(systems) if j != i and _matches(other, target)]
                if not found:
                    problems.append(
                        f"{system.name} runs {word} {_target_name(target)}, which is not registered"
                    )
                for j in found:
                    first, then = (j, i) if word == "after" else (i, j)
                    if phase_of[first] > phase_of[then]:
                        problems.append(
                            f"{system.name} runs {word} {systems[j].name}, but phase "
                            f"{systems[then].phase!r} of {systems[then].name} comes before "
                            f"phase {systems[first].phase!r} of {systems[first].name}"
                        )
                    elif phase_of[first] == phase_of[then]:
                        edges[first].add(then)
    if problems:
        raise ScheduleError("; ".join(problems))

    waiting = {i: 0 for i in range(len(systems))}
    for successors in edges.values():
        for j in successors:
            waiting[j] += 1
    ready = [(phase_of[i], systems[i].order, i) for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    ordered: list[int] = []
    while ready:
        _, _, i = heapq.heappop(ready)
        ordered.append(i)
        for j in edges[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, (phase_of[j], systems[j].order, j))
    if len(ordered) < len(systems):
        cycle = _find_cycle(edges, {i for i, n in waiting.items() if n > 0})
        names = " -> ".join(systems[i].name for i in cycle)
        raise ScheduleError(f"the after/before declarations form a cycle: {names}")
    return [systems[i] for i in ordered]


def _find_cycle(edges: Mapping[int, set[int]], stuck: set[int]) -> list[int]:
    """One cycle among the ``stuck`` nodes, closed (first node repeated at the end).

    Every stuck node has a stuck predecessor, so walking predecessors from any of
    them must revisit a node.
    """
    preds: dict[int, int] = {}
    for a, targets in edges.items():
        for b in targets:
            if a in stuck and b in stuck:
                preds.setdefault(b, a)
    node = min(stuck)
    seen: list[int] = []
    while node not in seen:
        seen.append(node)
        node = preds[node]
    cycle = seen[seen.index(node) :]
    cycle.reverse()
    # Start at the system registered first, so the message is stable.
    start = cycle.index(min(cycle))
    cycle = cycle[start:] + cycle[:start]
    return [*cycle, cycle[0]]


@dataclass(frozen=True)
class ScheduleRow:
    """One system of a resolved schedule, as ``maid systems`` prints it."""

    phase: str
    system: str
    pack: str
    after: tuple[str, ...]
    before: tuple[str, ...]

    @property
    def constraints(self) -> str:
        parts = []
        if self.after:
            parts.append("after " + ", ".join(self.after))
        if self.before:
            parts.append("before " + ", ".join(self.before))
        return "; ".join(parts)


def schedule_rows(
    ordered: Sequence[System], packs: Mapping[int, str] | None = None
) -> list[ScheduleRow]:
    """Rows for resolved ``ordered`` systems; ``packs`` maps ``id(system)`` to its pack."""
    packs = packs or {}
    return [
        ScheduleRow(
            phase=s.phase,
            system=s.name,
            pack=packs.get(id(s), ""),
            after=tuple(_target_name(t) for t in s.after),
            before=tuple(_target_name(t) for t in s.before),
        )
        for s in ordered
    ]


def render_text(table: Sequence[ScheduleRow]) -> str:
    """An aligned plain-text table; phases without systems are listed as empty."""
    lines: list[tuple[str, str, str, str]] = [("phase", "system", "pack", "after / before")]
    for phase in PHASES:
        mine = [r for r in table if r.phase == phase]
        if not mine:
            lines.append((phase, "-", "", ""))
        lines.extend((r.phase, r.system, r.pack or "-", r.constraints) for r in mine)
    widths = [max(len(line[k]) for line in lines) for k in range(3)]
    return "\n".join(
        "  ".join([*(cell.ljust(widths[k]) for k, cell in enumerate(line[:3])), line[3]]).rstrip()
        for line in lines
    )


#: The markers around the generated block in docs/architecture.md.
MARKDOWN_BEGIN = "<!-- systems:begin (generated by `maid systems --markdown`) -->"
MARKDOWN_END = "<!-- systems:end -->"


def render_markdown(table: Sequence[ScheduleRow]) -> str:
    """The marked Markdown block docs/architecture.md carries (a test compares them)."""
    out = [
        MARKDOWN_BEGIN,
        "",
        "| # | phase | system | pack | after / before |",
        "|---|---|---|---|---|",
    ]
    n = 0
    for phase in PHASES:
        mine = [r for r in table if r.phase == phase]
        if not mine:
            out.append(f"| | {phase} | (none) | | |")
        for r in mine:
            n += 1
            out.append(f"| {n} | {r.phase} | {r.system} | {r.pack} | {r.constraints} |")
    out += ["", MARKDOWN_END]
    return "\n".join(out)
