"""Drawing a laid-out map as text: rooms as ``[ ]``, ways as ``- | / \\``.

Each room takes three characters (``[ ]``) with one between neighbours, and rows
alternate between rooms and the ways joining them, so one map cell is 4 columns by
2 rows. The middle of a room says what is special about it: ``@`` you, ``^`` a way
up, ``v`` a way down, ``#`` both. A way whose room is not drawn (beyond the radius,
or left off) still shows as a stub, so the edge of the map says where it goes on.
"""

from __future__ import annotations

from collections.abc import Callable

from maid_stdlib.navigation.layout import VECTORS, Placement

__all__ = ["LEGEND", "draw"]

LEGEND = "[@] you  [^] way up  [v] way down  [#] up and down  - | / \\ ways"

#: Compass exit -> (row, column) of its connector, from the room's "[" character.
_CONNECTORS: dict[str, tuple[int, int, str]] = {
    "east": (0, 3, "-"), "west": (0, -1, "-"), "north": (-1, 1, "|"), "south": (1, 1, "|"),
    "northeast": (-1, 3, "/"), "southwest": (1, -1, "/"),
    "northwest": (-1, -1, "\\"), "southeast": (1, 3, "\\"),
}  # fmt: skip


def marker(exits: dict[str, str], here: bool) -> str:
    if here:
        return "@"
    up, down = "up" in exits, "down" in exits
    return "#" if up and down else "^" if up else "v" if down else " "


def draw(
    placed: Placement, here: str, exits_of: Callable[[str], dict[str, str]], width: int
) -> list[str]:
    """The map's lines, at most ``width`` columns, cropped around ``here`` if wider."""
    xs = [x for x, _ in placed.cells]
    ys = [y for _, y in placed.cells]
    left, top = min(xs), min(ys)
    # One column and row of margin all round, for the stubs at the edges.
    cols = (max(xs) - left) * 4 + 5
    rows = (max(ys) - top) * 2 + 3
    grid = [[" "] * cols for _ in range(rows)]

    def put(row: int, col: int, char: str) -> None:
        if not (0 <= row < rows and 0 <= col < cols):
            return
        old = grid[row][col]
        if old == " " or old == char:
            grid[row][col] = char
        elif {old, char} == {"/", "\\"}:
            grid[row][col] = "X"

    for (x, y), room in placed.cells.items():
        row, col = (y - top) * 2 + 1, (x - left) * 4 + 1
        exits = exits_of(room)
        grid[row][col : col + 3] = ["[", marker(exits, room == here), "]"]
        for name, target in exits.items():
            if name not in _CONNECTORS:
                continue
            dr, dc, char = _CONNECTORS[name]
            put(row + dr, col + dc, char)
            _stretch(put, placed, (x, y), target, name, row, col)
    lines = ["".join(r).rstrip() for r in grid]
    hx, _ = placed.where[here]
    centre = (hx - left) * 4 + 2
    if cols > width:
        start = min(max(0, centre - width // 2), cols - width)
        lines = [line[start : start + width].rstrip() for line in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _stretch(
    put: Callable[[int, int, str], None],
    placed: Placement,
    cell: tuple[int, int],
    target: str,
    name: str,
    row: int,
    col: int,
) -> None:
    """Fill a straight east-west or north-south way longer than one cell (declared
    coordinates can place a room several cells along)."""
    there = placed.where.get(target)
    dx, dy = VECTORS[name]
    if there is None or (there[0] - cell[0], there[1] - cell[1]) == (dx, dy):
        return
    steps_x, steps_y = there[0] - cell[0], there[1] - cell[1]
    if dy == 0 and steps_y == 0 and steps_x * dx > 0:
        for c in range(col + (3 if dx > 0 else -1), col + steps_x * 4 + (0 if dx > 0 else 2), dx):
            put(row, c, "-")
    elif dx == 0 and steps_x == 0 and steps_y * dy > 0:
        for r in range(row + dy, row + steps_y * 2, dy):
            put(r, col + 1, "|")
