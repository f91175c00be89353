"""Extension registries: who added which entry, and the lock after start-up.

An extension registry is where plugins add entries to a feature another plugin owns:
QuestGen's seed types, signal contracts, objective patterns, archetypes and quest
extensions, the story detectors, the consequence chain rules, the narrative
templates, living data and the world data's extension sections. Each keeps a
:class:`Claims`: which pack added which key. A second entry under a taken key is a
start-up error naming both packs, instead of one of them silently winning, and
``maid registries`` lists every entry with the pack that added it.

The registries are filled by packs from their ``register``, validated once every
pack registered (``finish``) and read while the engine starts: systems and services
build what they need from them then (pipelines, schedules, the living world's
data). A plugin owning a registry declares its Claims with
``PackContext.add_registry``; once the engine has started (the world loaded and the
systems started) it locks them all, and adding, replacing or removing an entry
raises :class:`RegistryLocked` -- a late entry would be seen by some readers and not
by others.

An online reload of packs would have to reopen them: :meth:`Registries.unlock` is
the one seam for that (nothing calls it yet). Whoever unlocks must also redo what
was built from the registries at start-up, then lock them again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from maid_engine.content.errors import PackError

__all__ = ["Claims", "Registries", "RegistryLocked", "RegistryRow", "render_registries"]

#: What ``maid registries`` shows for an entry no pack claimed: the registry's own
#: plugin put it there (a built-in default).
BUILT_IN = "(built in)"


class RegistryLocked(RuntimeError):
    """An extension registry was changed after the engine started."""


class Claims:
    """Which pack added which entry to one extension registry.

    ``what`` names an entry of the registry in messages ("seed type"). ``keys``, if
    given, lists every key the registry holds (built-in ones too), so that the
    listing shows the built-in entries as well; without it only claimed ones.
    """

    def __init__(self, what: str, keys: Callable[[], Iterable[str]] | None = None) -> None:
        self.what = what
        self._keys = keys
        self._owners: dict[str, str] = {}
        self._locked = False

    @property
    def locked(self) -> bool:
        return self._locked

    def check_open(self, key: str = "", action: str = "add") -> None:
        """Raise :class:`RegistryLocked` if the engine has started: every change of the
        registry (add, replace, remove) calls this first."""
        if self._locked:
            entry = f"{self.what} {key!r}" if key else f"a {self.what}"
            raise RegistryLocked(
                f"cannot {action} {entry}: extension registries are locked once the engine "
                "has started (packs add their entries from register())"
            )

    def claim(self, pack: str, key: str, *, built_in: bool = False) -> None:
        """Record that ``pack`` adds ``key``; ``built_in`` says the registry holds it
        already without an owner (a default of the layer)."""
        self.check_open(key)
        owner = self._owners.get(key)
        if owner is not None:
            raise PackError(pack, f"{self.what} {key!r} is already added by pack {owner!r}")
        if built_in:
            raise PackError(pack, f"{self.what} {key!r} is built in; choose another name")
        self._owners[key] = pack

    def owner(self, key: str) -> str | None:
        return self._owners.get(key)

    def items(self) -> list[tuple[str, str]]:
        """(key, pack) of every claimed entry, in the order they were added."""
        return list(self._owners.items())

    def listing(self) -> list[tuple[str, str | None]]:
        """(key, pack or None for a built-in entry) of every entry of the registry."""
        if self._keys is None:
            return [(key, pack) for key, pack in self._owners.items()]
        keys = list(self._keys())
        listed = set(keys)
        # A claimed key the registry does not list (it lists the entries in use):
        # still show who added it.
        extra = [k for k in self._owners if k not in listed]
        return [(key, self._owners.get(key)) for key in [*keys, *extra]]

    def _set_locked(self, locked: bool) -> None:
        self._locked = locked


@dataclass(frozen=True)
class RegistryRow:
    registry: str
    key: str
    #: The pack that added the entry; None for a built-in one.
    pack: str | None


class Registries:
    """The extension registries of one engine (their :class:`Claims`): listed by
    ``maid registries``, locked once the engine has started."""

    def __init__(self) -> None:
        self._claims: list[Claims] = []
        self._locked = False

    @property
    def locked(self) -> bool:
        return self._locked

    def add(self, *claims: Claims) -> None:
        """Declare registries (from the owning plugin's ``register``)."""
        for item in claims:
            if self._locked:
                raise RegistryLocked(
                    f"cannot declare the {item.what} registry: the engine has started"
                )
            if any(c is item for c in self._claims):
                raise ValueError(f"the {item.what} registry is declared already")
            self._claims.append(item)

    def lock(self) -> None:
        """No more changes (the engine calls it once it has started)."""
        self._locked = True
        for claims in self._claims:
            claims._set_locked(True)

    def unlock(self) -> None:
        """Reopen every registry. The seam for an online reload of packs: not called
        today. Whoever calls it must rebuild what was read from the registries at
        start-up and call :meth:`lock` again."""
        self._locked = False
        for claims in self._claims:
            claims._set_locked(False)

    def __iter__(self) -> Iterator[Claims]:
        return iter(list(self._claims))

    def rows(self) -> list[RegistryRow]:
        """Every entry of every registry with who added it, registries in the order
        they were declared, entries in the order they were added."""
        return [
            RegistryRow(claims.what, key, pack)
            for claims in self._claims
            for key, pack in claims.listing()
        ]


def render_registries(rows: Iterable[RegistryRow]) -> str:
    """The rows as an aligned text table (``maid registries``)."""
    table = [("registry", "entry", "added by")]
    table += [(r.registry, r.key, r.pack or BUILT_IN) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(2)]
    return "\n".join(
        f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}".rstrip() for a, b, c in table
    )
