"""``check_pack``: validate a content pack's data without starting a server.

The engine knows nothing about world data formats, so checking is a hook: a
:class:`~maid_engine.content.ContentPack` subclass may define

    def validate_data(self, ctx: PackContext) -> list[str]: ...

returning every problem it finds as ``"file:line: entry: problem"`` lines (world
packs built on ``maid_stdlib.world.WorldDataPack`` have it; the line is where the
entry or value is written, read with :mod:`maid_engine.content.yamllines`).
``check_pack`` resolves the pack and everything it requires, runs each pack's
``register()`` (and, when all succeeded, ``finish()``) on a throwaway engine (no
store, no network, no systems started) so extension sections other packs register
are known, then calls the hook of every pack in load order and returns all
problems at once, each once.
``maid check-pack PATH`` exits 1 when any are found.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from maid_engine.config import Settings
from maid_engine.content import (
    ContentPack,
    PackContext,
    PackError,
    collect_packs,
    finish_pack,
    register_pack,
    resolve_pack,
)
from maid_engine.content.folder import pack_from_path
from maid_engine.engine import GameEngine

HOOK = "validate_data"


def check_pack(
    target: str | Path | type[ContentPack],
    also: Sequence[str | type[ContentPack]] = (),
) -> list[str]:
    """Every problem of the pack ``target`` (a name, ``module:Class``, a folder or its
    ``pack.py``) and of the packs it requires. An empty list means it is fine.

    ``also`` loads more packs alongside (e.g. a rules pack whose extension sections
    the data uses without requiring it)."""

    try:
        pack_cls = target if isinstance(target, type) else find_pack_class(target)
        packs = collect_packs([*also, pack_cls])
    except PackError as exc:
        return [str(exc)]
    with tempfile.TemporaryDirectory(prefix="maid-check-") as tmp:
        engine = GameEngine(Settings(data_dir=Path(tmp)), packs=packs, use_store=False)
        engine.packs = packs
        problems: list[str] = []
        registered: list[ContentPack] = []
        for pack in packs:
            # Keep going after a failed register(): a bad file found while
            # registering must not hide the problems of every other file.
            try:
                register_pack(engine, pack)
            except PackError as exc:
                problems.append(str(exc))
            else:
                registered.append(pack)
        if not problems:
            # Start-up validation of extension registries (a pack's bad entry);
            # after a failed register() the registries are incomplete.
            for pack in registered:
                try:
                    finish_pack(engine, pack)
                except PackError as exc:
                    problems.append(str(exc))
        for pack in packs:
            hook = getattr(pack, HOOK, None)
            if not callable(hook):
                continue
            try:
                problems.extend(str(p) for p in hook(PackContext(engine, pack)))
            except Exception as exc:
                if pack not in registered:
                    # Its register() failed (reported above) partway: what its
                    # check trips over is that failure again, not a new problem.
                    continue
                problems.append(f"{pack.name}: {HOOK}() failed: {type(exc).__name__}: {exc}")
        # One mistake, one line: two checks that reach the same problem (a pack's
        # own hook and a stdlib plugin's) do not repeat it.
        return list(dict.fromkeys(problems))


def find_pack_class(target: str | Path) -> type[ContentPack]:
    """The pack class named by an entry-point name, ``module:Class`` or a path."""
    path = Path(target)
    if isinstance(target, Path) or path.exists():
        return pack_from_path(path)
    return resolve_pack(str(target))
