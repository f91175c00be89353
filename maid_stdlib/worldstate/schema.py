"""The stat schema of a narrated room: which stats exist, their limits and their words.

A content pack ships it as YAML (or a dict); it is validated once, at load, so a turn
never meets a bad definition. Every error names the stat path a builder would look for
in the YAML (``npcs.gwen.trust: bands overlap at 40``), not pydantic's location tuple.

Paths used at run time (by the model's state block, views and reports) are canonical:

* ``world.<stat>``, ``player.<stat>``, ``npc.<npc_id>.<stat>``
* ``flags.<name>``, ``milestones.<id>``

``npcs.``, ``flag.`` and ``milestone.`` are accepted as aliases of the canonical
section names because models and builders write both.
"""

from __future__ import annotations

import difflib
import itertools
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from maid_engine.content.yamllines import YamlProblem, line_at, read_yaml

Number = int | float
Section = Literal["world", "player", "npc", "flags", "milestones"]
Kind = Literal["stat", "flag", "milestone"]
Comparison = Literal[">", ">=", "<", "<=", "==", "!="]

SECTIONS: tuple[str, ...] = ("world", "player", "npcs", "flags", "milestones")
_ALIASES: dict[str, Section] = {
    "world": "world",
    "player": "player",
    "npc": "npc",
    "npcs": "npc",
    "flags": "flags",
    "flag": "flags",
    "milestones": "milestones",
    "milestone": "milestones",
}


class SchemaError(ValueError):
    """A stat schema failed validation; ``errors`` holds one message per problem."""

    def __init__(
        self, errors: list[str], source: str = "", lines: Sequence[int | None] = ()
    ) -> None:
        self.errors = errors
        self.source = source
        #: The line of each error in the schema's YAML (None where unknown), when
        #: the schema was read from a file.
        self.lines: list[int | None] = [*lines, *([None] * (len(errors) - len(lines)))]
        where = f" ({source})" if source else ""
        super().__init__(f"invalid stat schema{where}:\n  " + "\n  ".join(errors))


def fmt_number(value: Number) -> str:
    """``3`` for 3 and 3.0, ``2.5`` for 2.5: the model and players never see ``3.0``."""
    if isinstance(value, float):
        if value.is_integer():
            return str(int(value))
        return f"{value:g}"
    return str(value)


def _number(value: object) -> Number:
    # A plain validator so a bad value gives one message, not one per union member,
    # and so YAML's `yes` or "10" never sneak in as numbers.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"must be a finite number, got {value!r}")
    return value


def _band(value: object) -> tuple[Number, Number, str]:
    if not isinstance(value, list | tuple) or len(value) != 3 or not isinstance(value[2], str):
        raise ValueError(f"a band is [low, high, label], got {value!r}")
    return (_number(value[0]), _number(value[1]), value[2])


def _identifier(value: str) -> str:
    if (
        not value
        or not value[0].isascii()
        or not value[0].islower()
        or not all(c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in value)
    ):
        raise ValueError("ids are lowercase letters, digits and _, starting with a letter")
    return value


Num = Annotated[Number, PlainValidator(_number)]
Band = Annotated[tuple[Number, Number, str], PlainValidator(_band)]
Id = Annotated[str, AfterValidator(_identifier)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StatDef(_Strict):
    """One numeric stat. Every rule field is optional; the engine enforces each one set."""

    type: Literal["number", "counter"] = "number"
    desc: str = ""
    min: Num | None = None
    max: Num | None = None
    initial: Num | None = None
    max_delta_per_turn: Num | None = None
    cooldown: int = Field(default=0, ge=0, strict=True)
    bands: tuple[Band, ...] = ()
    #: A binder's name (``vitals.hp``): the value lives in the world, not in the room.
    bind: str | None = None

    @model_validator(mode="after")
    def _check(self) -> StatDef:
        problems: list[str] = []
        lo, hi = self.min, self.max
        if lo is not None and hi is not None and lo > hi:
            problems.append(f"min {fmt_number(lo)} is above max {fmt_number(hi)}")
        if self.max_delta_per_turn is not None and self.max_delta_per_turn <= 0:
            problems.append("max_delta_per_turn must be above 0")
        if self.initial is None:
            # 0 pulled into range: a day counter with min 1 starts at 1, hp at 0..100 at 0
            # (which lint_schema then flags as the initial == boundary trap).
            start: Number = 0
            if lo is not None and start < lo:
                start = lo
            if hi is not None and start > hi:
                start = hi
            self.initial = start
        elif lo is not None and self.initial < lo:
            problems.append(f"initial {fmt_number(self.initial)} is below min {fmt_number(lo)}")
        elif hi is not None and self.initial > hi:
            problems.append(f"initial {fmt_number(self.initial)} is above max {fmt_number(hi)}")
        problems += _band_problems(self.bands, lo, hi)
        if problems:
            raise ValueError("\n".join(problems))
        return self

    @property
    def start(self) -> Number:
        """The initial value (always set after validation)."""
        assert self.initial is not None
        return self.initial

    @property
    def is_counter(self) -> bool:
        return self.type == "counter"

    @cached_property
    def integral(self) -> bool:
        """Whole-number stat: every number in its definition is an int.

        Fractional changes to it are rounded, so hp never reads 57.5.
        """
        nums = [self.min, self.max, self.initial, self.max_delta_per_turn]
        nums += [n for band in self.bands for n in band[:2]]
        return all(n is None or isinstance(n, int) for n in nums)


def _band_problems(
    bands: tuple[tuple[Number, Number, str], ...], lo: Number | None, hi: Number | None
) -> list[str]:
    problems: list[str] = []
    if not bands:
        return problems
    for b_lo, b_hi, label in bands:
        if b_lo >= b_hi:
            problems.append(f"band [{fmt_number(b_lo)}, {fmt_number(b_hi)}] is empty or reversed")
        if not label.strip():
            problems.append(f"band [{fmt_number(b_lo)}, {fmt_number(b_hi)}] has no label")
    ordered = sorted(bands, key=lambda b: (b[0], b[1]))
    for prev, cur in itertools.pairwise(ordered):
        if cur[0] < prev[1]:
            problems.append(f"bands overlap at {fmt_number(cur[0])}")
        elif cur[0] > prev[1]:
            problems.append(
                f"bands leave a gap between {fmt_number(prev[1])} and {fmt_number(cur[0])}"
            )
    first, last = ordered[0][0], max(b[1] for b in ordered)
    if lo is not None and first > lo:
        problems.append(f"bands leave a gap between {fmt_number(lo)} (min) and {fmt_number(first)}")
    if lo is not None and first < lo:
        problems.append(f"bands start at {fmt_number(first)}, below min {fmt_number(lo)}")
    if hi is not None and last < hi:
        problems.append(f"bands leave a gap between {fmt_number(last)} and {fmt_number(hi)} (max)")
    if hi is not None and last > hi:
        problems.append(f"bands end at {fmt_number(last)}, above max {fmt_number(hi)}")
    return problems


class NPCDef(_Strict):
    """A dedicated NPC with its own stats block (no shared template)."""

    name: str = ""
    desc: str = ""
    keys: list[str] = Field(default_factory=list)
    stats: dict[Id, StatDef] = Field(default_factory=dict)

    @field_validator("keys", mode="before")
    @classmethod
    def _split_keys(cls, value: object) -> object:
        # The seed writes trigger keys as one comma-separated string.
        if isinstance(value, str):
            return [k.strip() for k in value.split(",") if k.strip()]
        return value


# -- preconditions: `requires:` on flags and milestones ---------------------------------

_COMPARE: dict[str, Callable[[Number, Number], bool]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le,
    "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
_COMPARISON = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*$")
_HOW = '(write an operator (>, >=, <, <=, ==, !=) and a number in quotes, e.g. ">= 1")'


@dataclass(frozen=True)
class Condition:
    """One precondition: ``flags.has_key = true`` or ``npc.gwen.health >= 1``.

    ``path`` is canonical. A boolean condition (on a flag or a milestone) has ``op``
    ``"=="`` and a bool ``value``; a numeric one (on a stat) a comparison and a number.
    """

    path: str
    op: Comparison
    value: bool | Number

    @property
    def is_boolean(self) -> bool:
        return isinstance(self.value, bool)

    def holds(self, current: bool | Number) -> bool:
        if self.is_boolean:
            return isinstance(current, bool) and current == self.value
        if isinstance(current, bool):
            return False
        assert not isinstance(self.value, bool)
        return _COMPARE[self.op](current, self.value)

    def text(self) -> str:
        if isinstance(self.value, bool):
            return f"{self.path} = {str(self.value).lower()}"
        return f"{self.path} {self.op} {fmt_number(self.value)}"


def parse_condition(path: str, raw: object) -> Condition:
    """One ``requires`` entry as written in the YAML; ``ValueError`` naming the path if
    it is not a condition. Whether the path exists is checked by :class:`StatSchema`."""
    parts = split_path(path) if isinstance(path, str) else None
    if parts is None:
        raise ValueError(
            f"{path!r} is not a world-state path (world.<stat>, player.<stat>, "
            "npc.<id>.<stat>, flags.<name>, milestones.<id>)"
        )
    section, npc, name = parts
    where = canonical(section, name, npc)
    if isinstance(raw, bool):
        return Condition(where, "==", raw)
    if isinstance(raw, int | float):
        raise ValueError(
            f"{where}: a bare number {fmt_number(raw)} is ambiguous; write a comparison "
            f'such as ">= {fmt_number(raw)}" or "== {fmt_number(raw)}"'
        )
    if isinstance(raw, str):
        found = _COMPARISON.match(raw.replace("\u2212", "-"))
        if found is not None:
            text = found.group(2)
            number: Number = float(text) if "." in text else int(text)
            op: Comparison = found.group(1)  # type: ignore[assignment]
            return Condition(where, op, number)
        if raw.strip().lower() in ("true", "false"):
            raise ValueError(f"{where}: write true or false without quotes, not {raw!r}")
        raise ValueError(f"{where}: {raw!r} is not a comparison {_HOW}")
    raise ValueError(f"{where}: {raw!r} is neither true/false nor a comparison {_HOW}")


def _parse_requires(value: object) -> dict[str, bool | Number | str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(
            "requires is a mapping of path: condition, e.g. "
            '{flags.has_key: true, npc.gwen.health: ">= 1"}'
        )
    problems: list[str] = []
    out: dict[str, bool | Number | str] = {}
    for path, raw in value.items():
        try:
            cond = parse_condition(path, raw)
        except ValueError as err:
            problems.append(str(err))
            continue
        if cond.path in out:
            problems.append(f"{cond.path}: named twice")
            continue
        out[cond.path] = raw
    if problems:
        raise ValueError("\n".join(problems))
    return out


class _Gated(_Strict):
    """A flag or milestone: ``requires`` (declared last by each, so error messages
    list it after the fields builders know) maps a canonical path to ``true``/``false``
    or a comparison string."""

    if TYPE_CHECKING:  # a field of each subclass, declared there for its position
        requires: dict[str, Any]

    @field_validator("requires", mode="before", check_fields=False)
    @classmethod
    def _check_requires(cls, value: object) -> dict[str, bool | Number | str]:
        return _parse_requires(value)

    @cached_property
    def conditions(self) -> tuple[Condition, ...]:
        """The parsed ``requires`` (every one must hold)."""
        return tuple(parse_condition(p, raw) for p, raw in self.requires.items())


class FlagDef(_Gated):
    """A two-way on/off boolean; no clamp, no cooldown.

    ``requires`` gates the flag leaving its ``initial`` value (turning ``has_key`` on);
    going back to ``initial`` is always allowed.
    """

    desc: str = ""
    initial: bool = Field(default=False, strict=True)
    bind: str | None = None
    requires: dict[str, Any] = Field(default_factory=dict)


class FactSignalDef(_Strict):
    """The story signal a world fact raises once it holds: what the deed changed that
    quest generation can build on (Gwen freed: she and Voss make common cause).

    ``npcs`` are the pack's NPC ids involved, the one a quest would come from first.
    A ``context`` value naming one of them by id (``gwen``, or a list of such) is read
    as that NPC; other values are taken as written.
    """

    type: str
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    npcs: list[Id] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)


class MilestoneDef(_Gated):
    """A sticky story objective: its description and, optionally, its preconditions."""

    desc: str = ""
    bind: str | None = None
    #: Bound to a world fact: what the village hears once it is reached, ``{actor}``
    #: for who did it ("{actor} freed Gwen from the bandits' cellar.").
    news: str = ""
    #: NPC ids of the pack the news is told to, besides the NPCs who saw it.
    told_to: list[Id] = Field(default_factory=list)
    #: Bound to a world fact: the story signal it raises while it holds.
    signal: FactSignalDef | None = None
    requires: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _signal_needs_a_fact(self) -> MilestoneDef:
        if self.signal is not None and self.bind is None:
            # An unbound milestone is the room's own: nothing outside it could read it.
            raise ValueError("signal: only a milestone bound to a world fact raises one")
        return self


@dataclass(frozen=True)
class Target:
    """What a canonical path names in the schema."""

    path: str
    kind: Kind
    section: Section
    name: str
    npc: str | None = None
    stat: StatDef | None = None
    flag: FlagDef | None = None
    milestone: MilestoneDef | None = None


def split_path(path: str) -> tuple[Section, str | None, str] | None:
    """``"npcs.gwen.trust"`` -> ``("npc", "gwen", "trust")``; ``None`` if malformed."""
    parts = path.strip().strip("`'\" ").lower().split(".")
    section = _ALIASES.get(parts[0]) if parts else None
    if section is None:
        return None
    if section == "npc":
        if len(parts) != 3 or not parts[1] or not parts[2]:
            return None
        return section, parts[1], parts[2]
    if len(parts) != 2 or not parts[1]:
        return None
    return section, None, parts[1]


def canonical(section: Section, name: str, npc: str | None = None) -> str:
    return f"npc.{npc}.{name}" if section == "npc" else f"{section}.{name}"


class StatSchema(_Strict):
    """A room's whole schema. ``StatSchema()`` is the empty schema: the feature is off."""

    world: dict[Id, StatDef] = Field(default_factory=dict)
    player: dict[Id, StatDef] = Field(default_factory=dict)
    npcs: dict[Id, NPCDef] = Field(default_factory=dict)
    flags: dict[Id, FlagDef] = Field(default_factory=dict)
    milestones: dict[Id, MilestoneDef] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_requires(self) -> StatSchema:
        problems = _requires_problems(self)
        if problems:
            # Each line already names its flag or milestone (see _messages).
            raise ValueError("\n".join(problems))
        return self

    @property
    def is_empty(self) -> bool:
        return not self._index

    @cached_property
    def _index(self) -> dict[str, Target]:
        index: dict[str, Target] = {}
        for name, stat in self.world.items():
            index[f"world.{name}"] = Target(f"world.{name}", "stat", "world", name, stat=stat)
        for name, stat in self.player.items():
            index[f"player.{name}"] = Target(f"player.{name}", "stat", "player", name, stat=stat)
        for npc_id, npc in self.npcs.items():
            for name, stat in npc.stats.items():
                path = f"npc.{npc_id}.{name}"
                index[path] = Target(path, "stat", "npc", name, npc=npc_id, stat=stat)
        for name, flag in self.flags.items():
            index[f"flags.{name}"] = Target(f"flags.{name}", "flag", "flags", name, flag=flag)
        for name, ms in self.milestones.items():
            path = f"milestones.{name}"
            index[path] = Target(path, "milestone", "milestones", name, milestone=ms)
        return index

    def resolve(self, path: str) -> Target | None:
        """The schema entry a (possibly aliased, oddly cased) path names, or ``None``."""
        parts = split_path(path)
        if parts is None:
            return None
        section, npc, name = parts
        return self._index.get(canonical(section, name, npc))

    def targets(self) -> Iterator[Target]:
        """Every path in schema order: world, player, npcs, flags, milestones."""
        return iter(self._index.values())

    def stat_targets(self, npcs: bool = True) -> Iterator[Target]:
        return (t for t in self._index.values() if t.kind == "stat" and (npcs or not t.npc))

    def paths(self) -> list[str]:
        return list(self._index)

    def npc_name(self, npc_id: str) -> str:
        npc = self.npcs.get(npc_id)
        return npc.name if npc and npc.name else npc_id.replace("_", " ").title()


def _never_holds(cond: Condition, stat: StatDef) -> bool:
    """A comparison no value in ``[min, max]`` satisfies (``player.hp > 100`` of 100)."""
    lo, hi, v = stat.min, stat.max, cond.value
    assert not isinstance(v, bool)
    return {
        ">": hi is not None and v >= hi,
        ">=": hi is not None and v > hi,
        "<": lo is not None and v <= lo,
        "<=": lo is not None and v < lo,
        "==": (lo is not None and v < lo) or (hi is not None and v > hi),
        "!=": lo is not None and lo == hi == v,
    }[cond.op]


def _gates(schema: StatSchema) -> dict[str, tuple[_Gated, bool]]:
    """Every flag and milestone by path, with the value it starts at (pending = false)."""
    gates: dict[str, tuple[_Gated, bool]] = {}
    for name, flag in schema.flags.items():
        gates[f"flags.{name}"] = (flag, flag.initial)
    for name, ms in schema.milestones.items():
        gates[f"milestones.{name}"] = (ms, False)
    return gates


def _requires_problems(schema: StatSchema) -> list[str]:
    """Every ``requires`` path must name something of the schema, with a condition of
    its kind, that can hold; and no chain of preconditions may wait on itself."""
    problems: list[str] = []
    gates = _gates(schema)
    # path -> the flags/milestones it waits on to move first (for the loop check).
    waits: dict[str, list[str]] = {}
    for path, (gated, _start) in gates.items():
        where = f"{path}.requires"
        for cond in gated.conditions:
            target = schema.resolve(cond.path)
            if target is None:
                close = difflib.get_close_matches(cond.path, schema.paths(), n=1, cutoff=0.7)
                hint = f" (did you mean {close[0]}?)" if close else ""
                problems.append(f"{where}: {cond.path} is not in the schema{hint}")
                continue
            if cond.path == path:
                problems.append(f"{where}: {path} cannot require itself")
                continue
            if target.stat is not None:
                if cond.is_boolean:
                    problems.append(
                        f'{where}: {cond.path} is a number; compare it, e.g. ">= 1", '
                        f"not {str(cond.value).lower()}"
                    )
                elif _never_holds(cond, target.stat):
                    lo, hi = target.stat.min, target.stat.max
                    span = f"from {fmt_number(lo) if lo is not None else '-inf'} to " + (
                        fmt_number(hi) if hi is not None else "inf"
                    )
                    problems.append(
                        f"{where}: {cond.text()} can never hold ({cond.path} runs {span})"
                    )
                continue
            if not cond.is_boolean:
                problems.append(
                    f"{where}: {cond.path} is true or false; write true or false, "
                    f"not {cond.op} {fmt_number(cond.value)}"
                )
                continue
            if cond.value != gates[cond.path][1]:
                waits.setdefault(path, []).append(cond.path)
    problems += _loops(waits)
    return problems


def _find_loop(
    node: str, waits: dict[str, list[str]], stack: list[str], done: set[str]
) -> list[str] | None:
    """Depth-first from ``node``: the first chain that comes back to itself, or None."""
    if node in stack:
        return [*stack[stack.index(node) :], node]
    if node in done:
        return None
    stack.append(node)
    for nxt in waits.get(node, ()):
        loop = _find_loop(nxt, waits, stack, done)
        if loop is not None:
            return loop
    stack.pop()
    done.add(node)
    return None


def _loops(waits: dict[str, list[str]]) -> list[str]:
    """Chains of preconditions that wait on themselves: none of them can ever move."""
    problems: list[str] = []
    done: set[str] = set()
    for start in waits:
        loop = _find_loop(start, waits, [], done)
        if loop is not None:
            done.update(loop)
            problems.append(
                f"{loop[0]}.requires: the preconditions wait on each other "
                f"({' -> '.join(loop)}); none of them can ever be reached"
            )
    return problems


_FIELDS: dict[str, type[BaseModel]] = {
    "stat": StatDef,
    "npc": NPCDef,
    "flag": FlagDef,
    "milestone": MilestoneDef,
}


def _loc_kind(loc: list[str | int]) -> str:
    """Which model a location points into, to list the keys it allows."""
    if len(loc) <= 1:
        return "schema"
    if loc[0] in ("world", "player") and len(loc) == 2:
        return "stat"
    if loc[0] == "npcs":
        return "npc" if len(loc) == 2 else "stat"
    return {"flags": "flag", "milestones": "milestone"}.get(str(loc[0]), "schema")


def _render_path(loc: list[str | int]) -> str:
    out = ""
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif i == 2 and loc[0] == "npcs" and part == "stats":
            # `npcs.gwen.trust` is how builders and the model name it; `stats` is noise.
            continue
        else:
            out += ("." if out else "") + part
    return out


def _messages(err: ValidationError) -> list[str]:
    return [msg for msg, _ in _located_messages(err)]


def _located_messages(err: ValidationError) -> list[tuple[str, list[str | int]]]:
    """Each problem, and the path of the YAML value it is about (for its line)."""
    out: list[tuple[str, list[str | int]]] = []
    for e in err.errors():
        loc: list[str | int] = list(e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        if loc and loc[-1] == "[key]":
            loc = loc[:-1]
        if e["type"] == "extra_forbidden":
            key, loc = loc[-1], loc[:-1]
            kind = _loc_kind(loc)
            allowed = SECTIONS if kind == "schema" else tuple(_FIELDS[kind].model_fields)
            where = _render_path(loc) or "schema"
            msg = f"{where}: unknown key {key!r} (allowed: {', '.join(allowed)})"
            out.append((msg, [*loc, key]))
            continue
        if e["type"] == "missing":
            msg = "required"
        if not loc and e["type"] == "value_error":
            # The whole-schema check (preconditions): each line names its own path.
            out.extend((line, _path_of(line)) for line in msg.split("\n"))
            continue
        where = _render_path(loc) or "schema"
        out.extend((f"{where}: {line}", loc) for line in msg.split("\n"))
    return out


def _path_of(message: str) -> list[str | int]:
    """ "milestones.x.requires: ..." -> the YAML path ``["milestones", "x", "requires"]``."""
    head = message.partition(":")[0].strip()
    return [p for p in head.split(".") if p] if " " not in head else []


def _yaml_path(data: Any, loc: list[str | int]) -> list[str | int]:
    """``loc`` as it is written in the YAML: "npcs.gwen.trust" is under ``stats``."""
    if len(loc) >= 3 and loc[0] == "npcs" and loc[2] != "stats":
        npcs = data.get("npcs") if isinstance(data, Mapping) else None
        npc = npcs.get(loc[1]) if isinstance(npcs, Mapping) else None
        if isinstance(npc, Mapping) and loc[2] not in npc and "stats" in npc:
            return [*loc[:2], "stats", *loc[2:]]
    return loc


def _partial_problems(data: Mapping[str, Any]) -> list[str]:
    """The preconditions of a schema whose entries did not all validate: checked
    against the entries that did, so one broken stat does not hide a milestone
    that requires something the schema never had. A precondition on a broken
    entry is not reported again (its own problem says what is wrong)."""
    good: dict[str, dict[str, Any]] = {}
    broken: set[str] = set()
    for section in SECTIONS:
        raw = data.get(section)
        if not isinstance(raw, Mapping):
            if raw is not None:
                broken.add(section)
            continue
        adapter = _SECTION_ADAPTERS[section]
        kept: dict[str, Any] = {}
        for name, entry in raw.items():
            try:
                kept.update(adapter.validate_python({name: entry}))
            except ValidationError:
                broken.add(f"npc.{name}" if section == "npcs" else f"{section}.{name}")
        good[section] = kept
    schema = StatSchema.model_construct(None, **good)
    problems = []
    for line in _requires_problems(schema):
        missing = re.search(r": (\S+) is not in the schema", line)
        target = split_path(missing.group(1)) if missing else None
        if target is not None:
            section, npc, name = target
            canon = canonical(section, name, npc)
            if any(canon == b or canon.startswith(b + ".") or section in broken for b in broken):
                continue
        problems.append(line)
    return problems


#: Each section's entries on their own, to tell the sound entries of a broken schema.
_SECTION_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    section: TypeAdapter(StatSchema.model_fields[section].annotation or Any) for section in SECTIONS
}


def load_schema(data: Mapping[str, Any] | None, source: str = "") -> StatSchema:
    """Validate a schema from a dict (a content pack's YAML data).

    ``None`` or ``{}`` is the empty schema. Raises :class:`SchemaError` listing every
    problem found, each prefixed by its stat path.
    """
    if data is None:
        return StatSchema()
    if not isinstance(data, Mapping):
        raise SchemaError(
            [f"schema: must be a mapping of sections ({', '.join(SECTIONS)})"], source
        )
    try:
        return StatSchema.model_validate(dict(data))
    except ValidationError as err:
        located = _located_messages(err)
        if not any(not e["loc"] and e["type"] == "value_error" for e in err.errors()):
            # Fields failed, so the whole-schema check never ran: run it on what
            # is sound, so every layer is reported in one pass.
            located += [(msg, _path_of(msg)) for msg in _partial_problems(data)]
        messages = list(dict.fromkeys(msg for msg, _ in located))
        where = {msg: loc for msg, loc in reversed(located)}
        lines = [line_at(data, _yaml_path(data, where[m])) if where[m] else None for m in messages]
        raise SchemaError(messages, source, lines) from None


def load_schema_file(path: str | Path) -> StatSchema:
    """Read and validate a YAML schema file; each problem knows its line."""
    path = Path(path)
    try:
        data = read_yaml(path)
    except YamlProblem as err:
        raise SchemaError([f"not valid YAML: {err}"], str(path), [err.line]) from None
    return load_schema(data, source=str(path))
