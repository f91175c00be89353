"""Systems: the units of simulation run by the engine each tick."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, TypeAlias

from maid_engine.ports import Host

if TYPE_CHECKING:
    from maid_engine.ecs.world import World

#: A system named in ``after``/``before``: its class (matching subclasses too) or
#: its name.
SystemRef: TypeAlias = "type[System] | str"


class System:
    """Base class of every system.

    Where a system runs in the tick is declared, not numbered (see
    :mod:`maid_engine.ecs.schedule`): ``phase`` names one of the engine's phases
    (``PHASES``); ``after``/``before`` name systems (by class or name) that must
    run before/after this one; ``order`` is a sort key for systems the
    declarations leave free (lower first; then registration order).
    ``update(delta)`` receives the game seconds elapsed since the previous tick.
    """

    phase: ClassVar[str] = ""
    after: ClassVar[tuple[SystemRef, ...]] = ()
    before: ClassVar[tuple[SystemRef, ...]] = ()
    order: ClassVar[int] = 0
    #: Name used in metrics and logs; defaults to the class name.
    name: ClassVar[str] = ""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__

    _engine: Host | None = None

    def bind(self, engine: Host) -> None:
        """Attach to the engine that runs it; a system sees it as the composite
        :class:`~maid_engine.ports.Host` port, not the concrete ``GameEngine``."""
        self._engine = engine

    @property
    def engine(self) -> Host:
        if self._engine is None:
            raise RuntimeError(f"{self.name} is not attached to an engine")
        return self._engine

    @property
    def world(self) -> World:
        return self.engine.world

    async def startup(self) -> None:
        """Called once, after every pack registered and the world was loaded."""

    async def update(self, delta: float) -> None:
        """Advance by ``delta`` game seconds. Must not await slow work."""

    async def shutdown(self) -> None:
        """Called once when the engine stops, in reverse run order."""
