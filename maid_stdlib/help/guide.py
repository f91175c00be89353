"""The newbie guide: shown once, on a character's first login.

It is the ``newbie`` help topic (a pack may replace it with its own), so ``help
newbie`` shows the same page again. ``NewbieGuide`` on the character records that
it was shown; it is stored with the character, so the guide never comes back after
a restart or on another connection.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from maid_engine.ecs import Component
from maid_engine.events import CharacterConnectedEvent
from maid_engine.ports import SessionsPort, WorldPort
from maid_stdlib.help.topics import HelpTopics

log = logging.getLogger("maid.help")

GUIDE_TOPIC = "newbie"
GUIDE_HEADER = "|y*** New here? A short guide (type 'help newbie' to read it again) ***|n"


@dataclass
class NewbieGuide(Component):
    """On a character once the newbie guide was shown to it."""

    component_name = "NewbieGuide"
    shown: bool = True


class GuideHost(WorldPort, SessionsPort, Protocol):
    """What the guide needs: the character's components and its session."""


class GuideGreeter:
    def __init__(self, engine: GuideHost, topics: HelpTopics) -> None:
        self.engine = engine
        self.topics = topics

    def on_connected(self, event: CharacterConnectedEvent) -> None:
        world = self.engine.world
        uid = event.character_id
        if not world.entity_exists(uid) or world.has_component(uid, NewbieGuide):
            return
        topic = self.topics.get(GUIDE_TOPIC)
        session = self.engine.sessions.session_for(uid)
        if topic is None or session is None:
            return
        session.send(f"\n{GUIDE_HEADER}\n{topic.text.rstrip()}")
        world.add_component(uid, NewbieGuide())
