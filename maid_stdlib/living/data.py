"""Living-world data of a content pack: one YAML file, validated with pydantic.

A pack calls :func:`~maid_stdlib.living.service.load_living_data` from its
``register``::

    def register(self, ctx):
        super().register(ctx)
        load_living_data(ctx, self.path / "living.yaml")

The file is read and validated at once (a malformed file stops start-up with a
PackError naming the file and entry). References to rooms, NPCs, factions and
conditions are checked, and components applied, when the living systems start --
after every pack built its world -- by :mod:`maid_stdlib.living.seeding`.

Format (keys local to the pack may omit the "pack:" prefix)::

    factions:
      bandits: {name: bandits, hostile: true, regroup_days: 3, regroup_warning_hours: 12}
    faction_relations:
      - {a: village, b: bandits, value: -0.8, cause: raids on the road}
    crises:
      - {need: safety, below: 0.3, min_npcs: 3, crisis_type: fear}
    discoveries:
      old_shaft: {type: ancient_ruins, description: a sealed door}
    npcs:
      gundrik:                      # NPC template key; applies to every instance
        needs:
          economic:
            value: 0.55             # initial value, [0, 1]
            decay: 0.004            # per game hour
            threshold: 0.35
            modifiers: [{when: supply_blocked, decay_x: 6}]
            satisfied_by: [{when: supply_clear, rate: 0.03}]
            goal: {id: source_iron, type: ACQUIRE, target: iron, priority: 0.8,
                   description: Source quality iron, blocked_when: [supply_blocked],
                   progress_when: supply_clear, progress_rate: 0.1}
        supply: [{resource: iron, route: [trade_road, ford], need: economic}]
        schedule: [{hour: 7, room: smithy}, {hour: 19, room: tavern}]
        relationships: {selena: {trust: 0.1, affinity: -0.1, kind: rival, drift: -0.03}}
        factions: {village: member}
        influence: 0.4
        wealth: 300
        watch: [trade_road]
        trade: {offers: [tools], wants: [iron]}
        hostile: bandits            # marks a threat (source "bandits")
        memories: [{content: ..., importance: 0.5, valence: negative, visibility: public}]
        misdeeds:                   # a wrong done when driven to it (a BETRAYAL)
          - {act: theft, when: [need_low:economic, at:pay_office, alone], victim: mara,
             content: Coin is missing from the wage chest., need: economic, relief: 0.4}
        gossip: [{content: ..., subject: ..., confidence: 0.9, secret: false}]
        presence:                   # what it shows, by condition (first that holds)
          - {when: [at:smithy, supply_blocked],     # the world data's own line,
             activity: glowering_at_the_cold_forge} # and what it is seen doing
          - {when: [doing:working], short: Gundrik hammers at the anvil.}
    rooms:
      square:                       # "{hammer}" in the room's description
        parts:
          hammer:
            - {who: gundrik, when: [doing:working], text: A hammer rings out.}
            - {text: ""}
    boards:
      notice_board: {area: village} # an item listing the area's public needs
    ambient: {interval: 900, budget: 3, window: 1440, greet: true}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from maid_engine.content import PackError
from maid_engine.content.yamllines import YamlProblem, line_at, line_of, read_yaml
from maid_stdlib.living.memory import EmotionalValence, MemoryVisibility

if TYPE_CHECKING:
    from maid_stdlib.living.components import NeedRule

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Signed = Annotated[float, Field(ge=-1.0, le=1.0)]
Ref = Annotated[str, Field(pattern=r"^([a-z0-9][a-z0-9_\-]*:)?[a-z0-9][a-z0-9_\-#]*$")]
Name = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$")]
Text = Annotated[str, Field(min_length=1)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModifierSpec(_Model):
    when: Text
    decay_x: float = Field(1.0, ge=0.0)
    add: float = Field(0.0, ge=0.0)


class SatisfierSpec(_Model):
    when: Text
    rate: float = Field(ge=0.0)


class GoalTemplateSpec(_Model):
    id: Name
    type: Text = "ACQUIRE"
    description: Text
    priority: Unit = 0.5
    target: str | None = None
    blocked_when: list[Text] = Field(default_factory=list)
    progress_when: str | None = None
    progress_rate: float = Field(0.0, ge=0.0)
    completion_need_delta: Unit = 0.3


class GoalSpec(GoalTemplateSpec):
    need: Name | None = None


class NeedSpec(_Model):
    value: Unit = 0.8
    decay: float = Field(0.0, ge=0.0)
    threshold: Unit = 0.3
    modifiers: list[ModifierSpec] = Field(default_factory=list)
    satisfied_by: list[SatisfierSpec] = Field(default_factory=list)
    goal: GoalTemplateSpec | None = None


class RelationshipSpec(_Model):
    trust: Signed = 0.0
    affinity: Signed = 0.0
    kind: str = ""
    cause: str = ""
    drift: Signed = 0.0


class SupplySpec(_Model):
    resource: Text
    route: list[Ref] = Field(min_length=1)
    need: Name = "economic"
    origin: str = ""


class ScheduleSpec(_Model):
    hour: int = Field(ge=0, le=23)
    room: Ref
    #: What the NPC does there ("working"): the ``doing:`` condition, room lines.
    activity: Name | None = None


class MemorySpec(_Model):
    content: Text
    importance: Unit = 0.5
    valence: EmotionalValence = EmotionalValence.NEUTRAL
    intensity: Unit = 0.3
    tags: list[str] = Field(default_factory=list)
    visibility: MemoryVisibility = MemoryVisibility.PRIVATE
    #: NPC key the memory is about (a betrayer, a rival).
    about: Ref | None = None
    location: Ref | None = None
    #: How long ago it happened, in game hours.
    age_hours: float = Field(0.0, ge=0.0)


class GossipSpec(_Model):
    id: Text | None = None
    content: Text
    subject: str = ""
    #: NPC key the gossip is about (sets the subject to that NPC's id).
    about: Ref | None = None
    confidence: Unit = 0.9
    #: Seen first-hand: confidence 1.0 and the NPC is the source.
    observed: bool = False
    secret: bool = False
    tags: list[str] = Field(default_factory=list)
    location: Ref | None = None


class TradeSpec(_Model):
    offers: list[Text] = Field(default_factory=list)
    wants: list[Text] = Field(default_factory=list)


class MisdeedSpec(_Model):
    """A wrong the NPC does when driven to it (see ``facts.Misdeed``)."""

    act: Name
    when: list[Text] = Field(min_length=1)
    victim: Ref
    #: What the victim finds out, in its own words ("Coin is missing from the chest").
    content: Text
    need: Name | None = None
    relief: Unit = 0.4
    every_days: float = Field(7.0, gt=0.0)
    importance: Unit = 0.7


class ShownSpec(_Model):
    """A room line (and ``look`` text) valid while every condition holds; without
    ``short`` it marks the world data's own line as valid only then. ``activity``:
    what the NPC is seen doing meanwhile ("Gundrik goes on glowering at the cold
    forge."), in place of its schedule's, which that line may contradict."""

    when: list[Text] = Field(default_factory=list)
    short: Text | None = None
    description: Text | None = None
    activity: Text | None = None


class PartSpec(_Model):
    """One variant of a room description's part; ``who`` (an NPC key) is whom the
    conditions are about. ``text`` may be empty (the part says nothing)."""

    text: str = ""
    when: list[Text] = Field(default_factory=list)
    who: Ref | None = None


class RoomLivingSpec(_Model):
    parts: dict[Name, list[PartSpec]] = Field(default_factory=dict)


class BoardSpec(_Model):
    """An item (by key) that lists the public needs of ``area``."""

    area: Ref


class NpcSpec(_Model):
    needs: dict[Name, NeedSpec] = Field(default_factory=dict)
    goals: list[GoalSpec] = Field(default_factory=list)
    relationships: dict[Ref, RelationshipSpec] = Field(default_factory=dict)
    factions: dict[Name, Name] = Field(default_factory=dict)
    standings: dict[Name, Signed] = Field(default_factory=dict)
    influence: Unit | None = None
    wealth: int | None = Field(None, ge=0)
    supply: list[SupplySpec] = Field(default_factory=list)
    watch: list[Ref] = Field(default_factory=list)
    schedule: list[ScheduleSpec] = Field(default_factory=list)
    trade: TradeSpec | None = None
    hostile: Name | None = None
    memories: list[MemorySpec] = Field(default_factory=list)
    gossip: list[GossipSpec] = Field(default_factory=list)
    presence: list[ShownSpec] = Field(default_factory=list)
    misdeeds: list[MisdeedSpec] = Field(default_factory=list)


class FactionSpec(_Model):
    name: Text
    hostile: bool = False
    description: str = ""
    #: Game days before a threat of the faction that players cleared regroups
    #: (null: never), and the hours before that its rumour spreads.
    regroup_days: float | None = Field(3.0, ge=0.0)
    regroup_warning_hours: float = Field(12.0, ge=0.0)


class FactionRelationSpec(_Model):
    a: Name
    b: Name
    value: Signed
    cause: str = ""


class CrisisSpec(_Model):
    need: Name
    below: Unit = 0.25
    min_npcs: int = Field(3, ge=1)
    crisis_type: str = ""


class DiscoverySpec(_Model):
    type: Name
    description: str = ""


class AmbientSpec(_Model):
    """How much NPCs say unprompted where someone is (game seconds)."""

    interval: float = Field(900.0, gt=0.0)
    budget: int = Field(3, ge=0)
    window: float = Field(1440.0, gt=0.0)
    greet: bool = True


class LivingFile(_Model):
    factions: dict[Name, FactionSpec] = Field(default_factory=dict)
    faction_relations: list[FactionRelationSpec] = Field(default_factory=list)
    crises: list[CrisisSpec] = Field(default_factory=list)
    discoveries: dict[Ref, DiscoverySpec] = Field(default_factory=dict)
    npcs: dict[Ref, NpcSpec] = Field(default_factory=dict)
    rooms: dict[Ref, RoomLivingSpec] = Field(default_factory=dict)
    boards: dict[Ref, BoardSpec] = Field(default_factory=dict)
    ambient: AmbientSpec | None = None


@dataclass
class LivingData:
    pack: str
    #: The file as shown in messages ("ironvale/living.yaml").
    file: str
    spec: LivingFile
    #: Where it was read from (None: built in code), for the lines of problems and
    #: for a reload, which reads it again.
    path: Path | None = None
    #: id of a need's spec -> the rule seeding made of it, so that every NPC seeded
    #: from one spec shares one rule (10,000 NPCs of a few templates hold a few
    #: rules, not 10,000 copies). The specs live as long as this object.
    need_rules: dict[int, NeedRule] = field(default_factory=dict, repr=False, compare=False)

    def qualify(self, ref: str) -> str:
        return ref if ":" in ref else f"{self.pack}:{ref}"

    def qualify_condition(self, spec: str) -> str:
        """Room arguments ("at:", "away:", "threat_in:") become full room keys (also
        under "not:")."""
        return qualify_condition(self.pack, spec)


#: Conditions whose argument is a room ("at:tavern").
ROOM_CONDITIONS = ("at", "away", "threat_in")


def condition_room(spec: str) -> str | None:
    """The room a condition names ("at:tavern", "not:threat_in:glade" -> the
    room, as written), or None for a condition about no room."""
    name, sep, arg = spec.strip().partition(":")
    if name == "not":
        name, sep, arg = arg.partition(":")
    return arg if sep and arg and name in ROOM_CONDITIONS else None


def qualify_condition(pack: str, spec: str) -> str:
    """ "at:tavern" -> "at:<pack>:tavern"; "not:at:tavern" likewise."""
    name, sep, arg = spec.strip().partition(":")
    if sep and name == "not":
        return f"not:{qualify_condition(pack, arg)}"
    if sep and name in ROOM_CONDITIONS:
        return f"{name}:{arg if ':' in arg else f'{pack}:{arg}'}"
    return spec.strip()


def _label(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(path.resolve().parents[1]))
    except (ValueError, IndexError):
        return str(path)


def _where(loc: tuple[Any, ...]) -> tuple[str | None, str]:
    """pydantic location -> ("npc 'gundrik'", "needs.economic.decay")."""
    parts = [str(p) for p in loc]
    kinds = {
        "npcs": "npc",
        "factions": "faction",
        "discoveries": "discovery",
        "rooms": "room",
        "boards": "board",
    }
    if len(parts) >= 2 and parts[0] in kinds:
        return f"{kinds[parts[0]]} {parts[1]!r}", ".".join(parts[2:])
    if len(parts) >= 2 and parts[0] in ("faction_relations", "crises"):
        return f"{parts[0]}[{parts[1]}]", ".".join(parts[2:])
    return None, ".".join(parts)


_SECTIONS = {
    "npc": "npcs",
    "faction": "factions",
    "discovery": "discoveries",
    "room": "rooms",
    "board": "boards",
}


def entry_line(raw: Any, entry: str) -> int | None:
    """The line of an entry named as in problems ("npc 'gundrik'", "crises[2]")."""
    kind, _, rest = entry.partition(" ")
    if kind in _SECTIONS and rest.startswith("'"):
        section = raw.get(_SECTIONS[kind]) if isinstance(raw, dict) else None
        return line_of(section, rest.strip("'")) or line_of(raw, _SECTIONS[kind])
    name, _, index = entry.partition("[")
    if index.rstrip("]").isdigit():
        return line_at(raw, [name, int(index.rstrip("]"))])
    return line_of(raw, entry) if isinstance(raw, dict) else None


def with_entry_lines(data: LivingData, problems: list[str]) -> list[str]:
    """``file: entry: ...`` problems of ``data`` as ``file:line: entry: ...``."""
    if data.path is None or not problems:
        return problems
    try:
        raw = read_yaml(data.path)
    except YamlProblem:
        return problems
    out = []
    for problem in problems:
        file, _, rest = problem.partition(": ")
        entry = rest.split(": ", 1)[0]
        line = entry_line(raw, entry)
        out.append(f"{file}:{line}: {rest}" if line else problem)
    return out


def parse_living(raw: object, file: str) -> tuple[LivingFile | None, list[str]]:
    """Validate a loaded document; problems read "file:line: entry: field: message"."""
    if raw is None:
        return LivingFile(), []
    if not isinstance(raw, dict):
        return None, [f"{file}: must be a mapping (factions, crises, discoveries, npcs)"]
    try:
        return LivingFile.model_validate(raw), []
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            entry, field_path = _where(tuple(err["loc"]))
            msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
            if err["type"] == "missing":
                msg = "required but missing"
            text = f"{field_path}: {msg}" if field_path else msg
            line = line_at(raw, list(err["loc"]))
            where = f"{file}:{line}" if line else file
            problems.append(f"{where}: {entry}: {text}" if entry else f"{where}: {text}")
        return None, problems


def read_living_file(pack: str, path: Path) -> LivingData:
    """Read and validate ``path``; PackError naming the file and entries if invalid."""
    file = _label(path)
    try:
        raw = read_yaml(path)
    except YamlProblem as exc:
        where = f"{file}:{exc.line}" if exc.line else file
        raise PackError(pack, f"{where}: {exc}", file) from exc
    spec, problems = parse_living(raw, file)
    if problems or spec is None:
        raise problems_error(pack, problems, file)
    return LivingData(pack, file, spec, path)


def problems_error(pack: str, problems: list[str], file: str) -> PackError:
    if len(problems) == 1:
        return PackError(pack, f"invalid living data: {problems[0]}", file)
    listed = "\n  ".join(problems[:20])
    more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
    return PackError(pack, f"{len(problems)} problems in its living data:\n  {listed}{more}", file)
