"""``maid simulate``: bot players in a fast-forwarded world, and a report on the
quests it generated (the quest-quality targets, measured by a tool). See
docs/simulate.md.

* :class:`SimulationOptions`, :func:`run_simulation` -> the report dict
* :func:`summary` (readable text of a report), :func:`main` (the CLI)
* :data:`STYLES` (bot play styles), :class:`Bot`
"""

from classic_rpg.simulate.bots import STYLES, Bot, Style
from classic_rpg.simulate.cli import main
from classic_rpg.simulate.report import summary
from classic_rpg.simulate.runner import SimulationOptions, run_simulation

__all__ = ["STYLES", "Bot", "SimulationOptions", "Style", "main", "run_simulation", "summary"]
