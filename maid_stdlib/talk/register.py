"""TalkPlugin (``stdlib.talk``): channels, socials, shout, whisper, reply, afk, @mute.

Services: ``TalkData`` (channels and socials; packs add theirs from ``register``
with ``add_channels``/``add_socials``, extension registries) and ``Channels``
(delivery, history, who listens). After every pack registered, ``finish`` makes a
command of each channel and social; one whose name another command already has
stops the start-up naming both. See docs/world.md, "Talking".
"""

from __future__ import annotations

from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterConnectedEvent
from maid_stdlib.talk import channels, mute, socials, speech
from maid_stdlib.talk.channels import Channels, channel_command
from maid_stdlib.talk.data import TalkData
from maid_stdlib.talk.socials import social_command
from maid_stdlib.talk.speech import AwayClearer
from maid_stdlib.world.plugin import WorldPlugin

__all__ = ["TalkPlugin"]


class TalkPlugin(ContentPack):
    name = "stdlib.talk"
    version = "0.1.0"
    requires = (WorldPlugin,)
    provides = (TalkData, Channels)
    description = "Channels with history, socials, shout, whisper, reply and afk."

    def register(self, ctx: PackContext) -> None:
        data = TalkData()
        data.add_builtin(ctx.pack.name)
        ctx.provide(TalkData, data)
        ctx.add_registry(data.channel_claims, data.social_claims)
        ctx.provide(Channels, Channels(ctx.engine, data))
        clearer = AwayClearer(ctx.engine)
        ctx.engine.commands.add_observer(clearer.on_command)
        ctx.subscribe(CharacterConnectedEvent, clearer.on_connected)
        for group in (channels.COMMANDS, socials.COMMANDS, speech.COMMANDS, mute.COMMANDS):
            ctx.add_commands(group)
        ctx.engine.commands.add_guard(mute.MuteGuard())

    def finish(self, ctx: PackContext) -> None:
        data = ctx.service(TalkData)
        made = [
            *(channel_command(k, spec) for k, spec in data.channels.items()),
            *(social_command(k, spec) for k, spec in data.socials.items()),
        ]
        commands = ctx.engine.commands
        for cmd in made:
            taken = [c for c in commands.match(cmd.key) if cmd.key in c.names]
            if taken:
                what = "channel" if cmd.key in data.channels else "social"
                owner = (
                    data.channel_claims.owner(cmd.key)
                    if what == "channel"
                    else data.social_claims.owner(cmd.key)
                )
                raise ctx.error(
                    f"{what} {cmd.key!r} (added by {owner}) has the name of the command "
                    f"{taken[0].key!r}; choose another name"
                )
            ctx.add_command(cmd)
