"""Quest delivery: how a generated quest reaches a character.

Quests are never injected into a quest log. The :class:`DeliveryPlanner` picks one
of seven ways for each matched character, and the delivery waits in the
character's persisted :class:`PendingDeliveries` until its real trigger happens:

=================  ======================  ============================================
method             trigger                 fires when
=================  ======================  ============================================
DIRECT_OFFER       ``npc_proximity``       the character and the giver share a room
LETTER             ``next_room_enter``     the character next enters a room
RUMOR              ``npc_gossip``          the character talks to an NPC who knows
                                           the gossip about the situation
DISCOVERY          ``room_enter``          the character enters the quest's place
OVERHEARD          ``npc_pair_in_room``    the character is in a room with two NPCs
                                           who know about it
CONVERSATION       ``npc_conversation``    the character talks to (or asks about the
                                           matter) the giver or a person involved
NOTICE_BOARD       ``notice_board``        the character reads a notice board of the
                                           quest's region (``board`` / ``read board``)
=================  ======================  ============================================

Meeting the giver in person always wins: any pending delivery of a giver's quest
is offered directly when the two share a room, and a giver offers an open quest
that was never planned for the character (it matched nobody when it was built, or
the character logged in later) when they meet, if the character matches now.

Planning is asked once per online character when a quest is published, and once per
open quest when a character logs in, so it never walks every NPC per character:
:class:`GossipCarriers` keeps who carries gossip under which statement and topic word
as the gossip spreads, and the planner keeps, for as long as nothing moved and no
gossip changed, each quest's living tellers and (once a second character asks) the
nearest teller from every room, found by one search outwards from the tellers.

Offers go through a :class:`QuestOffers` sink installed by the rules layer (the
QuestManager in classic_rpg), which enforces nothing of this policy: the
per-character pending-offer cap, the match threshold and the opt-out are checked by
:class:`~maid_stdlib.questgen.delivery_service.QuestDeliveryService` (which keeps
the pending deliveries and fires the triggers) at planning and again when a
trigger fires.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable
from uuid import UUID

from maid_engine.ecs import Component, World
from maid_stdlib.living.gossip import GossipItem, KnownGossip
from maid_stdlib.questgen.narrative.reputation import ReputationLabel
from maid_stdlib.questgen.personalization import PlayerProfile, PlayStyle
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod
from maid_stdlib.world.components import Describable, Item, Room

if TYPE_CHECKING:
    from maid_stdlib.questgen.facts import WorldFacts

__all__ = [
    "DeliveryPlanner",
    "DeliveryPolicy",
    "GossipCarriers",
    "OpenQuest",
    "PendingDeliveries",
    "PendingDelivery",
    "PersonalizedQuest",
    "QuestDelivery",
    "QuestOffers",
]

log = logging.getLogger("maid.questgen.delivery")

#: Room flag marking a room as having a notice board.
BOARD_FLAG = "notice_board"


M = QuestDeliveryMethod
TRIGGERS: dict[QuestDeliveryMethod, str] = {
    M.DIRECT_OFFER: "npc_proximity",
    M.LETTER: "next_room_enter",
    M.RUMOR: "npc_gossip",
    M.DISCOVERY: "room_enter",
    M.OVERHEARD: "npc_pair_in_room",
    M.CONVERSATION: "npc_conversation",
    M.NOTICE_BOARD: "notice_board",
}
GREETINGS: dict[ReputationLabel, str] = {
    ReputationLabel.TRUSTED_ALLY: "greets you like an old friend",
    ReputationLabel.FRIENDLY: "nods to you in recognition",
    ReputationLabel.NEUTRAL: "looks you over",
    ReputationLabel.STRANGER: "sizes you up",
    ReputationLabel.WARY: "eyes you warily",
    ReputationLabel.DISTRUSTED: "scowls at you",
}


@dataclass(frozen=True)
class QuestDelivery:
    method: QuestDeliveryMethod
    trigger: str
    #: Who passes it on (RUMOR, CONVERSATION).
    delivery_npc: UUID | None = None
    #: Where it is found (DISCOVERY) or posted (NOTICE_BOARD).
    trigger_location: str | None = None


@dataclass
class PersonalizedQuest:
    """A quest matched to one character, with how it will reach them."""

    quest: GeneratedQuest
    character_id: UUID
    match_score: float
    delivery: QuestDelivery
    #: Per-character lines added to the offer (greeting, history, difficulty).
    narrative_additions: list[str] = field(default_factory=list)
    reputation: ReputationLabel = ReputationLabel.STRANGER


@dataclass
class PendingDelivery:
    quest_id: str
    method: QuestDeliveryMethod
    trigger: str
    giver_id: UUID
    match_score: float
    planned_at: float
    delivery_npc: UUID | None = None
    trigger_location: str | None = None


@dataclass
class PendingDeliveries(Component):
    """Deliveries waiting for their trigger (persisted with the character)."""

    component_name = "QuestgenPendingDeliveries"
    items: dict[str, PendingDelivery] = field(default_factory=dict)


@runtime_checkable
class QuestOffers(Protocol):
    """The rules layer's side of an offer (classic_rpg: the QuestManager)."""

    def offer(self, character: UUID, quest_id: str, method: str, match_score: float) -> str | None:
        """Offer the quest; returns the line telling the player how to accept it,
        or None when it could not be offered."""
        ...

    def pending_offers(self, character: UUID) -> int: ...

    def active_quests(self, character: UUID) -> list[str]: ...

    def has_quest(self, character: UUID, quest_id: str) -> bool:
        """Offered, running, already done, or lately turned down: do not offer it
        (now)."""
        ...

    def is_open(self, quest_id: str) -> bool: ...

    def accepted(self, quest_id: str) -> bool:
        """Someone has taken the quest on (running, finished or turned in)."""
        ...


@dataclass
class OpenQuest:
    """A registered generated quest still open, with what delivery needs of it."""

    quest: GeneratedQuest
    #: Words the situation is about ("bandit", "iron", "trade").
    topics: frozenset[str] = frozenset()
    #: Gossip statement ids about it (the living layer's threat keys).
    gossip_ids: frozenset[str] = frozenset()


@dataclass(frozen=True)
class DeliveryPolicy:
    max_pending_offers: int = 2
    min_match_score: float = 0.3
    trusted_letter: float = 0.6
    rumor_importance: float = 0.7
    board_keywords: tuple[str, ...] = ("noticeboard",)
    board_templates: tuple[str, ...] = ()


#: What a carrier is indexed under: ("id", statement id) or ("topic", topic word).
CarrierKey = tuple[str, str]


class _Carriers:
    """The entities whose gossip is indexed under exactly ``keys``."""

    __slots__ = ("keys", "members")

    def __init__(self, keys: frozenset[CarrierKey]) -> None:
        self.keys = keys
        self.members: set[UUID] = set()


class GossipCarriers:
    """Which entities carry (not secret) gossip under which statement ids and topic
    words: the candidates for telling a quest's rumour.

    It follows the gossip as it spreads: a hook on KnownGossip marks an entity whose
    gossip changed, and it is read again at the next question, so a question costs
    the changes since the last one and the size of its answer, never a walk over
    every NPC. Entities that lost their gossip or were destroyed (which runs no
    hook) are dropped when a question meets them.

    Entities are kept in groups of the same keys: gossip spreads by copies, so
    thousands of NPCs hold the same few statements, and a set of holders per key
    (each of thousands) made the index 1.5-2 KiB a carrier; now it is about 75
    bytes."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._started = False
        self._dirty: set[UUID] = set()
        self._group_of: dict[UUID, _Carriers] = {}
        self._groups: dict[frozenset[CarrierKey], _Carriers] = {}
        self._holders: dict[CarrierKey, list[_Carriers]] = {}
        #: KnownGossip components read (what tests of its cost count).
        self.reads = 0

    def _start(self) -> None:
        # Hooked on first use or at start-up (``warm``), whichever comes first.
        if self._started:
            return
        self._started = True
        self.world.on_changed(KnownGossip, self._changed)
        self._dirty.update(uid for uid, _ in self.world.each(KnownGossip))

    def warm(self) -> None:
        """Index every entity's gossip now: the server calls it at start-up, so the
        first delivery planned (a player logging in) neither waits for the whole
        world's gossip to be read nor makes the index's memory look like that
        player's."""
        self._start()
        self._refresh()

    def _refresh(self) -> None:
        if self._dirty:
            for entity in self._dirty:
                self._reindex(entity)
            self._dirty.clear()

    def _changed(self, entity: UUID, _known: KnownGossip) -> None:
        self._dirty.add(entity)

    def _reindex(self, entity: UUID) -> None:
        known = self.world.try_component(entity, KnownGossip)
        keys: set[CarrierKey] = set()
        if known is not None:
            self.reads += 1
            for item in known.items.values():
                if item.is_secret:
                    continue
                keys.add(("id", item.id))
                keys.update(("topic", word) for word in topic_tokens(item.content, item.subject))
        self._set_keys(entity, frozenset(keys))

    def _set_keys(self, entity: UUID, keys: frozenset[CarrierKey]) -> None:
        old = self._group_of.get(entity)
        if old is not None:
            if old.keys == keys:
                return
            del self._group_of[entity]
            old.members.discard(entity)
            if not old.members:
                self._drop(old)
        if not keys:
            return
        group = self._groups.get(keys)
        if group is None:
            group = self._groups[keys] = _Carriers(keys)
            for key in keys:
                self._holders.setdefault(key, []).append(group)
        group.members.add(entity)
        self._group_of[entity] = group

    def _drop(self, group: _Carriers) -> None:
        del self._groups[group.keys]
        for key in group.keys:
            holding = self._holders[key]
            holding.remove(group)
            if not holding:
                del self._holders[key]

    def about(self, oq: OpenQuest) -> set[UUID]:
        """Entities holding a copy of a statement about the quest's situation or one
        that shares a topic word with it (``DeliveryPlanner.gossip_about`` agrees)."""
        self._start()
        self._refresh()
        wanted = [("id", gossip_id) for gossip_id in oq.gossip_ids]
        wanted.extend(("topic", word) for word in oq.topics)
        found: set[UUID] = set()
        for group in {g for key in wanted for g in self._holders.get(key, ())}:
            found |= group.members
        world = self.world
        gone = [
            uid
            for uid in found
            if not world.entity_exists(uid) or not world.has_component(uid, KnownGossip)
        ]
        for uid in gone:
            self._set_keys(uid, frozenset())
            found.discard(uid)
        return found


@dataclass
class _Tellers:
    """One quest's living tellers while the world stands still (see ``stamp``)."""

    stamp: tuple[int, int]
    graph: object
    #: Living NPCs other than the giver who carry the gossip, sorted.
    npcs: list[UUID]
    #: room -> the smallest id (as text) of the tellers there.
    labels: dict[str, str]
    by_label: dict[str, UUID]
    asked: int = 0
    #: room -> (distance, label) of the nearest teller, built on the second question.
    nearest: dict[str, tuple[int, str]] | None = None


class DeliveryPlanner:
    """Chooses how a quest reaches a character (the first method that fits, in order)."""

    def __init__(self, facts: WorldFacts, policy: DeliveryPolicy) -> None:
        self.facts = facts
        self.policy = policy
        self._carriers: GossipCarriers | None = None
        #: quest id -> its tellers, valid while their stamp holds.
        self._tellers: dict[str, _Tellers] = {}
        self._boards: tuple[tuple[int, ...], list[str]] | None = None

    @property
    def carriers(self) -> GossipCarriers:
        """Who carries which gossip (made on first use, for the facts' world)."""
        if self._carriers is None:
            self._carriers = GossipCarriers(self.facts.engine.world)
        return self._carriers

    def warm(self) -> None:
        """Build the gossip carriers' index now (see :meth:`GossipCarriers.warm`)."""
        self.carriers.warm()

    # -- who knows what -----------------------------------------------------------------
    def gossip_about(self, npc: UUID, oq: OpenQuest) -> GossipItem | None:
        known = self.facts.engine.world.try_component(npc, KnownGossip)
        if known is None:
            return None
        for item in sorted(known.items.values(), key=lambda i: (-i.confidence, i.id)):
            if item.is_secret:
                continue
            if item.id in oq.gossip_ids or oq.topics & topic_tokens(item.content, item.subject):
                return item
        return None

    def knows(self, npc: UUID, oq: OpenQuest) -> bool:
        quest = oq.quest
        return (
            npc == quest.quest_giver_id
            or npc in quest.involved_npcs
            or self.gossip_about(npc, oq) is not None
        )

    def gossips(self, oq: OpenQuest) -> list[UUID]:
        """Living NPCs other than the giver who carry gossip about the situation."""
        return list(self.tellers(oq).npcs)

    def tellers(self, oq: OpenQuest) -> _Tellers:
        """The quest's tellers, kept while no gossip changed and nothing moved: every
        character a published quest is planned for shares them."""
        facts = self.facts
        world, ws = facts.engine.world, facts.ws
        stamp = (world.version_of(KnownGossip), ws.placement_version)
        graph = ws.graph()
        held = self._tellers.get(oq.quest.id)
        if held is not None and held.stamp == stamp and held.graph is graph:
            return held
        giver = oq.quest.quest_giver_id
        npcs = sorted(
            uid
            for uid in self.carriers.about(oq)
            if uid != giver and facts.is_alive(uid) and facts.is_npc(uid)
        )
        labels: dict[str, str] = {}
        by_label: dict[str, UUID] = {}
        for uid in npcs:
            room = facts.room_of(uid)
            if room is None or not ws.has_room(room):
                continue
            label = str(uid)
            by_label[label] = uid
            if room not in labels or label < labels[room]:
                labels[room] = label
        held = _Tellers(stamp, graph, npcs, labels, by_label)
        # Only the open quests' entries are kept; a closed quest's goes with the next.
        self._tellers = {
            qid: t for qid, t in self._tellers.items() if t.stamp == stamp and t.graph is graph
        }
        self._tellers[oq.quest.id] = held
        return held

    def nearest_teller(self, here: str | None, oq: OpenQuest) -> UUID | None:
        """The teller nearest to ``here`` (of equals, the smallest id): what
        ``nearest(here, gossips(oq))`` answers, without a search per teller."""
        if here is None:
            return None
        told = self.tellers(oq)
        if not told.labels:
            return None
        told.asked += 1
        if told.nearest is None and told.asked > 1:
            # A second character asks while the world stands still: a published quest
            # being planned for everyone online. Answer every room at once.
            told.nearest = self.facts.ws.graph().nearest_labels(told.labels)
        if told.nearest is not None:
            found = told.nearest.get(here)
            label = found[1] if found is not None else None
        else:
            ring = self.facts.ws.graph().closest(here, told.labels)
            label = min(told.labels[room] for room in ring[1]) if ring is not None else None
        if label is None:
            return None
        teller = told.by_label[label]
        if not self.facts.is_alive(teller):
            # Died since (deaths move nothing and change no gossip): ask afresh.
            self._tellers.pop(oq.quest.id, None)
            return self.nearest_teller(here, oq)
        return teller

    def talked_about(self, oq: OpenQuest) -> bool:
        """Two or more living NPCs (not the giver) carry gossip about it."""
        alive = 0
        for uid in self.tellers(oq).npcs:
            if self.facts.is_alive(uid):
                alive += 1
                if alive >= 2:
                    return True
        return False

    def nearest(self, here: str | None, npcs: Iterable[UUID]) -> UUID | None:
        ranked = []
        for npc in npcs:
            dist = self.facts.distance(here, self.facts.room_of(npc))
            if dist is not None:
                ranked.append((dist, str(npc), npc))
        return min(ranked)[2] if ranked else None

    # -- notice boards ------------------------------------------------------------------
    def board_in(self, room: str | None) -> UUID | str | None:
        """The notice board of ``room``: an item, or the room itself when flagged."""
        if room is None:
            return None
        facts = self.facts
        found = facts.ws.room(room)
        if found is not None and BOARD_FLAG in found.flags:
            return room
        policy, world = self.policy, facts.engine.world
        for uid in facts.ws.items_in(room):
            item = world.try_component(uid, Item)
            desc = world.try_component(uid, Describable)
            if item is not None and item.template in policy.board_templates:
                return uid
            if desc is not None and set(desc.keywords) & set(policy.board_keywords):
                return uid
        return None

    def board_rooms(self) -> list[str]:
        """Rooms with a notice board, kept while nothing moved and no room, item or
        description changed (every character a quest is planned for asks)."""
        facts = self.facts
        world = facts.engine.world
        stamp = (
            facts.ws.placement_version,
            world.version_of(Room),
            world.version_of(Item),
            world.version_of(Describable),
        )
        if self._boards is not None and self._boards[0] == stamp:
            return list(self._boards[1])
        rooms: set[str] = set()
        checked: set[str] = set()
        for _uid, room in facts.engine.world.each(Room):
            if BOARD_FLAG in room.flags:
                rooms.add(room.key)
        for uid, _item in facts.engine.world.each(Item):
            room_key = facts.room_of(uid)
            if room_key is None or room_key in checked:
                continue
            checked.add(room_key)
            if self.board_in(room_key) is not None:
                rooms.add(room_key)
        found = sorted(rooms)
        self._boards = (stamp, found)
        return list(found)

    def nearest_board(self, near: str | None) -> str | None:
        """The board closest to ``near`` (the giver's room): where the giver's
        village posts its work."""
        ranked = []
        for room in self.board_rooms():
            dist = self.facts.distance(near, room)
            if dist is not None:
                ranked.append((dist, room))
        return min(ranked)[1] if ranked else None

    # -- the plan -----------------------------------------------------------------------
    def plan(self, oq: OpenQuest, profile: PlayerProfile) -> QuestDelivery:
        facts, policy, quest = self.facts, self.policy, oq.quest
        giver = quest.quest_giver_id
        here = facts.room_of(profile.character_id)
        if here is not None and here == facts.room_of(giver):
            return QuestDelivery(M.DIRECT_OFFER, TRIGGERS[M.DIRECT_OFFER], giver)
        trust = profile.npc_relationships.get(giver)
        if trust is not None and trust > policy.trusted_letter:
            return QuestDelivery(M.LETTER, TRIGGERS[M.LETTER], giver)
        if quest.importance > policy.rumor_importance:
            teller = self.nearest_teller(here, oq)
            if teller is not None:
                return QuestDelivery(M.RUMOR, TRIGGERS[M.RUMOR], teller)
        if profile.play_style is PlayStyle.EXPLORER:
            place = quest.involved_locations[0] if quest.involved_locations else quest.location
            if place is not None:
                return QuestDelivery(M.DISCOVERY, TRIGGERS[M.DISCOVERY], None, place)
        involved = [n for n in quest.involved_npcs if facts.is_alive(n)]
        if profile.play_style is PlayStyle.SOCIAL and involved:
            return QuestDelivery(
                M.CONVERSATION,
                TRIGGERS[M.CONVERSATION],
                self.nearest(here, involved) or involved[0],
            )
        if self.talked_about(oq):
            # The matter is talked about: the character will overhear it.
            return QuestDelivery(M.OVERHEARD, TRIGGERS[M.OVERHEARD])
        board = self.nearest_board(facts.room_of(giver))
        if board is not None:
            return QuestDelivery(M.NOTICE_BOARD, TRIGGERS[M.NOTICE_BOARD], None, board)
        return QuestDelivery(M.CONVERSATION, TRIGGERS[M.CONVERSATION], giver)
