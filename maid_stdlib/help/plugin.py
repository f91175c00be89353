"""HelpPlugin (``stdlib.help``): topic pages, ``help``, ``help search``, the newbie guide.

Service it provides: ``HelpTopics`` (read from every loaded pack's ``help.yaml`` and
``help/*.yaml`` once every pack registered; a bad file stops the start with the
pack and file named). Command: help. It greets a character's first login with the
``newbie`` topic.
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext, PackError
from maid_engine.events import CharacterConnectedEvent
from maid_stdlib.help import commands
from maid_stdlib.help.guide import GuideGreeter
from maid_stdlib.help.topics import HelpTopics
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["HelpPlugin"]


class HelpPlugin(ContentPack):
    name = "stdlib.help"
    version = "0.1.0"
    requires = (WorldPlugin,)
    provides = (HelpTopics,)
    description = "Help topics from pack data, help search, and the newbie guide."

    def register(self, ctx: PackContext) -> None:
        topics = HelpTopics()
        ctx.provide(HelpTopics, topics)
        ctx.add_commands(commands.COMMANDS)
        ctx.subscribe(CharacterConnectedEvent, GuideGreeter(ctx.engine, topics).on_connected)

    def finish(self, ctx: PackContext) -> None:
        # Every pack registered: read all their topics, in load order, into the one
        # service the command and the greeter already hold.
        loaded, problems = HelpTopics.load(ctx.engine.packs)
        if problems:
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise PackError(first.pack, f"help topics: {first.message}{more}", first.file)
        topics = ctx.service(HelpTopics)
        for topic in loaded.all():
            topics.add(topic)
