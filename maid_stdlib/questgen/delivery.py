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

from maid_engine.ecs import Component
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
        """Offered, running or already done: never offer it again."""
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


class DeliveryPlanner:
    """Chooses how a quest reaches a character (the first method that fits, in order)."""

    def __init__(self, facts: WorldFacts, policy: DeliveryPolicy) -> None:
        self.facts = facts
        self.policy = policy

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
        facts = self.facts
        out = []
        for uid, _known in facts.engine.world.each(KnownGossip):
            if (
                uid != oq.quest.quest_giver_id
                and facts.is_alive(uid)
                and facts.is_npc(uid)
                and self.gossip_about(uid, oq) is not None
            ):
                out.append(uid)
        return sorted(out)

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
        facts = self.facts
        rooms: set[str] = set()
        for _uid, room in facts.engine.world.each(Room):
            if BOARD_FLAG in room.flags:
                rooms.add(room.key)
        for uid, _item in facts.engine.world.each(Item):
            room_key = facts.room_of(uid)
            if room_key is not None and self.board_in(room_key) is not None:
                rooms.add(room_key)
        return sorted(rooms)

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
            teller = self.nearest(here, self.gossips(oq))
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
        if len(self.gossips(oq)) >= 2:
            # The matter is talked about: the character will overhear it.
            return QuestDelivery(M.OVERHEARD, TRIGGERS[M.OVERHEARD])
        board = self.nearest_board(facts.room_of(giver))
        if board is not None:
            return QuestDelivery(M.NOTICE_BOARD, TRIGGERS[M.NOTICE_BOARD], None, board)
        return QuestDelivery(M.CONVERSATION, TRIGGERS[M.CONVERSATION], giver)
