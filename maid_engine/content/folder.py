"""Packs loaded from a folder (``--pack ./mypack``, ``maid check-pack ./mypack``).

A pack folder holds ``pack.py`` defining exactly one named
:class:`~maid_engine.content.ContentPack` subclass, next to its data files. It
does not have to be installed: when the folder is importable as a package (an
installed pack, or one under the working directory) it is imported under that
name, so it is loaded exactly as its entry point would load it; otherwise the
folder is imported as a private package (so ``from .rules import X`` in its
``pack.py`` works) or, without ``__init__.py``, ``pack.py`` alone.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from maid_engine.content.errors import PackError
from maid_engine.content.pack import ContentPack

PACK_FILE = "pack.py"


def is_path_ref(ref: str) -> bool:
    """Whether a ``--pack`` value names a folder rather than an installed pack:
    it starts with ``.``, ``/`` or ``~``, or holds a path separator."""
    return ref.startswith((".", "/", "~")) or os.sep in ref or "/" in ref


def pack_from_path(path: str | Path) -> type[ContentPack]:
    """The pack class defined by the folder ``path`` (or its ``pack.py``)."""
    path = Path(path).expanduser().resolve()
    file = path / PACK_FILE if path.is_dir() else path
    if not file.is_file():
        raise PackError(path.name, f"no {PACK_FILE} in {path}")
    module = _import_file(file)
    found = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, ContentPack)
        and obj.__module__ == module.__name__
        and obj.name
    ]
    if len(found) != 1:
        what = "no ContentPack subclass" if not found else "several ContentPack subclasses"
        raise PackError(file.parent.name, f"{file} defines {what} with a name")
    return found[0]


def _import_file(file: Path) -> ModuleType:
    parts = [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    dotted = ".".join(parts)
    try:
        spec = importlib.util.find_spec(dotted)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin and Path(spec.origin).resolve() == file:
        return _guarded(file, lambda: importlib.import_module(dotted))
    digest = hashlib.sha1(str(file).encode()).hexdigest()[:12]
    if (file.parent / "__init__.py").is_file():
        package = f"_maid_pack_{digest}"
        _load(package, file.parent / "__init__.py", file, package_dir=file.parent)
        return _guarded(file, lambda: importlib.import_module(f"{package}.{file.stem}"))
    return _load(f"_maid_pack_{digest}", file, file)


def _guarded(file: Path, load: Callable[[], ModuleType]) -> ModuleType:
    try:
        module = load()
    except PackError:
        raise
    except Exception as exc:
        raise PackError(
            file.parent.name, f"cannot import {file}: {type(exc).__name__}: {exc}"
        ) from exc
    return module


def _load(name: str, source: Path, file: Path, package_dir: Path | None = None) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name,
        source,
        submodule_search_locations=[str(package_dir)] if package_dir is not None else None,
    )
    if spec is None or spec.loader is None:
        raise PackError(file.parent.name, f"cannot import {file}")
    module = importlib.util.module_from_spec(spec)
    # Registered before executing: ContentPack.path and dataclasses look it up.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise PackError(
            file.parent.name, f"cannot import {file}: {type(exc).__name__}: {exc}"
        ) from exc
    return module
