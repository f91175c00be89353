"""Where rooms go on a map: laid out from the compass directions of their exits, or
from coordinates a pack declares.

The layout is local: it starts at the viewer's room and walks the exits breadth
first, up to a radius, giving each room a cell relative to the first. A room's
place comes from the exit that first reached it: one cell in that exit's direction,
or, when both rooms declare coordinates (a ``map: {x:, y:, z:}`` section in their
data) on one level, the difference of the two. Declared coordinates let a pack draw
a long road as a long line, or place a room behind an exit called "gate". A room
whose cell is already taken (the data's geometry does not close) is left off rather
than drawn over another; ``exits`` still lists it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from maid_engine.ecs import Component
from maid_stdlib.world.text import exit_order

__all__ = ["VECTORS", "MapCoords", "MapData", "Placement", "lay_out"]

#: Compass exit -> (dx, dy) on the map; north is up (y grows southwards).
VECTORS: dict[str, tuple[int, int]] = {
    "north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0),
    "northeast": (1, -1), "northwest": (-1, -1), "southeast": (1, 1), "southwest": (-1, 1),
}  # fmt: skip

Cell = tuple[int, int]
Coords = tuple[int, int, int]


class MapData(BaseModel):
    """The ``map:`` section of a room entry: its place on the pack's map."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    x: int
    y: int
    #: The level (0 = ground; up is +1).
    z: int = 0


@dataclass
class MapCoords(Component):
    """A room's declared place on its pack's map (from its ``map:`` section)."""

    component_name = "MapCoords"
    x: int = 0
    y: int = 0
    z: int = 0


@dataclass
class Placement:
    """The rooms of one map, by cell, and each placed room's cell."""

    cells: dict[Cell, str] = field(default_factory=dict)
    where: dict[str, Cell] = field(default_factory=dict)

    def put(self, room: str, cell: Cell) -> None:
        self.cells[cell] = room
        self.where[room] = cell


def lay_out(
    start: str,
    radius: int,
    exits_of: Callable[[str], dict[str, str]],
    coords_of: Callable[[str], Coords | None],
) -> Placement:
    """Place the rooms within ``radius`` steps of ``start`` (which is at (0, 0))."""
    placed = Placement()
    placed.put(start, (0, 0))
    queue = deque([(start, 0)])
    while queue:
        room, depth = queue.popleft()
        if depth >= radius:
            continue
        x, y = placed.where[room]
        mine = coords_of(room)
        for name, target in sorted(exits_of(room).items(), key=lambda item: exit_order(item[0])):
            if target in placed.where:
                continue
            theirs = coords_of(target) if mine is not None else None
            if mine is not None and theirs is not None:
                if theirs[2] != mine[2]:
                    continue  # another level
                cell = (x + theirs[0] - mine[0], y + theirs[1] - mine[1])
            elif name in VECTORS:
                dx, dy = VECTORS[name]
                cell = (x + dx, y + dy)
            else:
                continue  # up, down, in, gate ...: no place on this level
            if cell in placed.cells:
                continue
            placed.put(target, cell)
            queue.append((target, depth + 1))
    return placed
