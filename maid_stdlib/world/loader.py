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

import yaml
from pydantic import BaseModel, ValidationError

from maid_engine.content import Claims, ContentPack, requirement_name
from maid_stdlib.world.extensions import KINDS, CheckScope, Extension
from maid_stdlib.world.schema import (
    SECTIONS,
    SPECS,
    Entry,
    KeyedSpec,
    PackManifest,
    RoomSpec,
    qualify,
)

AREA_DIR = "areas"
MANIFEST = "pack.yaml"


@dataclass
class PackData:
    pack: str
    root: Path
    start_room: str | None = None
    entries: dict[str, dict[str, Entry]] = field(
        default_factory=lambda: {kind: {} for kind in KINDS}
    )
    problems: list[str] = field(default_factory=list)

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
    def declare(self, pack: ContentPack) -> None:
        """A world pack announces its data (from its ``register``)."""
        self._packs[pack.name] = pack

    def declared(self) -> list[str]:
        return list(self._packs)

    def load(self, name: str) -> PackData:
        """Read and validate a declared pack's data (cached)."""
        cached = self._loaded.get(name)
        if cached is not None:
            return cached
        pack = self._packs[name]
        known: set[str] = set()
        for dep in self._dependencies(pack):
            known |= self.load(dep).room_keys
        data = _Reader(pack.name, pack.path, self._extensions, frozenset(known)).read()
        self._loaded[name] = data
        return data

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
        self.broken_rooms: set[str] = set()

    def label(self, path: Path) -> str:
        """A file as shown in problems: relative to the folder holding the pack."""
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def problem(self, file: str, entry: str | None, message: str) -> None:
        self.data.problems.append(f"{file}: {entry}: {message}" if entry else f"{file}: {message}")

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
            return True, yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            reason = getattr(exc, "problem", None) or str(exc)
            self.problem(file, None, f"invalid YAML{where}: {reason}")
        except (OSError, UnicodeDecodeError) as exc:
            self.problem(file, None, f"cannot read: {exc}")
        return False, None

    def read_manifest(self) -> tuple[str, PackManifest] | None:
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
            self.problem(file, "name", f"{manifest.name!r} does not match the pack {self.pack!r}")
        return file, manifest

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
                    file, None, f"unknown section {section!r} (expected area, rooms, npcs, items)"
                )
        area_key = ""
        header = raw.get("area")
        if header is None:
            self.problem(file, "area", "missing (every area file starts with an 'area:' header)")
        elif not isinstance(header, dict):
            self.problem(file, "area", "must be a mapping (key, name, region)")
        else:
            area = self.entry("area", header, file, "area")
            if area is not None:
                area_key = area.full_key
        for section, model in SECTIONS.items():
            items = raw.get(section)
            if items is None:
                continue
            if not isinstance(items, list):
                self.problem(file, section, "must be a list of entries")
                continue
            for i, item in enumerate(items):
                where = f"{section}[{i}]"
                if not isinstance(item, dict):
                    self.problem(file, where, "must be a mapping")
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
                self.problem(file, label, f"key {name!r} is not a string")
                ok = False
            elif name in model.model_fields:
                core[name] = value
            elif (ext := self.extensions.get((kind, name))) is not None:
                try:
                    values[name] = ext.model.model_validate(value)
                except ValidationError as exc:
                    self.report(file, label, exc, prefix=name)
                    ok = False
            else:
                known = sorted(e for (k, e) in self.extensions if k == kind)
                hint = f"; extensions for {kind}s: {', '.join(known)}" if known else ""
                self.problem(
                    file,
                    label,
                    f"unknown key {name!r} (not a {kind} field, and no loaded pack "
                    f"registered a {name!r} extension for {kind}s{hint})",
                )
                ok = False
        try:
            spec = model.model_validate(core)
        except ValidationError as exc:
            self.report(file, label, exc)
            ok = False
        if not ok:
            if kind == "room" and isinstance(key, str):
                self.broken_rooms.add(qualify(self.pack, key))
            return None
        local = spec.key
        entry = Entry(kind, self.pack, local, spec, file, values)
        table = self.data.entries[kind]
        first = table.get(local)
        if first is not None:
            self.problem(file, label, f"duplicate {kind} key (first defined in {first.file})")
            return None
        table[local] = entry
        return entry

    def report(self, file: str, label: str | None, exc: ValidationError, prefix: str = "") -> None:
        for err in exc.errors():
            loc = ".".join(str(p) for p in (prefix, *err["loc"]) if p != "")
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown key"
            elif err["type"] == "missing":
                msg = "required but missing"
            elif msg.startswith("Value error, "):
                msg = msg[len("Value error, ") :]
            self.problem(file, label, f"{loc}: {msg}" if loc else msg)

    # -- references --------------------------------------------------------------------
    def cross_check(self, manifest: tuple[str, PackManifest] | None) -> None:
        rooms = self.data.room_keys | self.known_rooms | self.broken_rooms
        for room in self.data.of("room"):
            spec = room.spec
            assert isinstance(spec, RoomSpec)
            for name, target in spec.exits.items():
                full = qualify(self.pack, target)
                if full not in rooms:
                    self.problem(
                        room.file,
                        f"room {room.key!r}",
                        f"exit {name!r} leads to unknown room {full!r}{self.hint(full)}",
                    )
        for kind in ("npc", "item"):
            for thing in self.data.of(kind):
                ref = getattr(thing.spec, "room", None)
                if ref is not None and qualify(self.pack, ref) not in rooms:
                    full = qualify(self.pack, ref)
                    self.problem(
                        thing.file,
                        f"{kind} {thing.key!r}",
                        f"room {full!r} does not exist{self.hint(full)}",
                    )
        if manifest is not None:
            file, info = manifest
            if info.start_room is not None:
                start = qualify(self.pack, info.start_room)
                if start in rooms:
                    self.data.start_room = start
                else:
                    self.problem(file, "start_room", f"unknown room {start!r}{self.hint(start)}")
        self.check_extensions(frozenset(rooms))

    def hint(self, full: str) -> str:
        pack = full.partition(":")[0]
        if pack != self.pack and not any(k.startswith(pack + ":") for k in self.known_rooms):
            return f" (pack {pack!r} is not among the packs {self.pack!r} requires)"
        return ""

    def check_extensions(self, rooms: frozenset[str]) -> None:
        npcs = frozenset(e.full_key for e in self.data.of("npc"))
        items = frozenset(e.full_key for e in self.data.of("item"))
        for kind in KINDS:
            for entry in self.data.of(kind):
                for name, value in entry.extensions.items():
                    ext = self.extensions[(kind, name)]
                    if ext.check is None:
                        continue
                    scope = CheckScope(self.pack, entry, rooms, npcs, items)
                    for message in _as_list(ext.check(value, scope)):
                        self.problem(entry.file, f"{kind} {entry.key!r}", f"{name}: {message}")


def _as_list(messages: Iterable[str] | None) -> list[str]:
    return list(messages) if messages is not None else []
