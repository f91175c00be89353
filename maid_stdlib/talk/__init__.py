"""Talking beyond say and tell: chat channels with history, data-driven socials,
shout, whisper, reply and afk (plugin ``stdlib.talk``, see docs/world.md)."""

from maid_stdlib.talk.channels import ChannelPrefs, Channels
from maid_stdlib.talk.data import ChannelSpec, SocialSpec, TalkData

__all__ = ["ChannelPrefs", "ChannelSpec", "Channels", "SocialSpec", "TalkData"]
