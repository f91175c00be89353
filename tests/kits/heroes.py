"""Player characters: made, strengthened, placed, walked and fighting with real
commands; and a recorder of the events they cause."""

from __future__ import annotations

from typing import TypeVar
from uuid import UUID

from classic_rpg.combat.service import CombatService
from classic_rpg.components import Attributes, CharacterStats, Health
from kits.engines import ws_of
from maid_engine.engine import GameEngine
from maid_engine.events import Event
from maid_engine.testing import cmd, session_for
from maid_stdlib.world import WorldCharacterFactory

E = TypeVar("E", bound=Event)


def new_character(
    engine: GameEngine, name: str = "Alice", online: bool = True, account: str | None = None
) -> UUID:
    """A player character of ``account`` (by default ``acct-<name>``), online (a
    session) by default."""
    factory = engine.services.get(WorldCharacterFactory)
    uid = factory.create_character(name, account if account is not None else f"acct-{name}")
    if online:
        session_for(engine, uid)
    return uid


def make_strong(
    engine: GameEngine, uid: UUID, *, level: int = 10, hp: int = 200, dexterity: int = 18
) -> None:
    """Enough health and attributes that the dice cannot end a test early."""
    world = engine.world
    world.get_component(uid, CharacterStats).level = level
    world.add_component(uid, Health(hp, hp))
    world.add_component(uid, Attributes(strength=18, dexterity=dexterity, constitution=16))


#: A hero strong enough for the test worlds' generated quests, and still offered them.
VETERAN_LEVEL = 6
VETERAN_HP = 400


def new_hero(engine: GameEngine, name: str = "Aria", strong: bool = True) -> UUID:
    """A player character online; ``strong``: a veteran's health, so the dice cannot
    end a test early. The level stays in the range of the villages' quests (moderate
    3-4 to hard 7): quests are matched to characters near their level, and an
    over-levelled hero is not offered them."""
    uid = new_character(engine, name)
    if strong:
        make_strong(engine, uid, level=VETERAN_LEVEL, hp=VETERAN_HP)
    return uid


def place(engine: GameEngine, uid: UUID, room: str) -> None:
    """Put ``uid`` in ``room`` (a room key) without walking."""
    ws_of(engine).move(uid, room, reason="test")


def room_of(engine: GameEngine, uid: UUID) -> str | None:
    return ws_of(engine).room_key_of(uid)


async def walk(engine: GameEngine, hero: UUID, room: str) -> None:
    """Walk ``hero`` to ``room`` exit by exit, with real movement commands.

    A fight met on the way is ended before each step (nobody walks out of one; a
    player would have to flee or win it): these walks are how tests get somewhere,
    and the fights on the way are not what they test."""
    ws = ws_of(engine)
    combat = engine.services.try_get(CombatService)
    here = ws.room_key_of(hero)
    assert here is not None
    steps = ws.path(here, room)
    assert steps is not None, f"no way from {here} to {room}"
    for step in steps:
        if combat is not None:
            combat.disengage(hero)
        await cmd(engine, hero, f"go {step}")
    assert ws.room_key_of(hero) == room


async def fight(engine: GameEngine, hero: UUID, keyword: str, max_ticks: int = 300) -> UUID:
    """``kill <keyword>`` and tick until the target is dead; returns the target."""
    ws = ws_of(engine)
    room = ws.room_key_of(hero)
    assert room is not None
    target = ws.find_in_room(room, keyword, viewer=hero)
    assert target is not None, f"no {keyword} in {room}"
    await cmd(engine, hero, f"kill {keyword}")
    for _ in range(max_ticks):
        if not engine.world.entity_exists(target):
            return target
        await engine.run_ticks(1)
    raise AssertionError(f"{keyword} did not die")


class Recorder:
    """Collects the events of the given types, in order."""

    def __init__(self, engine: GameEngine, *types: type[Event]) -> None:
        self.events: list[Event] = []
        for t in types:
            engine.events.subscribe(t, self.events.append)

    def of(self, t: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, t)]
