"""What someone of the world takes because they need it: a gift that meets one of
their open ACQUIRE goals.

Old Jory's lamp room runs dry (his goal: acquire lamp oil). A player who brings
him a flask of lamp oil and types ``give oil to jory`` sees him take it: the goal
is done, the need behind it eased, he remembers who brought it and thinks better
of them. Without this, "No oil, no lamps." was followed by "Old Jory has no use
for a flask of lamp oil."

An item meets a goal when every word of the goal's target is a word of the item's
name or one of its keywords ("lamp oil" and "a flask of lamp oil"). Keepers are
left out: what a keeper needs is what it buys, and a gift would step round the
market (a lump of ore would end the smith's shortage that the road's bandits
cause). So is what is someone else's: their owner takes it, or a quest carries it.
It lives with the shops because the shops know who keeps one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from uuid import UUID

from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gifts import GiftTaker
from classic_rpg.items.ownership import owner_of
from maid_engine.ports import ClockPort, EventsPort, ServicesPort, WorldPort
from maid_stdlib.living import (
    EmotionalValence,
    EpisodicMemory,
    GoalsComponent,
    GoalStatusChangedEvent,
    GoalType,
    LivingWorld,
    api,
)
from maid_stdlib.world.components import Describable
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

__all__ = ["NeedsMet"]

#: How much warmer someone is to whoever brought what they needed.
GRATITUDE = 0.05


class NeedsHost(WorldPort, ServicesPort, EventsPort, ClockPort, Protocol):
    """What a gift that meets a need reads and changes: goals, items, memory."""


def _words(text: str) -> set[str]:
    return {w.strip(".,;:!?'\"").lower() for w in text.split()} - {""}


class NeedsMet:
    """The items' gift taker and taken hook for needs (see the module)."""

    def __init__(self, engine: NeedsHost, keeps_shop: Callable[[UUID], bool]) -> None:
        self.engine = engine
        self.keeps_shop = keeps_shop
        #: The gift taker, one object (``Gifts.answer`` may leave it out by identity).
        self.taker: GiftTaker = self._takes

    def _living(self) -> LivingWorld | None:
        living = self.engine.services.try_get(LivingWorld)
        return living if living is not None and living.started else None

    def goal_met_by(self, receiver: UUID, item: UUID) -> str | None:
        """The id of the receiver's open ACQUIRE goal ``item`` meets, if any."""
        world = self.engine.world
        goals = world.try_component(receiver, GoalsComponent)
        if goals is None or self.keeps_shop(receiver) or self._living() is None:
            return None
        desc = world.try_component(item, Describable)
        if desc is None:
            return None
        owner = owner_of(world, item)
        if owner is not None and owner != receiver:
            return None
        called = _words(desc.name) | {k.lower() for k in desc.keywords}
        for goal in goals.goals:
            wanted = _words(goal.target or "")
            if goal.type == GoalType.ACQUIRE and goal.is_open and wanted and wanted <= called:
                return goal.id
        return None

    def _takes(self, giver: UUID, receiver: UUID, template: str) -> int | None:
        items: ItemFactory = self.engine.services.get(ItemFactory)
        # One meets the goal: the rest stay with the giver.
        for item in items.carried(giver):
            if items.template_of(item) == template and self.goal_met_by(receiver, item):
                return 1
        return None

    def taken(self, giver: UUID, receiver: UUID, items: list[UUID]) -> list[str]:
        living = self._living()
        if living is None:
            return []
        world = self.engine.world
        ws: WorldService = self.engine.services.get(WorldService)
        now = self.engine.clock.game_time
        lines: list[str] = []
        for item in items:
            goal_id = self.goal_met_by(receiver, item)
            if goal_id is None:
                continue
            goals = world.get_component(receiver, GoalsComponent)
            before = next(g.status for g in goals.goals if g.id == goal_id)
            goal = api.complete_goal(world, receiver, goal_id, now)
            if goal is None:
                continue
            self.engine.events.emit(GoalStatusChangedEvent(receiver, goal.id, before, goal.status))
            who, giver_name = capitalize(name_of(ws, receiver)), name_of(ws, giver)
            thing = name_of(ws, item)
            living.memory.add(
                EpisodicMemory(
                    receiver,
                    f"{capitalize(giver_name)} brought me {thing} when I needed it.",
                    0.5,
                    EmotionalValence.POSITIVE,
                    0.5,
                    ["gift", "need_met"],
                    player_id=giver,
                    subject_id=giver,
                    location=ws.room_key_of(receiver),
                    game_time=now,
                )
            )
            api.adjust_relationship(
                world, receiver, giver, trust=GRATITUDE, affinity=GRATITUDE, now=now
            )
            what = (goal.description or "what they needed").rstrip(".")
            lines.append(f"{who} takes it gratefully. ({what}: done.)")
        return lines
