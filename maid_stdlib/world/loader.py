"""Reading and validating world data: ``pack.yaml`` and ``areas/*.yaml``.

Validation collects every problem instead of stopping at the first; each problem
reads ``file: entry: message`` (e.g. ``ironvale/areas/village.yaml: room 'smithy':
exit 'north' leads to unknown room 'ironvale:forge'``). Loading has no side
effects on the world: spawning is done by :mod:`maid_stdlib.world.spawner`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from maid_engine.content import Claims, ContentPack, requirement_name
from maid_engine.content.yamllines import YamlProblem, line_at, line_of, read_yaml
from maid_stdlib.world.extensions import KINDS, CheckScope, Extension, ProblemAt
from maid_stdlib.world.schema import (
    SECTIONS,
    SPECS,
    Entry,
    KeyedSpec,
    PackManifest,
    RoomSpec,
    ThingSpec,
    qualify,
)

AREA_DIR = "areas"
MANIFEST = "pack.yaml"


# How a problem names the kind of entry it is about ("not an item field").
_A_KIND = {"area": "an area", "room": "a room", "npc": "an NPC", "item": "an item"}


@dataclass
class PackData:
    pack: str
    root: Path
    start_room: str | None = None
    entries: dict[str, dict[str, Entry]] = field(
        default_factory=lambda: {kind: {} for kind in KINDS}
    )
    problems: list[str] = field(default_factory=list)
    #: Rooms whose entries were invalid (already reported): a reference to one is
    #: not reported again as "unknown room", here or in another file.
    broken_rooms: set[str] = field(default_factory=set)
    #: The same for every kind: (kind, full key) of entries that were invalid.
    broken: set[tuple[str, str]] = field(default_factory=set)
    #: Files that could not be read or parsed: what they define is unknown.
    unreadable: list[str] = field(default_factory=list)

    def reference_unchecked(self, kind: str, full: str) -> bool:
        """True when a reference to the ``kind`` entry ``full`` of this pack cannot be
        judged: its entry was broken (and already reported), or a file of the pack
        could not be read (it may be defined there)."""
        return (kind, full) in self.broken or (
            bool(self.unreadable) and full.partition(":")[0] == self.pack
        )

    def of(self, kind: str) -> list[Entry]:
        return list(self.entries[kind].values())

    @property
    def room_keys(self) -> set[str]:
        return {e.full_key for e in self.entries["room"].values()}


class WorldData:
    """The extension registry and the loaded data of every world pack (a service)."""

    def __init__(self) -> None:
        self._extensions: dict[tuple[str, str], Extension] = {}
        self._packs: dict[str, ContentPack] = {}
        self._loaded: dict[str, PackData] = {}
        #: Which pack added which extension section ("npc.stats"); locked, with
        #: every change below, once the engine has started.
        self.claims = Claims(
            "world data extension", keys=lambda: [f"{k}.{key}" for k, key in self._extensions]
        )

    # -- extensions --------------------------------------------------------------
    def register_extension(
        self,
        kind: str,
        key: str,
        model: type[BaseModel],
        apply: Any,
        check: Any = None,
        owner: str = "",
    ) -> None:
        """Accept ``key:`` in entries of ``kind``; see :mod:`maid_stdlib.world.extensions`.
        ``owner``: the pack adding it (a second extension of ``kind`` under ``key``
        is an error naming it)."""
        self.claims.check_open(f"{kind}.{key}")
        if kind not in KINDS:
            raise ValueError(f"unknown entry kind {kind!r} (one of {', '.join(KINDS)})")
        spec = _spec_for(kind)
        if key in spec.model_fields:
            raise ValueError(f"{kind} entries already have a {key!r} field")
        existing = self._extensions.get((kind, key))
        if existing is not None:
            raise ValueError(
                f"{kind} extension {key!r} is already registered by {existing.owner or '?'}"
            )
        if owner:
            self.claims.claim(owner, f"{kind}.{key}")
        self._extensions[(kind, key)] = Extension(kind, key, model, apply, check, owner)
        self._loaded.clear()

    def extension(self, kind: str, key: str) -> Extension | None:
        return self._extensions.get((kind, key))

    def extensions_for(self, kind: str) -> list[Extension]:
        return [e for (k, _), e in self._extensions.items() if k == kind]

    # -- packs ----------------------------------------------------------------------
    def loaded_entries(self, kind: str) -> list[Entry]:
        """Every loaded entry of ``kind`` ("item"), pack by pack in load order:
        templates included, which no entity in the world may be made from yet."""
        return [e for data in self._loaded.values() for e in data.of(kind)]

    def declare(self, pack: ContentPack) -> None:
        """A world pack announces its data (from its ``register``)."""
        self._packs[pack.name] = pack

    def declared(self) -> list[str]:
        return list(self._packs)

    def pack(self, name: str) -> ContentPack:
        """The declared world pack ``name`` (KeyError if none)."""
        return self._packs[name]

    def load(self, name: str) -> PackData:
        """Read and validate a declared pack's data (cached)."""
        cached = self._loaded.get(name)
        if cached is not None:
            return cached
        data = self.reread(name)
        self._loaded[name] = data
        return data

    def reread(self, name: str) -> PackData:
        """Read and validate a declared pack's files again, without caching (what a
        reload checks before it applies anything)."""
        pack = self._packs[name]
        known: set[str] = set()
        for dep in self._dependencies(pack):
            known |= self.load(dep).room_keys
        return _Reader(pack.name, pack.path, self._extensions, frozenset(known)).read()

    def swap(self, name: str, data: PackData | None) -> PackData | None:
        """Put ``data`` in the cache as pack ``name``'s (None: forget it); the old one."""
        old = self._loaded.pop(name, None)
        if data is not None:
            self._loaded[name] = data
        return old

    def dependents(self, name: str) -> list[str]:
        """The declared packs requiring ``name``, directly or not."""
        return [p for p, pack in self._packs.items() if name in self._dependencies(pack)]

    def _dependencies(self, pack: ContentPack) -> list[str]:
        out: list[str] = []
        todo = [requirement_name(r) for r in pack.requires]
        while todo:
            dep = todo.pop()
            if dep in out:
                continue
            other = self._packs.get(dep)
            if other is not None:
                out.append(dep)
                todo.extend(requirement_name(r) for r in other.requires)
            # Packs without world data (stdlib, rule packs) have no rooms to offer.
        return out

    def template(self, key: str, kind: str | None = None) -> Entry | None:
        """The loaded entry with full key ``key`` ("ironvale:bandit_scout")."""
        pack, _, local = key.partition(":")
        data = self._loaded.get(pack)
        if data is None:
            return None
        for k in (kind,) if kind else KINDS:
            entry = data.entries[k].get(local)
            if entry is not None:
                return entry
        return None


def _spec_for(kind: str) -> type[KeyedSpec]:
    return SPECS[kind]


class _Reader:
    def __init__(
        self,
        pack: str,
        root: Path,
        extensions: dict[tuple[str, str], Extension],
        known_rooms: frozenset[str],
    ) -> None:
        self.pack = pack
        self.root = root
        self.extensions = extensions
        self.known_rooms = known_rooms
        self.data = PackData(pack, root)
        # Rooms whose entries were invalid: references to them are not reported
        # again as "unknown room" (one mistake, one problem).
        self.broken_rooms = self.data.broken_rooms

    def label(self, path: Path) -> str:
        """A file as shown in problems: relative to the folder holding the pack."""
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def problem(self, file: str, entry: str | None, message: str, line: int | None = None) -> None:
        where = f"{file}:{line}" if line else file
        self.data.problems.append(
            f"{where}: {entry}: {message}" if entry else f"{where}: {message}"
        )

    # -- files -----------------------------------------------------------------------
    def read(self) -> PackData:
        manifest = self.read_manifest()
        area_dir = self.root / AREA_DIR
        files = (
            sorted(p for p in area_dir.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
            if area_dir.is_dir()
            else []
        )
        if not files:
            self.problem(self.label(area_dir), None, "no area files (*.yaml) found")
        for path in files:
            self.read_area_file(path)
        self.cross_check(manifest)
        return self.data

    def load_yaml(self, path: Path) -> tuple[bool, Any]:
        file = self.label(path)
        try:
            return True, read_yaml(path)
        except YamlProblem as exc:
            self.problem(file, None, str(exc), exc.line)
            # What this file would have defined is unknown: references into the
            # pack are not reported as unknown (they may well be in this file).
            self.data.unreadable.append(file)
        return False, None

    def read_manifest(self) -> tuple[str, PackManifest, int | None] | None:
        path = self.root / MANIFEST
        if not path.is_file():
            return None
        file = self.label(path)
        ok, raw = self.load_yaml(path)
        if not ok:
            return None
        if not isinstance(raw, dict):
            self.problem(file, None, "must be a mapping (name, description, start_room)")
            return None
        try:
            manifest = PackManifest.model_validate(raw)
        except ValidationError as exc:
            self.report(file, None, exc)
            return None
        if manifest.name is not None and manifest.name != self.pack:
            self.problem(
                file,
                "name",
                f"{manifest.name!r} does not match the pack {self.pack!r}",
                line_of(raw, "name"),
            )
        # Where start_room is written: it is checked once every room is known.
        return file, manifest, line_of(raw, "start_room")

    def read_area_file(self, path: Path) -> None:
        file = self.label(path)
        ok, raw = self.load_yaml(path)
        if not ok:
            return
        if raw is None:
            self.problem(file, None, "the file is empty")
            return
        if not isinstance(raw, dict):
            self.problem(file, None, "must be a mapping with area, rooms, npcs and items")
            return
        for section in raw:
            if section != "area" and section not in SECTIONS:
                self.problem(
                    file,
                    None,
                    f"unknown section {section!r} (expected area, rooms, npcs, items)",
                    line_of(raw, section),
                )
        area_key = ""
        header = raw.get("area")
        if header is None:
            self.problem(file, "area", "missing (every area file starts with an 'area:' header)")
        elif not isinstance(header, dict):
            self.problem(
                file, "area", "must be a mapping (key, name, region)", line_of(raw, "area")
            )
        else:
            area = self.entry("area", header, file, "area")
            if area is not None:
                area_key = area.full_key
        for section, model in SECTIONS.items():
            items = raw.get(section)
            if items is None:
                continue
            if not isinstance(items, list):
                self.problem(file, section, "must be a list of entries", line_of(raw, section))
                continue
            for i, item in enumerate(items):
                where = f"{section}[{i}]"
                if not isinstance(item, dict):
                    self.problem(file, where, "must be a mapping", line_of(items, i))
                    continue
                entry = self.entry(model.kind, item, file, where)
                if entry is not None and entry.kind == "room":
                    entry.area = area_key

    # -- entries ---------------------------------------------------------------------
    def entry(self, kind: str, raw: dict[str, Any], file: str, where: str) -> Entry | None:
        key = raw.get("key")
        label = f"{kind} {key!r}" if isinstance(key, str) and key else where
        model = _spec_for(kind)
        core: dict[str, Any] = {}
        values: dict[str, BaseModel] = {}
        ok = True
        for name, value in raw.items():
            if not isinstance(name, str):
                self.problem(file, label, f"key {name!r} is not a string", line_of(raw, name))
                ok = False
            elif name in model.model_fields:
                core[name] = value
            elif (ext := self.extensions.get((kind, name))) is not None:
                try:
                    values[name] = ext.model.model_validate(value)
                except ValidationError as exc:
                    self.report(file, label, exc, prefix=name, raw=raw)
                    ok = False
            else:
                known = sorted(e for (k, e) in self.extensions if k == kind)
                hint = f"; extensions for {kind}s: {', '.join(known)}" if known else ""
                self.problem(
                    file,
                    label,
                    f"unknown key {name!r} (not {_A_KIND.get(kind, 'a ' + kind)} field, "
                    f"and no loaded pack "
                    f"registered a {name!r} extension for {kind}s{hint})",
                    line_of(raw, name),
                )
                ok = False
        try:
            spec = model.model_validate(core)
        except ValidationError as exc:
            self.report(file, label, exc, raw=raw)
            ok = False
        if not ok:
            if isinstance(key, str):
                self.data.broken.add((kind, qualify(self.pack, key)))
                if kind == "room":
                    self.broken_rooms.add(qualify(self.pack, key))
            return None
        local = spec.key
        entry = Entry(kind, self.pack, local, spec, file, values, line=line_of(raw) or 0)
        table = self.data.entries[kind]
        first = table.get(local)
        if first is not None:
            self.problem(
                file,
                label,
                f"duplicate {kind} key (first defined in {first.file}:{first.line})",
                line_of(raw),
            )
            return None
        table[local] = entry
        return entry

    def report(
        self,
        file: str,
        label: str | None,
        exc: ValidationError,
        prefix: str = "",
        raw: Any = None,
    ) -> None:
        for err in exc.errors():
            path = [p for p in (prefix, *err["loc"]) if p != ""]
            line = line_at(raw, path) if raw is not None else None
            loc = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown key"
            elif err["type"] == "missing":
                msg = "required but missing"
            elif msg.startswith("Value error, "):
                msg = msg[len("Value error, ") :]
            self.problem(file, label, f"{loc}: {msg}" if loc else msg, line)

    # -- references --------------------------------------------------------------------
    def cross_check(self, manifest: tuple[str, PackManifest, int | None] | None) -> None:
        rooms = self.data.room_keys | self.known_rooms | self.broken_rooms
        for room in self.data.of("room"):
            spec = room.spec
            assert isinstance(spec, RoomSpec)
            for name, target in spec.exits.items():
                full = qualify(self.pack, target)
                if full not in rooms and not self.unchecked(full):
                    self.problem(
                        room.file,
                        f"room {room.key!r}",
                        f"exit {name!r} leads to unknown room {full!r}{self.hint(full)}",
                        room.line,
                    )
        for kind in ("npc", "item"):
            for thing in self.data.of(kind):
                ref = getattr(thing.spec, "room", None)
                full = qualify(self.pack, ref) if ref is not None else ""
                if ref is not None and full not in rooms and not self.unchecked(full):
                    self.problem(
                        thing.file,
                        f"{kind} {thing.key!r}",
                        f"room {full!r} does not exist{self.hint(full)}",
                        thing.line,
                    )
        if manifest is not None:
            file, info, start_line = manifest
            if info.start_room is not None:
                start = qualify(self.pack, info.start_room)
                if start in rooms:
                    self.data.start_room = start
                elif not self.unchecked(start):
                    self.problem(
                        file,
                        "start_room",
                        f"unknown room {start!r}{self.hint(start)}",
                        start_line,
                    )
        self.check_extensions(frozenset(rooms))

    def unchecked(self, full: str) -> bool:
        """A reference into this pack while one of its files could not be read: it
        may point into that file, so it is not another problem."""
        return bool(self.data.unreadable) and full.partition(":")[0] == self.pack

    def hint(self, full: str) -> str:
        pack = full.partition(":")[0]
        if pack != self.pack and not any(k.startswith(pack + ":") for k in self.known_rooms):
            return f" (pack {pack!r} is not among the packs {self.pack!r} requires)"
        return ""

    def check_extensions(self, rooms: frozenset[str]) -> None:
        # A broken entry was reported once already: a reference to it is no
        # second problem ("unknown NPC"), whatever it would have been.
        broken = {kind: {full for k, full in self.data.broken if k == kind} for kind in KINDS}
        npcs = frozenset(e.full_key for e in self.data.of("npc")) | broken["npc"]
        items = frozenset(e.full_key for e in self.data.of("item")) | broken["item"]
        placed = (
            frozenset(e.full_key for e in self.data.of("npc") if _placed_once(e)) | broken["npc"]
        )
        for kind in KINDS:
            for entry in self.data.of(kind):
                for name, value in entry.extensions.items():
                    ext = self.extensions[(kind, name)]
                    if ext.check is None:
                        continue
                    scope = CheckScope(self.pack, entry, rooms, npcs, items, placed)
                    for message in _as_list(ext.check(value, scope)):
                        if isinstance(message, ProblemAt):
                            # Written in another file: named where it is.
                            where = f"{kind} {entry.key!r} ({entry.file}:{entry.line})"
                            self.problem(message.file, where, f"{name}: {message}", message.line)
                            continue
                        self.problem(
                            entry.file, f"{kind} {entry.key!r}", f"{name}: {message}", entry.line
                        )


def _placed_once(entry: Entry) -> bool:
    """An entry of one entity in the world (its id is ``data_uuid`` of its key)."""
    spec = entry.spec
    return isinstance(spec, ThingSpec) and spec.room is not None and spec.count == 1


def _as_list(messages: Iterable[str] | None) -> list[str]:
    return list(messages) if messages is not None else []
