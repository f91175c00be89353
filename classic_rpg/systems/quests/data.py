"""Hand-authored quests in content-pack data.

Any loaded pack may ship ``quests.yaml`` and/or ``quests/*.yaml`` next to its
``pack.py``; the QuestSystem reads them at start-up. References use the world
data's keys (local to the pack, or ``pack:key``)::

    quests:
      - id: road-scouts
        title: Trouble on the Road
        giver: voss                      # an NPC entry (one instance) -> its entity
        objectives:
          - id: kill-scout
            type: kill
            description: Kill a bandit scout on the Old Trade Road.
            npc_template: bandit_scout   # any instance of the entry
          - {id: report, type: talk, npc: voss, order: 1, description: Report to Voss.}
        rewards: {experience: 120, gold: 25, items: [rusty_sword]}

Problems are collected, not raised one by one, as ``file: quest 'id': field: problem``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from classic_rpg.systems.quests.models import Quest
from maid_engine.content.yamllines import YamlProblem, line_at, line_of, read_yaml
from maid_engine.ports import PacksPort, ServicesPort
from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.world.components import data_uuid
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.schema import NpcSpec

if TYPE_CHECKING:
    from maid_engine.content import PackContext

FILE = "quests.yaml"
FOLDER = "quests"


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectiveSpec(_Spec):
    id: str
    type: ObjectiveType
    description: str
    target_name: str = ""
    #: One NPC entry (its single spawned instance).
    npc: str | None = None
    #: Any NPC built from this entry.
    npc_template: str | None = None
    keyword: str | None = None
    item: str | None = None
    room: str | None = None
    count: int = 1
    optional: bool = False
    order: int = 0
    hint: str = ""
    time_limit_seconds: float | None = None
    watch: list[str] = Field(default_factory=list)
    #: FACT: the world fact to make true (a narrated room's milestone bound to it).
    fact: str | None = None
    #: TALK: what the NPC says or does once the step is done, in place of its greeting.
    reply: str = ""


class RewardSpec(_Spec):
    experience: int = 0
    gold: int = 0
    items: list[str] = Field(default_factory=list)


class QuestSpec(_Spec):
    id: str
    title: str
    summary: str = ""
    description: str = ""
    level: int = 1
    giver: str | None = None
    turn_in: str | None = None
    accept_dialogue: str = ""
    progress_dialogue: str = ""
    complete_dialogue: str = ""
    objectives: list[ObjectiveSpec]
    rewards: RewardSpec = Field(default_factory=RewardSpec)
    time_limit_hours: float | None = None
    estimated_minutes: float | None = None
    repeatable: bool = False
    partial_turn_in: bool = False
    #: individual (default), shared_credit or competitive: see docs/quests.md.
    progression: ProgressionMode = ProgressionMode.INDIVIDUAL
    tags: list[str] = Field(default_factory=list)


class _Resolver:
    """Turns data keys into entity ids / template keys, recording problems."""

    def __init__(
        self,
        data: WorldData,
        pack: str,
        problems: list[str],
        where: str,
        raw: Any = None,
    ) -> None:
        self.data, self.pack, self.problems, self.where = data, pack, problems, where
        self.raw = raw
        #: A reference that could not be judged (its entry is broken elsewhere).
        self.unjudged = False

    def qualify(self, ref: str) -> str:
        return ref if ":" in ref else f"{self.pack}:{ref}"

    def _fail(self, field: str, message: str) -> None:
        self.problems.append(
            _with_line(self.where, line_at(self.raw, _path(field)), field, message)
        )

    def _missing(self, kind: str, full: str, field: str, message: str) -> None:
        """``full`` is not there: a problem, unless the world data already reported
        the entry it names (one mistake, one problem)."""
        owner = full.partition(":")[0]
        if owner in self.data.declared() and self.data.load(owner).reference_unchecked(kind, full):
            self.unjudged = True
            return
        self._fail(field, message)

    def npc(self, ref: str, field: str) -> Any:
        full = self.qualify(ref)
        entry = self.data.template(full, "npc")
        if entry is None:
            self._missing("npc", full, field, f"unknown NPC {full!r}")
            return None
        spec = entry.spec
        assert isinstance(spec, NpcSpec)
        if spec.room is None or spec.count != 1:
            self._fail(field, f"NPC {full!r} is not one placed NPC (use npc_template)")
            return None
        return data_uuid(entry.pack, "npc", entry.key)

    def template(self, ref: str, kind: str, field: str) -> str | None:
        full = self.qualify(ref)
        if self.data.template(full, kind) is None:
            self._missing(kind, full, field, f"unknown {kind} template {full!r}")
            return None
        return full

    def room(self, ref: str, field: str, rooms: set[str]) -> str | None:
        full = self.qualify(ref)
        if full not in rooms:
            self._missing("room", full, field, f"unknown room {full!r}")
            return None
        return full


def _objective(o: ObjectiveSpec, i: int, r: _Resolver, rooms: set[str]) -> dict[str, Any]:
    f = f"objectives[{i}]"
    return {
        "objective_id": o.id,
        "objective_type": o.type,
        "description": o.description,
        "target_name": o.target_name,
        "target_id": r.npc(o.npc, f"{f}.npc") if o.npc else None,
        "target_template": r.template(o.npc_template, "npc", f"{f}.npc_template")
        if o.npc_template
        else None,
        "target_keyword": o.keyword,
        "item_template": r.template(o.item, "item", f"{f}.item") if o.item else None,
        "destination_room_id": r.room(o.room, f"{f}.room", rooms) if o.room else None,
        "target_count": o.count,
        "required": not o.optional,
        "order": o.order,
        "hint": o.hint,
        "time_limit_seconds": o.time_limit_seconds,
        "watch": o.watch,
        "fact": o.fact,
        "reply": o.reply,
    }


def build_quest(spec: QuestSpec, r: _Resolver, rooms: set[str]) -> dict[str, Any]:
    before = len(r.problems)
    data = {
        "quest_id": spec.id,
        "title": spec.title,
        "summary": spec.summary,
        "description": spec.description,
        "level_requirement": spec.level,
        "giver_npc_id": r.npc(spec.giver, "giver") if spec.giver else None,
        "turn_in_npc_id": r.npc(spec.turn_in, "turn_in") if spec.turn_in else None,
        "accept_dialogue": spec.accept_dialogue,
        "progress_dialogue": spec.progress_dialogue,
        "complete_dialogue": spec.complete_dialogue,
        "objectives": [_objective(o, i, r, rooms) for i, o in enumerate(spec.objectives)],
        "rewards": {
            "experience": spec.rewards.experience,
            "gold": spec.rewards.gold,
            "item_template_ids": [
                t
                for n, ref in enumerate(spec.rewards.items)
                if (t := r.template(ref, "item", f"rewards.items[{n}]"))
            ],
        },
        "time_limit_hours": spec.time_limit_hours,
        "estimated_duration_seconds": spec.estimated_minutes * 60
        if spec.estimated_minutes
        else None,
        "repeatable": spec.repeatable,
        "partial_turn_in": spec.partial_turn_in,
        "progression_mode": spec.progression,
        "tags": spec.tags,
        "source": "authored",
    }
    data["_ok"] = len(r.problems) == before and not r.unjudged
    return data


def _path(field: str) -> list[str | int]:
    """``objectives[0].npc`` as a path into the raw entry: objectives, 0, npc."""
    out: list[str | int] = []
    for part in field.replace("]", "").replace("[", ".").split("."):
        if part:
            out.append(int(part) if part.isdigit() else part)
    return out


def _with_line(where: str, line: int | None, loc: str, msg: str) -> str:
    """``file:line: quest 'id': loc: msg`` (``where`` is ``file: quest 'id'``)."""
    file, _, entry = where.partition(": ")
    head = f"{file}:{line}: {entry}" if line else where
    return f"{head}: {loc}: {msg}" if loc else f"{head}: {msg}"


def _report(problems: list[str], where: str, exc: ValidationError, raw: Any = None) -> None:
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required but missing"
        problems.append(_with_line(where, line_at(raw, list(err["loc"])), loc, msg))


def read_quest_file(
    path: Path, pack: str, data: WorldData, rooms: set[str], label: str | None = None
) -> tuple[list[Quest], list[str]]:
    """The quests of one file and every problem found in it."""
    file = label or str(path)
    problems: list[str] = []
    try:
        raw = read_yaml(path)
    except YamlProblem as exc:
        return [], [f"{file}:{exc.line}: {exc}" if exc.line else f"{file}: {exc}"]
    items = raw.get("quests") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or set(raw) != {"quests"} or not isinstance(items, list):
        return [], [f"{file}: must be a mapping with one key, 'quests', holding a list"]
    quests: list[Quest] = []
    ids: set[str] = set()
    for i, item in enumerate(items):
        key = item.get("id") if isinstance(item, dict) else None
        where = f"{file}: quest {key!r}" if isinstance(key, str) else f"{file}: quests[{i}]"
        if isinstance(key, str):
            if key in ids:
                problems.append(
                    _with_line(
                        where, line_of(item), "", "duplicate quest id (first defined in this file)"
                    )
                )
                continue
            ids.add(key)
        try:
            spec = QuestSpec.model_validate(item)
        except ValidationError as exc:
            _report(problems, where, exc, item)
            continue
        built = build_quest(spec, _Resolver(data, pack, problems, where, item), rooms)
        if not built.pop("_ok"):
            continue
        try:
            quests.append(Quest.model_validate(built))
        except ValidationError as exc:
            _report(problems, where, exc, item)
    return quests, problems


def quest_files(root: Path) -> list[Path]:
    files = [root / FILE] if (root / FILE).is_file() else []
    folder = root / FOLDER
    if folder.is_dir():
        files += sorted(p for p in folder.glob("*.y*ml") if p.is_file())
    return files


class QuestDataHost(ServicesPort, PacksPort, Protocol):
    """What loading the packs' quest files reads: the world data and the packs' folders."""


def load_pack_quests(engine: QuestDataHost) -> tuple[list[Quest], list[tuple[str, str]]]:
    """Quests of every loaded pack; problems as (pack, message). Duplicate ids are problems."""
    data = engine.services.get(WorldData)
    rooms: set[str] = set()
    for name in data.declared():
        rooms |= data.load(name).room_keys
    quests: list[Quest] = []
    seen: dict[str, str] = {}
    problems: list[tuple[str, str]] = []
    for pack in engine.packs:
        for path in quest_files(pack.path):
            label = f"{pack.name}/{path.relative_to(pack.path)}"
            found, issues = read_quest_file(path, pack.name, data, rooms, label)
            problems += [(pack.name, p) for p in issues]
            for quest in found:
                if quest.quest_id in seen:
                    first = seen[quest.quest_id]
                    problems.append(
                        (
                            pack.name,
                            f"{label}: quest {quest.quest_id!r}: duplicate "
                            f"quest id (first defined in {first})",
                        )
                    )
                    continue
                seen[quest.quest_id] = label
                quests.append(quest)
    return quests, problems


def pack_quest_problems(ctx: PackContext) -> list[str]:
    """Problems of one pack's quest files, for its ``validate_data`` (``maid check-pack``).

    Start-up checks every pack's quest files anyway; this only lets a world pack's
    own check include them.
    """
    data = ctx.service(WorldData)
    rooms: set[str] = set()
    for name in data.declared():
        rooms |= data.load(name).room_keys
    problems: list[str] = []
    for path in quest_files(ctx.path):
        label = f"{ctx.pack.name}/{path.relative_to(ctx.path)}"
        problems += read_quest_file(path, ctx.pack.name, data, rooms, label)[1]
    return problems
