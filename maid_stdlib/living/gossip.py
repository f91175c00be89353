"""Gossip: statements NPCs know, retell and mention when talked to.

A statement has an id shared by every copy ("threat:bandits:ironvale:trade_road"),
a source (who first stated it), a subject, content and a confidence:

* direct observation gives 1.0 (:func:`observe`);
* generated gossip (quest consequences, pack events) is capped at 0.9
  (:func:`inject`, the Doc 03 convention the quest seed relies on);
* each retelling multiplies it by :data:`RETELL_DECAY`; below
  :data:`MIN_RETELL_CONFIDENCE` nobody passes it on.

A newer fact about the same subject replaces the older one: statements carry the
game time their fact was established (``at``, kept through retellings), so "the
bandits are on the road" heard today is dropped when "an adventurer cleared the
bandits" (same subject, later fact) arrives, and an old rumour retold afterwards
does not bring it back. NPC memories keep both, with their times; what NPCs know
and say is the latest.

Every NPC's copies live in its :class:`KnownGossip` component (persistent).
Spreading is done by the SocialFabric system, between NPCs sharing a room or a
relationship, over game time.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from uuid import UUID

from maid_engine.ecs import Component, World
from maid_stdlib.living.components import Relationships, clamp_unit, target_uuid
from maid_stdlib.text.morph import is_proper
from maid_stdlib.text.voice import in_own_voice
from maid_stdlib.world.components import Describable

DIRECT_CONFIDENCE = 1.0
GENERATED_CONFIDENCE_CAP = 0.9
RETELL_DECAY = 0.8
MIN_RETELL_CONFIDENCE = 0.3
#: Statements kept per NPC; the least confident (then oldest) is forgotten first.
MAX_KNOWN = 24
#: Statements not heard again for this many game seconds are forgotten.
FORGET_AFTER = 5 * 86400.0
#: Chance per game hour that a statement is passed on to one listener.
ROOM_CHANCE_PER_HOUR = 0.6
RELATION_CHANCE_PER_HOUR = 0.15
#: Secrets are passed on reluctantly.
SECRET_FACTOR = 0.25
#: Roommates one NPC talks to per pass, at most.
MAX_LISTENERS = 4
#: A relationship carries gossip when trust or affinity reaches this.
RELATION_CARRIES_AT = 0.3


@dataclass
class GossipItem:
    id: str
    content: str
    subject: str = ""
    #: UUID string of who first stated it ("" for injected gossip).
    source: str = ""
    confidence: float = GENERATED_CONFIDENCE_CAP
    tags: list[str] = field(default_factory=list)
    #: UUID string of who told this NPC (None: observed or injected).
    heard_from: str | None = None
    heard_at: float = 0.0
    hops: int = 0
    #: Room key the statement is about, if any.
    location: str | None = None
    #: Id of a statement this one makes obsolete ("the road is clear again").
    supersedes: str | None = None
    #: Game time the fact was established (first seen, or the deed done); a
    #: retelling keeps it. 0: unknown (older copies), read as ``heard_at``.
    at: float = 0.0
    #: UUID string of the character whose deed it tells ("" if none): news of
    #: their own deed is not told back to them ("An adventurer helped me.").
    doer: str = ""

    @property
    def is_secret(self) -> bool:
        return "secret" in self.tags

    @property
    def fact_time(self) -> float:
        return self.at or self.heard_at


@dataclass
class KnownGossip(Component):
    component_name = "KnownGossip"
    items: dict[str, GossipItem] = field(default_factory=dict)


def learn(world: World, npc: UUID, item: GossipItem) -> bool:
    """Give ``npc`` its copy of ``item``; keeps the more confident copy. Returns
    whether anything changed. Learning a superseding statement drops the old one."""
    known = world.get_or_add(npc, KnownGossip)
    item.confidence = clamp_unit(item.confidence)
    if not item.at:
        item.at = item.heard_at
    if item.subject:
        same = [i for i in known.items.values() if i.subject == item.subject and i.id != item.id]
        if any(i.fact_time > item.fact_time for i in same):
            # Older news about something this NPC knows a newer fact of.
            return False
        for older in same:
            if older.fact_time < item.fact_time:
                del known.items[older.id]
    superseding = [k for k, i in known.items.items() if i.supersedes == item.id]
    if superseding:
        if item.heard_from is not None:
            # Old news retold does not undo what this NPC knows to be newer.
            return False
        for key in superseding:  # seen again first-hand: the news is current again
            del known.items[key]
    current = known.items.get(item.id)
    if current is not None and current.confidence >= item.confidence:
        # Hearing it again keeps it fresh (and a fact seen again is current again).
        current.heard_at = max(current.heard_at, item.heard_at)
        current.at = max(current.fact_time, item.fact_time)
        world.modified(npc, known)
        return False
    known.items[item.id] = item
    if item.supersedes:
        known.items.pop(item.supersedes, None)
    _trim(known)
    world.modified(npc, known)
    return True


def _trim(known: KnownGossip) -> None:
    if len(known.items) <= MAX_KNOWN:
        return
    ranked = sorted(known.items.values(), key=lambda i: (i.confidence, i.heard_at))
    for item in ranked[: len(known.items) - MAX_KNOWN]:
        del known.items[item.id]


def observe(
    world: World,
    npc: UUID,
    statement_id: str,
    content: str,
    now: float,
    *,
    subject: str = "",
    tags: Iterable[str] = (),
    location: str | None = None,
    supersedes: str | None = None,
    at: float | None = None,
) -> bool:
    """``npc`` saw it with its own eyes: confidence 1.0, source itself. ``at``: when
    the fact was established, if earlier than ``now``."""
    return learn(
        world,
        npc,
        GossipItem(
            statement_id,
            content,
            subject,
            str(npc),
            DIRECT_CONFIDENCE,
            list(tags),
            None,
            now,
            0,
            location,
            supersedes,
            now if at is None else at,
        ),
    )


def inject(
    world: World,
    tellers: Iterable[UUID],
    statement_id: str,
    content: str,
    now: float,
    *,
    subject: str = "",
    confidence: float = GENERATED_CONFIDENCE_CAP,
    tags: Iterable[str] = (),
    source: str = "",
    location: str | None = None,
    supersedes: str | None = None,
    at: float = 0.0,
    doer: str = "",
) -> list[UUID]:
    """Generated gossip (a quest consequence): confidence capped at 0.9. Returns the
    NPCs who now know it. ``at``: when its fact was established (default ``now``);
    ``doer``: the character whose deed it tells, if any."""
    capped = min(confidence, GENERATED_CONFIDENCE_CAP)
    out = []
    for npc in tellers:
        item = GossipItem(
            statement_id,
            content,
            subject,
            source,
            capped,
            list(tags),
            None,
            now,
            0,
            location,
            supersedes,
            at or now,
            doer,
        )
        if learn(world, npc, item):
            out.append(npc)
    return out


def retell(world: World, teller: UUID, listener: UUID, item: GossipItem, now: float) -> bool:
    """``teller`` tells ``listener``: confidence decays by RETELL_DECAY."""
    copy = GossipItem(
        item.id,
        item.content,
        item.subject,
        item.source,
        item.confidence * RETELL_DECAY,
        list(item.tags),
        str(teller),
        now,
        item.hops + 1,
        item.location,
        item.supersedes,
        item.fact_time,
        item.doer,
    )
    return learn(world, listener, copy)


def forget_stale(world: World, npc: UUID, known: KnownGossip, now: float) -> int:
    stale = [k for k, i in known.items.items() if now - i.heard_at > FORGET_AFTER]
    for key in stale:
        del known.items[key]
    if stale:
        world.modified(npc, known)
    return len(stale)


def tell_round(
    world: World,
    teller: UUID,
    roommates: list[UUID],
    rng: random.Random,
    hours: float,
    now: float,
) -> int:
    """``teller`` passes its news on for ``hours`` of game time. Returns how many
    statements it passed on.

    Listeners are gossiping NPCs sharing its room (``roommates``, a few of them in
    a crowd) and its relationship partners (trust or affinity >= RELATION_CARRIES_AT)
    wherever they are. Each statement reaches each listener with a chance per game
    hour; secrets much more rarely; nothing below MIN_RETELL_CONFIDENCE.
    """
    known = world.try_component(teller, KnownGossip)
    if known is None or not known.items or hours <= 0:
        return 0
    items = sorted(
        (i for i in known.items.values() if i.confidence >= MIN_RETELL_CONFIDENCE),
        key=lambda i: i.id,
    )
    if not items:
        return 0
    listeners: dict[UUID, float] = {}
    others = [o for o in roommates if o != teller]
    if len(others) > MAX_LISTENERS:
        # In a crowd one talks to a few: keeps a pass linear in the population.
        others = rng.sample(others, MAX_LISTENERS)
    for other in others:
        listeners[other] = ROOM_CHANCE_PER_HOUR
    rels = world.try_component(teller, Relationships)
    if rels is not None:
        for target, rel in sorted(rels.entries.items()):
            if max(rel.trust, rel.affinity) < RELATION_CARRIES_AT:
                continue
            uid = target_uuid(target)
            if uid is None:
                continue
            if uid not in listeners and world.has_component(uid, KnownGossip):
                listeners[uid] = RELATION_CHANCE_PER_HOUR
    told = 0
    for listener, chance in listeners.items():
        theirs = world.try_component(listener, KnownGossip)
        for item in items:
            mine = theirs.items.get(item.id) if theirs is not None else None
            if mine is not None and mine.confidence >= item.confidence * RETELL_DECAY:
                continue
            p = chance * hours * (SECRET_FACTOR if item.is_secret else 1.0)
            if rng.random() < min(p, 1.0) and retell(world, teller, listener, item, now):
                told += 1
    return told


@dataclass
class HeardNews(Component):
    """The news a player was told in conversation, by statement id, with the game
    time: talking to the people of a village does not bring the same rumour after
    every greeting (asking about it still does). Runtime only."""

    component_name = "HeardNews"
    persist = False
    told: dict[str, float] = field(default_factory=dict)


#: Game seconds before news a player was told comes up unasked again (a game day).
RETELL_TO_PLAYER_AFTER = 86400.0


def told_to(world: World, character: UUID) -> HeardNews:
    """The news ``character`` was told (made on first use)."""
    return world.get_or_add(character, HeardNews)


def gossip_items(
    world: World,
    npc: UUID,
    limit: int = 3,
    about: Callable[[str], bool] | None = None,
    skip: Callable[[GossipItem], bool] | None = None,
) -> list[GossipItem]:
    """The news ``npc`` mentions when talked to: its most confident and freshest
    (only news whose text ``about`` accepts, when given: asked about something;
    none that ``skip`` turns down). Secrets are kept."""
    known = world.try_component(npc, KnownGossip)
    if known is None:
        return []
    items = [
        i
        for i in known.items.values()
        if not i.is_secret and (about is None or about(i.content)) and (skip is None or not skip(i))
    ]
    items.sort(key=lambda i: (-i.confidence, -i.heard_at, i.id))
    return items[:limit]


def said_by(
    world: World, npc: UUID, items: list[GossipItem], now: float | None = None
) -> list[str]:
    """``items`` as ``npc`` says them at game time ``now``, hedged by confidence."""
    desc = world.try_component(npc, Describable)
    speaker = desc.name if desc is not None else ""
    return [phrase(i, speaker, now) for i in items]


def gossip_lines(
    world: World,
    npc: UUID,
    limit: int = 3,
    about: Callable[[str], bool] | None = None,
    now: float | None = None,
) -> list[str]:
    """What ``npc`` mentions when talked to (see :func:`gossip_items`), as it says it."""
    return said_by(world, npc, gossip_items(world, npc, limit, about), now)


#: First-hand news not seen again for this long (game seconds) is told as of when
#: it was seen: a band gone from the road may be back by now.
SEEN_LONG_AGO = 2 * 3600.0
#: How a speaker vouches for what they saw themselves; each speaker keeps one.
_SEEN_IT = (
    "I know it for a fact.",
    "I saw it myself.",
    "Saw it with my own eyes.",
    "You can be sure of that.",
)
_SEEN_THEN = "So it was when I last looked, anyway."


def phrase(item: GossipItem, speaker: str = "", now: float | None = None) -> str:
    """The statement as ``speaker`` says it at game time ``now``, hedged by how sure
    it is: news about themselves in their own voice ("An adventurer helped me.",
    not their name). Without ``now`` what they saw is told as current."""
    content = item.content
    if speaker and is_proper(speaker):
        content = in_own_voice(content, speaker)
    if item.confidence < _FIRST_HAND:
        return hedge(content, item.confidence)
    if now is not None and now - item.heard_at >= SEEN_LONG_AGO:
        return _with(content, _SEEN_THEN)
    # A stable pick: Python's own str hash changes from run to run.
    return _with(content, _SEEN_IT[zlib.crc32(speaker.encode()) % len(_SEEN_IT)])


#: How sure a speaker sounds, by the least confidence it takes; said after the news.
_FIRST_HAND = 0.95
_HEDGES = ((_FIRST_HAND, _SEEN_IT[0]), (0.7, ""), (0.45, "That is the word, anyway."))
_RUMOUR = "Only a rumour, mind."


def hedge(content: str, confidence: float) -> str:
    """``content`` with how sure the speaker is said after it.

    The hedge follows the news as a sentence of its own: put before it ("Word is:
    bandits ...") the news's first word would have to lose its capital, and only a
    dictionary tells "Bandits" (lower it) from "Gundrik" (keep it)."""
    said = next((h for floor, h in _HEDGES if confidence >= floor), _RUMOUR)
    return _with(content, said)


def _with(content: str, said: str) -> str:
    text = content.strip()
    if text and text[-1] not in ".!?\"'\u201d":
        text += "."
    return f"{text} {said}" if said and text else text
