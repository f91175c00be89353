"""Getting around: exits with where they lead, an ASCII map, who is where, the game
calendar and recall (the ``stdlib.navigation`` plugin)."""

from maid_stdlib.navigation.calendar import Calendar, Moment
from maid_stdlib.navigation.layout import MapCoords, MapData, Placement, lay_out
from maid_stdlib.navigation.register import NavigationPlugin
from maid_stdlib.navigation.service import Navigation, NavigationConfig

__all__ = [
    "Calendar",
    "MapCoords",
    "MapData",
    "Moment",
    "Navigation",
    "NavigationConfig",
    "NavigationPlugin",
    "Placement",
    "lay_out",
]
