"""What someone of the world takes because they need it: a gift that meets one of
their needs' ACQUIRE goals, formed or not yet.

Old Jory's lamp room runs dry (his need for supplies forms the goal: acquire lamp
oil). A player who brings him a flask of lamp oil and types ``give oil to jory``
sees him take it: an open goal is done, the need behind it eased as the goal's
completion would ease it, he remembers who brought it and thinks better of them.
Without this, "No oil, no lamps." was followed by "Old Jory has no use for a flask
of lamp oil." A need nearly full (:data:`FULL`) takes nothing.

An item meets a goal when every word of the goal's target is a word of the item's
name or one of its keywords ("lamp oil" and "a flask of lamp oil"). Keepers are
left out: what a keeper needs is what it buys, and a gift would step round the
market (a lump of ore would end the smith's shortage that the road's bandits
cause). So is what is someone else's: their owner takes it, or a quest carries it.
It lives with the shops because the shops know who keeps one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
    NeedsComponent,
    api,
)
from maid_stdlib.world.components import Describable
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

__all__ = ["NeedsMet"]

#: How much warmer someone is to whoever brought what they needed.
GRATITUDE = 0.05
#: A need at least this full takes no gift.
FULL = 0.9


@dataclass(frozen=True)
class Want:
    """A need a gift meets, and the open goal it formed (None: not yet formed)."""

    need: str
    goal: str | None
    #: The goal's description ("Fill the lamp room's oil casks").
    description: str
    #: How much the need recovers (the goal's completion).
    delta: float
    #: What the goal would acquire ("lamp oil").
    target: str = ""


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

    def want_met_by(self, receiver: UUID, item: UUID, *, full_too: bool = False) -> Want | None:
        """The receiver's need ``item`` meets, if any (``full_too``: a need it would
        meet but for being full counts)."""
        world = self.engine.world
        needs = world.try_component(receiver, NeedsComponent)
        if needs is None or self.keeps_shop(receiver) or self._living() is None:
            return None
        desc = world.try_component(item, Describable)
        if desc is None:
            return None
        owner = owner_of(world, item)
        if owner is not None and owner != receiver:
            return None
        called = _words(desc.name) | {k.lower() for k in desc.keywords}
        goals = world.try_component(receiver, GoalsComponent)
        for name, state in sorted(needs.needs.items()):
            template = state.rule.goal
            if template is None or template.type != GoalType.ACQUIRE:
                continue
            if state.value >= FULL and not full_too:
                continue
            wanted = _words(template.target or "")
            if not wanted or not wanted <= called:
                continue
            formed = goals.get(template.id) if goals is not None else None
            open_goal = formed.id if formed is not None and formed.is_open else None
            return Want(
                name,
                open_goal,
                template.description,
                template.completion_need_delta,
                template.target or "",
            )
        return None

    def _takes(self, giver: UUID, receiver: UUID, template: str) -> int | str | None:
        items: ItemFactory = self.engine.services.get(ItemFactory)
        kind = [item for item in items.carried(giver) if items.template_of(item) == template]
        # One meets the need: the rest stay with the giver.
        if any(self.want_met_by(receiver, item) for item in kind):
            return 1
        full = next((w for i in kind if (w := self.want_met_by(receiver, i, full_too=True))), None)
        if full is not None:
            ws: WorldService = self.engine.services.get(WorldService)
            target = full.target or "that"
            return f"{capitalize(name_of(ws, receiver))} has enough {target} for now."
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
            want = self.want_met_by(receiver, item)
            if want is None:
                continue
            self._meet(receiver, want, now)
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
            done = f" ({want.description.rstrip('.')}: done.)" if want.goal else ""
            lines.append(f"{who} takes it gratefully.{done}")
            break  # one meets the need (more, taken for a quest, are the quest's)
        return lines

    def _meet(self, receiver: UUID, want: Want, now: float) -> None:
        """The goal done (which eases the need), or the need eased as it would."""
        world = self.engine.world
        goals = world.try_component(receiver, GoalsComponent)
        goal = goals.get(want.goal) if goals is not None and want.goal else None
        if goal is not None:
            before = goal.status
            api.complete_goal(world, receiver, goal.id, now)
            self.engine.events.emit(GoalStatusChangedEvent(receiver, goal.id, before, goal.status))
            return
        needs = world.get_component(receiver, NeedsComponent)
        needs.satisfy(want.need, want.delta)
        world.modified(receiver, needs)
