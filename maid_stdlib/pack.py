"""StdlibContentPack (``stdlib``): the group of the game-agnostic feature plugins.

In load order: ``stdlib.options`` (per-character settings), ``stdlib.world``
(rooms, movement, talking, world data),
``stdlib.help`` (help topics, help search, the newbie guide), ``stdlib.reports``
(bug, typo and idea reports), ``stdlib.living``, ``stdlib.building`` (online
building),
``stdlib.story``, ``stdlib.questgen``,
``stdlib.quest_generation``, ``stdlib.consequences``, ``stdlib.grounding``,
``stdlib.narration``, ``stdlib.navigation`` and ``stdlib.talk``. Each registers what its feature
adds; see docs/architecture.md for the table of what each provides and requires.
"""

from __future__ import annotations

from maid_engine.content import PluginGroup
from maid_stdlib.building.plugin import BuildingPlugin
from maid_stdlib.consequences.register import ConsequencesPlugin
from maid_stdlib.grounding.register import GroundingPlugin
from maid_stdlib.help.plugin import HelpPlugin
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.narration.register import NarrationPlugin
from maid_stdlib.navigation.register import NavigationPlugin
from maid_stdlib.options.plugin import OptionsPlugin
from maid_stdlib.questgen.register import QuestGenPlugin
from maid_stdlib.questgen.system_wiring import QuestGenerationPlugin
from maid_stdlib.reports.plugin import ReportsPlugin
from maid_stdlib.story.register import StoryPlugin
from maid_stdlib.talk.register import TalkPlugin
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["StdlibContentPack"]


class StdlibContentPack(PluginGroup):
    name = "stdlib"
    version = "0.1.0"
    description = "Rooms, movement, talking, help and the data format of world packs."
    # The order is the order handlers subscribe in (handlers of one event run in
    # that order); systems are ordered by their phases.
    plugins = (
        OptionsPlugin,
        WorldPlugin,
        HelpPlugin,
        ReportsPlugin,
        LivingPlugin,
        BuildingPlugin,
        StoryPlugin,
        QuestGenPlugin,
        QuestGenerationPlugin,
        ConsequencesPlugin,
        GroundingPlugin,
        NarrationPlugin,
        NavigationPlugin,
        TalkPlugin,
    )
