"""Which rooms are narrated: the ``narrated:`` section of room entries, and their NPCs.

A room entry in an area file opts in with::

    - key: cellar
      name: The Cellar Beneath the Camp
      ...
      narrated:
        schema_file: narrated/bandit_camp.yaml   # relative to the pack's folder
        premise: "Gwen is held here in a cage. The bandits above must not hear."

``narrated: narrated/bandit_camp.yaml`` is short for the ``schema_file`` form, and
``stat_schema: {...}`` gives the schema inline. ``scope`` names the block of player
stats the room uses (default: the room key; rooms of one scenario may share one).

The schema is validated when the pack's data is checked, so ``maid check-pack`` and
start-up report a broken schema like any other data problem. The room list is read
from the data at start-up (not from stored components), so editing the data takes
effect on the next start.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

import yaml
from pydantic import BaseModel, ConfigDict, model_validator

from maid_engine.ecs import World
from maid_engine.ports import PacksPort, ServicesPort, WorldPort
from maid_stdlib.narration.components import NarratedRoom
from maid_stdlib.world.components import NPC, Describable, Position, data_uuid
from maid_stdlib.world.extensions import CheckScope, ExtensionContext, ProblemAt
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize
from maid_stdlib.worldstate import (
    ComponentStatView,
    SchemaError,
    StatSchema,
    instantiate,
    lint_schema,
    load_schema,
    load_schema_file,
)
from maid_stdlib.worldstate.binding import Binders, Bound

log = logging.getLogger("maid.narration")

EXTENSION = "narrated"
#: Pronouns in a schema NPC's trigger keys are for story cards, not for `look her`.
_PRONOUNS = frozenset({"he", "she", "it", "they", "him", "her", "them", "his", "hers"})


class NarratedData(BaseModel):
    """The ``narrated:`` section of a room entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_file: str | None = None
    """The stat schema's file, relative to the pack (``narrated/strongroom.yaml``)."""
    stat_schema: dict[str, Any] | None = None
    """The stat schema written inline instead of a file."""
    scope: str | None = None
    """What the scene is about, told to the model."""
    premise: str = ""
    """The scene's premise, told to the model."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: object) -> object:
        if isinstance(value, str):
            return {"schema_file": value}
        if value is None:
            return {}
        return value

    @model_validator(mode="after")
    def _one_source(self) -> NarratedData:
        if self.schema_file is not None and self.stat_schema is not None:
            raise ValueError("give schema_file or stat_schema, not both")
        return self


class RoomsHost(ServicesPort, PacksPort, Protocol):
    """What finding the narrated rooms reads: the world data and the packs' folders."""


class SceneHost(WorldPort, ServicesPort, Protocol):
    """What preparing a room and finding its NPCs use: the world and its index."""


@dataclass
class RoomSetup:
    """A narrated room as the service runs it."""

    key: str
    pack: str
    schema: StatSchema
    scope: str
    premise: str
    ref: str
    #: Schema NPC id -> its entity (data NPC or spawned); absent ids are not writable.
    npcs: dict[str, UUID] = field(default_factory=dict)
    #: Bound entries by canonical path: their values live in the world.
    bindings: dict[str, Bound] = field(default_factory=dict)

    def view(
        self, world: World, room_id: UUID, actor: UUID | None, npcs: dict[str, UUID]
    ) -> ComponentStatView:
        """The room's values for ``actor`` and ``npcs``, bound entries included."""
        return ComponentStatView(
            world, room_id, actor, self.scope, npcs, bindings=self.bindings, room_key=self.key
        )


def pack_root(engine: PacksPort, pack: str) -> Path | None:
    for found in engine.packs:
        if found.name == pack:
            return found.path
    return None


def load_room_schema(
    engine: PacksPort, pack: str, room_key: str, value: NarratedData
) -> tuple[StatSchema, str]:
    """The room's validated schema and its reference; :class:`SchemaError` if invalid."""
    if value.schema_file is None:
        return load_schema(value.stat_schema, source=room_key), f"{room_key}#inline"
    root = pack_root(engine, pack)
    if root is None:
        raise SchemaError([f"pack {pack!r} is not loaded"], value.schema_file)
    path = (root / value.schema_file).resolve()
    if not path.is_relative_to(root.resolve()):
        raise SchemaError(["schema_file must stay inside the pack's folder"], value.schema_file)
    if not path.is_file():
        raise SchemaError(["file not found"], value.schema_file)
    try:
        return load_schema_file(path), f"{pack}:{value.schema_file}"
    except SchemaError as err:
        # Named as the builder wrote it, not by the absolute path of this machine.
        raise SchemaError(err.errors, value.schema_file, err.lines) from None


def make_check(engine: RoomsHost) -> Any:
    """The extension's data check: every schema problem becomes a data problem."""

    def check(value: NarratedData, scope: CheckScope) -> Iterable[str]:
        try:
            schema, _ref = load_room_schema(engine, scope.pack, scope.entry.full_key, value)
        except SchemaError as err:
            root = pack_root(engine, scope.pack)
            if value.schema_file is not None and root is not None and any(err.lines):
                # Each problem at its line in the schema file, every layer at once.
                file = f"{root.name}/{value.schema_file}"
                return [
                    ProblemAt(f"invalid stat schema: {e}", file, line)
                    for e, line in zip(err.errors, err.lines, strict=True)
                ]
            where = f" ({err.source})" if err.source else ""
            return [f"invalid stat schema{where}: {e}" for e in err.errors]
        binders = engine.services.try_get(Binders)
        problems = binders.problems(schema) if binders is not None else []
        if not problems:
            return []
        source = value.schema_file or "inline"
        lines = bind_lines(engine, scope.pack, value)
        return [
            f"invalid stat schema ({_at(source, lines, problem)}): {problem}"
            for problem in problems
        ]

    return check


def bind_lines(engine: PacksPort, pack: str, value: NarratedData) -> dict[str, int]:
    """The line of every ``bind:`` of a schema file, by the entry's YAML path
    (``npcs.gwen.trust``), so check-pack points at the very line."""
    root = pack_root(engine, pack)
    if value.schema_file is None or root is None:
        return {}
    try:
        node = yaml.compose((root / value.schema_file).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    out: dict[str, int] = {}

    def walk(current: yaml.Node | None, path: list[str]) -> None:
        if not isinstance(current, yaml.MappingNode):
            return
        for key, child in current.value:
            name = str(key.value)
            if name == "bind":
                out[".".join(p for p in path if p != "stats")] = key.start_mark.line + 1
            else:
                walk(child, [*path, name])

    walk(node, [])
    return out


def _at(source: str, lines: dict[str, int], problem: str) -> str:
    where = problem.split(".bind:", 1)[0]
    line = lines.get(where)
    return f"{source}:{line}" if line else source


def apply_narrated(ctx: ExtensionContext, value: NarratedData) -> None:
    """Mark the room as narrated when it is built (or rebuilt) from data."""
    scope = value.scope or ctx.key
    ref = f"{ctx.pack}:{value.schema_file}" if value.schema_file else f"{ctx.key}#inline"
    found = ctx.world.try_component(ctx.entity_id, NarratedRoom)
    if found is None:
        ctx.world.add_component(ctx.entity_id, NarratedRoom(schema_ref=ref, scope=scope))
    elif (found.schema_ref, found.scope) != (ref, scope):
        found.schema_ref, found.scope = ref, scope


def collect_rooms(engine: RoomsHost) -> dict[str, RoomSetup]:
    """Every narrated room of the loaded world packs, by room key."""
    data = engine.services.get(WorldData)
    rooms: dict[str, RoomSetup] = {}
    for pack in data.declared():
        for entry in data.load(pack).of("room"):
            value = entry.extensions.get(EXTENSION)
            if not isinstance(value, NarratedData):
                continue
            try:
                schema, ref = load_room_schema(engine, entry.pack, entry.full_key, value)
            except SchemaError as err:
                # Data checks already refused this at load; only a file changed on disk
                # since then gets here. The room then stays plain rather than half-made.
                log.error("narrated room %s left plain: %s", entry.full_key, err)
                continue
            for warning in lint_schema(schema):
                log.warning("narrated room %s (%s): %s", entry.full_key, ref, warning)
            binders = engine.services.try_get(Binders)
            rooms[entry.full_key] = RoomSetup(
                key=entry.full_key,
                pack=entry.pack,
                schema=schema,
                scope=value.scope or entry.full_key,
                premise=value.premise.strip(),
                ref=ref,
                bindings=binders.of(schema) if binders is not None else {},
            )
    return rooms


def _npc_keywords(name: str, keys: Iterable[str]) -> list[str]:
    words: list[str] = []
    for text in (name, *keys):
        for word in text.lower().replace(",", " ").split():
            word = word.strip(".'\"!?")
            if word and word not in _PRONOUNS and word not in words:
                words.append(word)
    return words


def sync_room(engine: SceneHost, setup: RoomSetup) -> None:
    """Attach the room record, find or spawn the schema's NPCs, write initial values.

    A schema NPC is the data NPC of the same id in the room's pack (template
    ``pack:id``) when one exists, preferring one standing in the room; otherwise it
    is spawned once in the room with a deterministic id, so a restart finds it again
    and quests can count it like any data NPC (its template is ``pack:id`` too).
    """
    world = engine.world
    ws = engine.services.get(WorldService)
    room_id = ws.room_id(setup.key)
    if room_id is None:
        log.error("narrated room %s has no entity", setup.key)
        return
    record = world.try_component(room_id, NarratedRoom)
    if record is None:
        record = NarratedRoom(schema_ref=setup.ref, scope=setup.scope)
        world.add_component(room_id, record)
    by_template: dict[str, list[UUID]] = {}
    for uid, marker in world.each(NPC):
        by_template.setdefault(marker.template, []).append(uid)
    setup.npcs.clear()
    for npc_id, npc in setup.schema.npcs.items():
        template = f"{setup.pack}:{npc_id}"
        candidates = by_template.get(template, [])
        spawned_id = data_uuid(setup.pack, "narrated_npc", f"{setup.key}:{npc_id}")
        if candidates:
            here = [uid for uid in candidates if ws.room_key_of(uid) == setup.key]
            setup.npcs[npc_id] = (here or candidates)[0]
            continue
        if npc_id in record.spawned:
            continue  # spawned once and since destroyed: it stays gone
        name = npc.name or setup.schema.npc_name(npc_id)
        world.create_entity(
            NPC(template=template),
            Describable(
                name=name,
                short=f"{capitalize(name)} is here.",
                description=npc.desc,
                keywords=_npc_keywords(name, npc.keys),
            ),
            Position(setup.key),
            entity_id=spawned_id,
        )
        ws.reindex(spawned_id)
        record.spawned.append(npc_id)
        world.modified(room_id, record)
        setup.npcs[npc_id] = spawned_id
    if not setup.schema.is_empty:
        instantiate(setup.schema, setup.view(world, room_id, None, setup.npcs))


def present_npcs(engine: SceneHost, setup: RoomSetup) -> dict[str, UUID]:
    """The schema NPCs standing in the room now (only they are written and shown)."""
    ws = engine.services.get(WorldService)
    exists = engine.world.entity_exists
    return {
        npc_id: uid
        for npc_id, uid in setup.npcs.items()
        if exists(uid) and ws.room_key_of(uid) == setup.key
    }
