"""Ambient life a player can watch: NPCs greet arrivals, talk to each other about
what they know, and react to fights and news, in the rooms where someone is.

Only rooms with an online character are looked at (a 10,000-NPC world pays for the
few rooms players stand in, nothing else). Every line spends from the room's budget:
at most ``budget`` lines per ``window`` game seconds (by default 3 per 1,440: one
real minute at the default time scale), refilled evenly; a line that finds the
budget spent is dropped, never queued. Besides reactions, a room with people in it
hears talk about every ``interval`` game seconds on average. A pack tunes all three
in its living data (``ambient:``).

What is said is built from the living world as it is: the speaker's freshest news
(its latest facts, hedged by confidence, as in ``talk``), its open goal and what
holds it up, what it is doing. The lines are presentation only: they change no
state and draw on their own random source, so a simulation's story does not depend
on who happens to be watching.
"""

from __future__ import annotations

import random
import re
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import System, World
from maid_stdlib.living.api import get_relationship
from maid_stdlib.living.components import GoalsComponent
from maid_stdlib.living.events import GoalStatusChangedEvent, ThreatObservedEvent
from maid_stdlib.living.gossip import (
    MIN_RETELL_CONFIDENCE,
    RETELL_TO_PLAYER_AFTER,
    GossipItem,
    HeardNews,
    KnownGossip,
    phrase,
    told_to,
)
from maid_stdlib.living.presence import Presence
from maid_stdlib.living.registries import AmbientSettings
from maid_stdlib.world.components import Describable
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import capitalize

#: A character is greeted in the same room at most once per this many game seconds.
GREET_AGAIN_AFTER = 3600.0
#: Game seconds a room remembers a topic it heard (none is said there again sooner).
RECENT_FOR = 4 * 3600.0


class AmbientView(Protocol):
    """What ambient life reads of the living world (``LivingWorld``)."""

    @property
    def world(self) -> World: ...

    @property
    def world_service(self) -> WorldService: ...

    @property
    def presence(self) -> Presence: ...

    @property
    def ambient(self) -> AmbientSettings: ...

    def is_threat(self, entity: UUID) -> bool: ...

    def name_of(self, entity: UUID) -> str: ...


class Ambient:
    """The rooms' budgets and the lines; the system and the event handlers use it."""

    def __init__(self, living: AmbientView) -> None:
        self.living = living
        self.rng = random.Random(0x5EED)
        #: room -> (tokens, game time of the last refill)
        self._tokens: dict[str, tuple[float, float]] = {}
        #: (room, character) -> game time of the last greeting there
        self._greeted: dict[tuple[str, UUID], float] = {}
        #: room -> {key of a topic said there lately: game time}
        self._recent: dict[str, dict[str, float]] = {}
        #: Every line said, newest last (a few, for tests and @living).
        self.said: list[tuple[str, str]] = []

    @property
    def settings(self) -> AmbientSettings:
        return self.living.ambient

    # -- the budget -------------------------------------------------------------------
    def spend(self, room: str, now: float) -> bool:
        """Take one line from ``room``'s budget; False when it is spent."""
        s = self.settings
        tokens, last = self._tokens.get(room, (float(s.budget), now))
        tokens = min(float(s.budget), tokens + max(0.0, now - last) * s.budget / max(s.window, 1.0))
        if tokens < 1.0:
            self._tokens[room] = (tokens, now)
            return False
        self._tokens[room] = (tokens - 1.0, now)
        return True

    def say(
        self,
        room: str,
        text: str,
        now: float,
        *,
        to: UUID | None = None,
        to_text: str = "",
        only: bool = False,
    ) -> bool:
        """Say ``text`` in the room; ``to`` reads ``to_text`` instead (a line about
        them in the second person: nobody should read their own name as a stranger).
        With ``only``, ``to`` is the only one who hears it."""
        if not self.spend(room, now):
            return False
        ws = self.living.world_service
        if to is not None and to_text:
            if not only:
                ws.message_room(room, text, exclude=(to,))
            ws.message_character(to, to_text)
        else:
            ws.message_room(room, text)
        self.said.append((room, text))
        del self.said[:-50]
        return True

    # -- who is here ------------------------------------------------------------------
    def people(self, room: str) -> list[UUID]:
        """The NPCs of the room who talk: people of the living world (they hold
        news), not threats, with a name."""
        look_up = self.living.world.try_components
        out = []
        # The room's NPCs from the index by kind, each looked up once: asked at
        # every step a player takes (the greeting).
        for uid in self.living.world_service.npcs_in(room):
            gossip, desc = look_up(uid, KnownGossip, Describable)
            if gossip is None or desc is None or self.living.is_threat(uid):
                continue
            out.append(uid)
        return sorted(out)

    def watched_rooms(self) -> list[str]:
        ws = self.living.world_service
        rooms = set()
        for character in ws.engine.sessions.characters_online():
            room = ws.room_key_of(character)
            if room is not None:
                rooms.add(room)
        return sorted(rooms)

    def name(self, uid: UUID) -> str:
        return capitalize(self.living.name_of(uid))

    # -- what is said -----------------------------------------------------------------
    def news_items(self, npc: UUID, unknown_to: UUID | None = None) -> list[GossipItem]:
        """The NPC's facts worth telling, latest first (those ``unknown_to`` lacks
        before the rest)."""
        world = self.living.world
        known = world.try_component(npc, KnownGossip)
        if known is None:
            return []
        items = [
            i
            for i in known.items.values()
            if not i.is_secret and i.confidence >= MIN_RETELL_CONFIDENCE
        ]
        theirs = world.try_component(unknown_to, KnownGossip) if unknown_to is not None else None

        def rank(i: GossipItem) -> tuple[bool, float, float, str]:
            known_to_them = theirs is not None and i.id in theirs.items
            return (known_to_them, -i.fact_time, -i.confidence, i.id)

        return sorted(items, key=rank)

    def news(self, npc: UUID, unknown_to: UUID | None = None) -> GossipItem | None:
        items = self.news_items(npc, unknown_to)
        return items[0] if items else None

    def news_for(self, npc: UUID, character: UUID, now: float) -> GossipItem | None:
        """The news ``npc`` greets ``character`` with: none they were told in the
        last game day (by anyone: the village's greetings are not one rumour over
        and over), nor news of their own deed."""
        heard = self.living.world.try_component(character, HeardNews)
        told = heard.told if heard is not None else {}
        mine = str(character)
        for item in self.news_items(npc, character):
            if item.doer == mine:
                continue
            at = told.get(item.id)
            if at is None or not 0 <= now - at < RETELL_TO_PLAYER_AFTER:
                return item
        return None

    def worry(self, npc: UUID) -> str:
        goals = self.living.world.try_component(npc, GoalsComponent)
        goal = goals.primary() if goals is not None else None
        if goal is None:
            return ""
        text = (goal.description or goal.id).rstrip(".")
        if goal.blocker:
            return f"{text}, with {goal.blocker} in the way."
        return f"{text}. It will be done."

    def said_in(self, room: str, key: str, now: float) -> None:
        """``key`` (a topic) was just said in ``room``: talk there leaves it for a while."""
        self._recent.setdefault(room, {})[key] = now

    def talk_line(self, room: str, now: float) -> str | None:
        """A line of talk among the people of ``room`` (not one said there lately),
        or None if there is nobody, or nothing new to say."""
        people = self.people(room)
        if not people:
            return None
        recent = self._recent.setdefault(room, {})
        for key in [k for k, t in recent.items() if not 0 <= now - t < RECENT_FOR]:
            del recent[key]
        speakers = list(people)
        self.rng.shuffle(speakers)
        for speaker in speakers:
            others = [p for p in people if p != speaker]
            listener = self.rng.choice(others) if others else None
            for key, line in self.topics(speaker, listener, now):
                if key in recent:
                    continue
                recent[key] = now
                return line
        return None

    def topics(self, speaker: UUID, listener: UUID | None, now: float) -> list[tuple[str, str]]:
        """(key, line) of what ``speaker`` could say now, the likeliest first: its
        news (the latest facts it knows), its worry, a word with the other, what
        it is doing."""
        name = self.name(speaker)
        to = self.living.name_of(listener) if listener is not None else ""
        out: list[tuple[str, str]] = []
        own = self.living.name_of(speaker)
        for item in self.news_items(speaker, listener)[:3]:
            said = phrase(item, own, now)
            if listener is not None:
                out.append((f"news:{item.id}", f'{name} says to {to}, "{said}"'))
            else:
                out.append((f"news:{item.id}", f'{name} mutters, "{said}"'))
        worry = self.worry(speaker)
        if worry:
            line = f'{name} complains to {to}, "{worry}"' if to else f'{name} sighs, "{worry}"'
            out.append((f"worry:{speaker}:{worry}", line))
        if listener is not None:
            rel = get_relationship(self.living.world, speaker, listener)
            if rel is not None and rel.cause and rel.trust < 0:
                out.append(
                    (
                        f"rival:{speaker}:{listener}",
                        f"{name} and {to} exchange sharp words ({rel.cause.rstrip('.')}).",
                    )
                )
            elif rel is not None and max(rel.trust, rel.affinity) >= 0.4:
                out.append((f"friend:{speaker}:{listener}", f"{name} shares a joke with {to}."))
        activity = self.living.presence.seen_doing(speaker, now)
        if activity:
            what = activity.replace("_", " ")
            out.append((f"doing:{speaker}:{activity}", f"{name} goes on {what}."))
        mood = self.living.presence.mood(speaker)
        if mood:
            out.append((f"mood:{speaker}:{mood}", f"{name} stares into space, looking {mood}."))
        return out

    def greet(self, character: UUID, room: str, now: float) -> bool:
        if not self.settings.greet:
            return False
        last = self._greeted.get((room, character))
        if last is not None and 0 <= now - last < GREET_AGAIN_AFTER:
            return False
        people = self.people(room)
        if not people:
            return False
        npc = self.rng.choice(people)
        self._greeted[(room, character)] = now
        who = self.living.name_of(character)
        name = self.name(npc)
        item = self.news_for(npc, character, now)
        if item is not None and self.rng.random() < 0.5:
            told_to(self.living.world, character).told[item.id] = now
            said = phrase(item, self.living.name_of(npc), now)
            text = f'{name} looks up as {who} arrives. "{said}"'
            to_text = f'{name} looks up as you arrive. "{said}"'
            self.said_in(room, f"news:{item.id}", now)
        else:
            text = f"{name} looks up and nods to {who}."
            to_text = f"{name} looks up and nods to you."
        # Only the one who came in is greeted: the others in the room would read a
        # line for every arrival (a busy square is nothing but nods).
        return self.say(room, text, now, to=character, to_text=to_text, only=True)


class AmbientSystem(System):
    """Talk in the rooms where someone is; cheap everywhere else."""

    phase = "living"
    after = ("PresenceSystem",)

    def __init__(self, ambient: Ambient) -> None:
        self.ambient = ambient

    async def update(self, delta: float) -> None:
        if delta <= 0 or not self.engine.sessions.online_count:
            return
        now = self.engine.clock.game_time
        a = self.ambient
        chance = min(1.0, delta / max(a.settings.interval, 1.0))
        for room in a.watched_rooms():
            if a.rng.random() >= chance:
                continue
            line = a.talk_line(room, now)
            if line is not None:
                a.say(room, line, now)

    # -- reactions ------------------------------------------------------------------------
    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        a = self.ambient
        world = self.engine.world
        room = event.to_room
        if room is None or event.reason != "walk":
            return  # only walking in is arriving (not logging in, recall, a teleport)
        if not world.has_component(event.entity_id, PlayerCharacter):
            return
        if not self.engine.sessions.is_online(event.entity_id):
            return
        a.greet(event.entity_id, room, self.engine.clock.game_time)

    def on_died(self, event: EntityDiedEvent) -> None:
        a = self.ambient
        room = event.room
        if not room or not a.living.world_service.characters_in(room):
            return
        people = [p for p in a.people(room) if p != event.entity_id]
        if not people:
            return
        dead = event.name
        if not dead and a.living.world.entity_exists(event.entity_id):
            dead = a.living.name_of(event.entity_id)
        if not dead:
            return  # gone, and nobody wrote down who it was: no id read out as a name
        npc = a.rng.choice(people)
        a.say(room, f"{a.name(npc)} stares at the body of {dead}.", self.engine.clock.game_time)

    def on_threat(self, event: ThreatObservedEvent) -> None:
        a = self.ambient
        ws = a.living.world_service
        room = ws.room_key_of(event.npc_id)
        if room is None or not ws.characters_in(room):
            return
        known = a.living.world.try_component(event.npc_id, KnownGossip)
        items = [
            i for i in (known.items.values() if known else []) if i.subject == event.threat_key
        ]
        if not items:
            return
        item = max(items, key=lambda i: i.fact_time)
        how = speech_verb(item.content, cleared=event.cleared)
        now = self.engine.clock.game_time
        # Said aloud now, so not the room's talk again in a moment ("warns" at once,
        # then "mutters" the same news).
        a.said_in(room, f"news:{item.id}", now)
        a.say(room, f'{a.name(event.npc_id)} {how}: "{item.content}"', now)

    def on_goal(self, event: GoalStatusChangedEvent) -> None:
        a = self.ambient
        ws = a.living.world_service
        room = ws.room_key_of(event.npc_id)
        if room is None or not ws.characters_in(room):
            return
        goals = a.living.world.try_component(event.npc_id, GoalsComponent)
        goal = goals.get(event.goal_id) if goals is not None else None
        if goal is None or not goal.description:
            return
        what = goal.description.rstrip(".")
        name = a.name(event.npc_id)
        if event.new_status == "done":
            text = f'{name} looks relieved. "{what}: done, at last."'
        elif event.new_status == "blocked":
            text = f'{name} swears quietly. "{what}? Not with {event.blocker or "this"} about."'
        else:
            return
        a.say(room, text, self.engine.clock.game_time)


#: Words that make a line an oath, so that "curses" fits it.
_OATHS = re.compile(r"\b(damn|damned|curse|cursed|blast|blasted|hell)\b", re.IGNORECASE)


def speech_verb(line: str, *, cleared: bool = False) -> str:
    """How an NPC says news of a threat: from what the line says, never a mood the
    line does not carry ("curses" only for an oath). News of a threat seen is a
    warning; news that it is gone, a relief."""
    text = line.strip().rstrip("\"'\u201d")
    if cleared:
        return "sighs with relief"
    if _OATHS.search(text):
        return "curses"
    if text.endswith("?"):
        return "asks"
    if text.endswith("!"):
        return "exclaims"
    return "warns"
