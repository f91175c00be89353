"""Bot players: their play styles and how they are created.

A bot is an ordinary player character made by the world's character factory,
puppeted by a :class:`~maid_engine.testing.FakeSession` and announced with the same
``CharacterConnectedEvent`` the login flow publishes, so every layer (delivery,
play-style inference, combat aggression) treats it like a person. Everything it
does afterwards goes through ``SessionManager.execute``, the path of a telnet line.

At creation each bot gets the level and kit of its style (:data:`STYLES`), granted
through the rules layer's own services: experience through ``Progression`` (so
health and mana grow as for a real level-up) and items through ``ItemFactory``,
then worn with the ``wield``/``wear`` commands. The gear is the best the loaded
packs define within the style's tier cap, so the kit adapts to any content pack.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from classic_rpg.characters.levels import Progression, xp_for_level
from classic_rpg.items.components import ItemStats
from classic_rpg.items.factory import ItemFactory
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import (
    DispatchPort,
    EventsPort,
    ServicesPort,
    SessionsPort,
    WorldLockPort,
    WorldPort,
)
from maid_engine.testing import FakeSession
from maid_stdlib.world.characters import WorldCharacterFactory
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.service import WorldService

__all__ = [
    "DECK",
    "DEFAULT_ORDER",
    "LOSES_BELOW",
    "STYLES",
    "Bot",
    "Gear",
    "Style",
    "create_bot",
    "create_bots",
    "log_out",
    "pick_gear",
    "shuffled_deck",
]


@dataclass(frozen=True)
class Style:
    """How a bot plays. Levels span the tiers the pipeline's difficulty uses
    (easy 2, moderate 4, hard 7 recommended), so some bot of the right level exists
    for every quest up to hard."""

    name: str
    level: int
    #: Highest item tier of the weapon and armour it starts with.
    gear_tier: int
    #: Healing consumables it starts with.
    potions: int
    #: Archetype traits it volunteers for first ("combat", "social", "exploration").
    prefers: tuple[str, ...]
    #: What it does without a quest: "rest", "wander", "chat" or "board".
    idle: str
    #: Also does optional objectives (aims for PERFECT).
    optional: bool = False
    #: Abandons a quest once this many of its objectives are done (None: never).
    gives_up_after: int | None = None
    #: Health fraction at which it drinks a potion or flees a fight.
    flee_below: float = 0.25
    #: Health fraction below which it rests before going on.
    rest_below: float = 0.6
    #: Which option it picks at a quest's decision (1-based; 0 = the last).
    choice: int = 1
    #: Turns down (``decline``) offers it will not take on, freeing its offer cap.
    declines: bool = True


STYLES: dict[str, Style] = {
    s.name: s
    for s in (
        Style(
            "fighter",
            level=6,
            gear_tier=2,
            potions=2,
            prefers=("combat",),
            idle="rest",
            flee_below=0.15,
            rest_below=0.7,
        ),
        Style("explorer", level=4, gear_tier=1, potions=2, prefers=("exploration",), idle="wander"),
        Style(
            "talker", level=3, gear_tier=1, potions=2, prefers=("social",), idle="chat", choice=0
        ),
        Style(
            "completionist",
            level=4,
            gear_tier=2,
            potions=3,
            prefers=(),
            idle="board",
            declines=False,
            optional=True,
            rest_below=0.8,
        ),
        Style(
            "quitter",
            level=3,
            gear_tier=1,
            potions=1,
            prefers=(),
            idle="chat",
            gives_up_after=1,
            flee_below=0.4,
        ),
    )
}
#: A bot's deck of fates (see the coordinator), shuffled anew by its seeded source
#: when used up: one attempt in six settles, one comes too late, one is too weak,
#: three are played through (a card that does not fit waits for a quest it fits).
DECK = ("settles", "late", "weak", "", "", "")
#: A bot too weak for its fight knows it has lost when its health falls below this
#: share (or it dies): it gets away and owns up.
LOSES_BELOW = 0.5
#: At a decision a bot takes its style's option, but one time in this many another
#: (drawn from its fate source): players do not always side the same way.
OTHER_CHOICE = 3


def shuffled_deck(rng: random.Random) -> list[str]:
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


#: Styles of bots 1..K, repeating.
DEFAULT_ORDER = ("fighter", "explorer", "talker", "completionist", "quitter")


@dataclass
class Bot:
    uid: UUID
    name: str
    style: Style
    session: FakeSession
    rng: random.Random
    #: The quest it is on (claimed), and since when (game seconds).
    quest_id: str | None = None
    since: float = 0.0
    #: Progress signature and when it last changed (stuck detection).
    progress: tuple[Any, ...] = ()
    progress_at: float = 0.0
    deaths_on_quest: int = 0
    #: Times it asked the giver for its current quest in person.
    asked: int = 0
    deaths: int = 0
    commands: int = 0
    #: Last lines the game sent it (diagnostics for a failed attempt).
    last_output: str = ""
    #: Rooms it walked through while idle (explorers avoid going back at once).
    visited: list[str] = field(default_factory=list)
    idle_ticks: int = 0
    #: Game time its last quest ended (claims favour whoever waited longest).
    idle_since: float = 0.0
    #: Where its fates come from (see the coordinator): seeded like ``rng`` but
    #: apart from it, so drawing a fate does not change where it wanders.
    fate_rng: random.Random = field(default_factory=random.Random)
    #: Fates still to come (:data:`DECK`), drawn in order.
    deck: list[str] = field(default_factory=list)
    #: The option it chose at each decision ((quest, objective) -> 1-based option).
    choices: dict[tuple[str, str], int] = field(default_factory=dict)
    #: On a quest it is too weak for and has not lost yet: it fights without resting
    #: first or drinking, until it must flee.
    over_reaching: bool = False
    #: It lost a fight on its current quest (fled or died).
    lost: bool = False


@dataclass(frozen=True)
class Gear:
    weapon: str | None
    armour: tuple[str, ...]
    potion: str | None


class GearHost(WorldPort, ServicesPort, Protocol):
    """What choosing and wearing gear reads: the items and the world data."""


class BotHost(
    WorldPort, EventsPort, ServicesPort, SessionsPort, WorldLockPort, DispatchPort, Protocol
):
    """What bringing bots in and out uses: creating and equipping the character,
    the connect and disconnect events, its session, and the world lock and safe
    point a real login goes through."""


def _item_templates(engine: ServicesPort) -> list[tuple[str, Any]]:
    """(template key, stats model) of every item template with ``stats:``."""
    data = engine.services.get(WorldData)
    out = []
    for pack in sorted(data.declared()):
        for entry in data.load(pack).of("item"):
            stats = entry.extensions.get("stats")
            if stats is not None:
                out.append((entry.full_key, stats))
    return out


def pick_gear(engine: ServicesPort, tier_cap: int) -> Gear:
    """The best weapon, the best armour per slot and the strongest potion the packs
    define, weapon and armour within ``tier_cap``."""
    weapon: tuple[float, str] | None = None
    armour: dict[str, tuple[int, str]] = {}
    potion: tuple[int, str] | None = None
    for key, stats in _item_templates(engine):
        tier = int(getattr(stats, "tier", 1) or 1)
        slot = getattr(stats, "slot", None)
        damage = getattr(stats, "damage", None)
        heal = int(getattr(stats, "heal", 0) or 0)
        if heal > 0 and (potion is None or (heal, key) > potion):
            potion = (heal, key)
        if tier > tier_cap or slot is None:
            continue
        if slot == "weapon" and damage:
            low, high = damage
            score = (low + high) / 2
            if weapon is None or (score, key) > weapon:
                weapon = (score, key)
        elif slot != "weapon":
            value = int(getattr(stats, "armor", 0) or 0)
            if value > 0 and (slot not in armour or (value, key) > armour[slot]):
                armour[slot] = (value, key)
    return Gear(
        weapon[1] if weapon else None,
        tuple(k for _, (_, k) in sorted(armour.items())),
        potion[1] if potion else None,
    )


async def create_bots(
    engine: BotHost, count: int, seed: int, order: tuple[str, ...] = DEFAULT_ORDER
) -> list[Bot]:
    """Create, equip and log in ``count`` bots (styles in ``order``, repeating)."""
    bots = []
    for n in range(count):
        style = STYLES[order[n % len(order)]]
        name = f"{style.name.capitalize()}{n // len(order) + 1}"
        bots.append(await create_bot(engine, style, name, seed))
    return bots


async def create_bot(engine: BotHost, style: Style, name: str, seed: int) -> Bot:
    """A new character of ``style`` called ``name``, logged in and equipped."""
    factory = engine.services.get(WorldCharacterFactory)
    account = f"simulate-{name.lower()}"
    async with engine.world_lock:
        uid = factory.create_character(name, account)
        session = FakeSession()
        # The fake session's own id counts sessions across the process: a run after
        # another one in the same process would see other ids (and order by them).
        session.id = f"simulate-{seed}-{name.lower()}"
        session.account_id = account
        engine.sessions.attach(session, uid)
        await engine.events.publish(CharacterConnectedEvent(uid, session.id))
        _grant(engine, uid, style)
    await engine.dispatch_events()
    bot = Bot(
        uid,
        name,
        style,
        session,
        random.Random(f"{seed}:{name}"),
        fate_rng=random.Random(f"{seed}:{name}:fate"),
    )
    bot.deck = shuffled_deck(bot.fate_rng)
    for line in _equip_lines(engine, uid):
        await engine.sessions.execute(session, line)
    session.sent.clear()
    return bot


async def log_out(engine: BotHost, bot: Bot) -> None:
    """The bot's player quits (as the login flow does when a connection closes)."""
    async with engine.world_lock:
        await engine.events.publish(
            CharacterDisconnectedEvent(bot.uid, bot.session.id, reason="quit")
        )
        engine.sessions.detach(bot.session)
    await engine.dispatch_events()


def _grant(engine: ServicesPort, uid: UUID, style: Style) -> None:
    engine.services.get(Progression).award_experience(
        uid, xp_for_level(style.level), "(simulation kit)"
    )
    gear = pick_gear(engine, style.gear_tier)
    items = engine.services.get(ItemFactory)
    for template in [gear.weapon, *gear.armour]:
        if template is not None:
            items.spawn(template, holder=uid)
    if gear.potion is not None:
        for _ in range(style.potions):
            items.spawn(gear.potion, holder=uid)


def _equip_lines(engine: GearHost, uid: UUID) -> list[str]:
    """``wield``/``wear`` lines for what the bot carries that can be worn."""
    items = engine.services.get(ItemFactory)
    ws = engine.services.get(WorldService)
    lines = []
    for item in items.carried(uid):
        stats = engine.world.try_component(item, ItemStats)
        if stats is None or stats.slot is None:
            continue
        keywords = ws.keywords_of(item)
        if keywords:
            verb = "wield" if stats.slot == "weapon" else "wear"
            lines.append(f"{verb} {keywords[0]}")
    return lines
