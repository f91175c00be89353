"""Systems: the units of simulation run by the engine each tick."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from maid_engine.ecs.world import World
    from maid_engine.engine import GameEngine


class System:
    """Base class of every system.

    ``priority``: lower numbers run first (140 schedule ... 200 story signals, 210
    quest generation, 220 consequences, 225 grounding). Ties keep registration order.
    ``update(delta)`` receives the game seconds elapsed since the previous tick.
    """

    priority: ClassVar[int] = 100
    #: Name used in metrics and logs; defaults to the class name.
    name: ClassVar[str] = ""

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__

    _engine: GameEngine | None = None

    def bind(self, engine: GameEngine) -> None:
        self._engine = engine

    @property
    def engine(self) -> GameEngine:
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
        """Called once when the engine stops, in reverse priority order."""
