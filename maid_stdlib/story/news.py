"""The news of a deed: who saw a world fact made true tells of it.

When a fact with ``news`` is set, the NPCs standing where it happened saw it (they
know it first-hand) and the NPCs it is told to (``told_to``: those the rescued would
run to) hear it at once; from them it spreads like any gossip, and talking to any of
them, or idling near them, brings it up. Spreading news cannot be taken back, so it
is recorded as a reaction of the fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from uuid import UUID

from maid_engine.ports import ClockPort, ServicesPort, WorldPort
from maid_stdlib.living import gossip
from maid_stdlib.story.facts import FactBook, FactSetEvent
from maid_stdlib.text.morph import join
from maid_stdlib.world.components import NPC
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService


class NewsHost(WorldPort, ServicesPort, ClockPort, Protocol):
    """What spreading news reads: the NPCs and where they stand, and game time."""


def make_news(engine: NewsHost, facts: FactBook) -> Callable[[FactSetEvent], None]:
    def on_fact(event: FactSetEvent) -> None:
        record = facts.current(event)
        if record is None or not record.news:
            return
        world, ws = engine.world, engine.services.get(WorldService)
        now = engine.clock.game_time
        statement = f"fact:{event.name}"
        witnesses = ws.npcs_in(event.room) if event.room else []
        told: list[UUID] = []
        if record.told_to:
            wanted = set(record.told_to)
            told = [uid for uid, npc in world.each(NPC) if npc.template in wanted]
        for npc in witnesses:
            gossip.observe(
                world,
                npc,
                statement,
                record.news,
                now,
                subject=statement,
                tags=("deed",),
                location=event.room,
                at=record.at,
            )
        heard = gossip.inject(
            world,
            [uid for uid in told if uid not in witnesses],
            statement,
            record.news,
            now,
            subject=statement,
            tags=("deed",),
            source=str(witnesses[0]) if witnesses else "",
            location=event.room,
            at=record.at,
        )
        names = [name_of(ws, uid) for uid in [*witnesses, *heard]]
        if names:
            facts.react(event.name, f"{join(names)} already know of it")

    return on_fact


__all__ = ["make_news"]
