"""QuestDeliveryService: matching characters to open generated quests, keeping their
pending deliveries, and firing each delivery method's real trigger (see
:mod:`maid_stdlib.questgen.delivery` for the methods and the planner).

Triggers come from the world: ``on_relocated`` (rooms entered, NPCs arriving),
``check`` after a login or a new plan, ``on_conversation`` (the rules layer's talk
and ask), ``read_board`` (the ``board``/``read board`` commands).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import World
from maid_stdlib.living.gossip import hedge
from maid_stdlib.questgen.delivery import (
    GREETINGS,
    DeliveryPlanner,
    OpenQuest,
    PendingDeliveries,
    PendingDelivery,
    PersonalizedQuest,
    QuestOffers,
)
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.questgen.history import QuestHistory
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.narrative.reputation import ReputationLabel
from maid_stdlib.questgen.personalization import QuestPersonalizer
from maid_stdlib.questgen.preferences import QuestGenMode, offer_policy
from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod
from maid_stdlib.world.components import NPC
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.text import speaker

__all__ = ["OnlineCharacters", "QuestDeliveryService"]

log = logging.getLogger("maid.questgen.delivery")
M = QuestDeliveryMethod
#: How sure a rumour sounds when an NPC passes on the news behind a quest: hearsay.
HEARSAY = 0.5


def quoted(sentence: str) -> str:
    """A sentence as it reads inside quotes before "one of them mutters": its full
    stop becomes a comma ("... asking for help," one of them mutters)."""
    said = sentence.strip()
    if said.endswith("."):
        return said[:-1] + ","
    return said if said.endswith(("?", "!", ",")) else said + ","


class OnlineCharacters(Protocol):
    """The sessions delivery talks through (the engine's SessionManager)."""

    def is_online(self, character_id: UUID) -> bool: ...

    def send_to(self, character_id: UUID, text: str) -> bool: ...


class QuestDeliveryService:
    """Matches characters to open quests, keeps pending deliveries, fires triggers.

    ``open_quests`` is the generation pipeline's book of open generated quests
    (shared, not copied); the rules layer installs its :class:`QuestOffers` once
    with :meth:`install_offers` -- until then nothing is offered."""

    def __init__(
        self,
        world: World,
        sessions: OnlineCharacters,
        facts: WorldFacts,
        personalizer: QuestPersonalizer,
        planner: DeliveryPlanner,
        history: QuestHistory,
        metrics: QuestGenMetrics,
        open_quests: dict[str, OpenQuest],
    ) -> None:
        self.world = world
        self.sessions = sessions
        self.facts = facts
        self.personalizer = personalizer
        self.planner = planner
        self.history = history
        self.metrics = metrics
        self.policy = planner.policy
        self.open_quests = open_quests
        self._offers: QuestOffers | None = None
        #: Observers of every offer made: ``(character, quest_id, method)``.
        self.on_offer: list[Callable[[UUID, str, QuestDeliveryMethod], None]] = []

    @property
    def offers(self) -> QuestOffers | None:
        """The rules layer's offer side (None until installed)."""
        return self._offers

    def install_offers(self, offers: QuestOffers) -> bool:
        """Install the rules layer's offers; False (and nothing changes) if some
        are installed already."""
        if self._offers is not None:
            return False
        self._offers = offers
        return True

    # -- policy -------------------------------------------------------------------------
    def cap_for(self, character: UUID) -> int:
        """Unanswered offers the character may hold: the system's cap, lowered by the
        character's ``questgen`` preference."""
        return offer_policy(self.world, character).max_pending(self.policy.max_pending_offers)

    def _open(self, quest_id: str) -> OpenQuest | None:
        oq = self.open_quests.get(quest_id)
        if oq is None or self.offers is None or not self.offers.is_open(quest_id):
            return None
        return oq

    def pending(self, character: UUID) -> dict[str, PendingDelivery]:
        comp = self.world.try_component(character, PendingDeliveries)
        return comp.items if comp is not None else {}

    # -- matching -----------------------------------------------------------------------
    def personalize(
        self, oq: OpenQuest, character: UUID, *, in_person: bool = False
    ) -> PersonalizedQuest | None:
        """The quest as offered to ``character``, or None if it is not for them.

        ``in_person``: the character stands before the giver. A giver asks whoever
        walks in (as in the Iron Crisis: a newcomer enters the smithy and Gundrik
        speaks up), so the match-score threshold, which ranks quests for remote
        delivery, does not apply; eligibility (standing against the tier, opt-out) and the offer
        caps still do, and so does the threshold for a character who asked for fewer
        quests (``questgen less``).
        """
        offers, quest = self.offers, oq.quest
        if offers is None or offers.has_quest(character, quest.id):
            return None
        personalizer = self.personalizer
        npcs = [quest.quest_giver_id, *quest.involved_npcs]
        profile = personalizer.build_profile(character, offers.active_quests(character), npcs)
        if not personalizer.is_eligible(quest, profile):
            return None
        # The preference scales the score ("less" halves it) before the threshold.
        policy = offer_policy(self.world, character)
        score = policy.scale(personalizer.score_match(quest, profile))
        asked_for_less = policy.mode is not QuestGenMode.ON
        if score <= self.policy.min_match_score and (asked_for_less or not in_person):
            return None
        lines, label = personalizer.narrative_additions(quest, profile)
        return PersonalizedQuest(
            quest, character, score, self.planner.plan(oq, profile), lines, label
        )

    def match(self, quest_ids: Iterable[str], characters: Iterable[UUID]) -> int:
        """Plan deliveries of the quests for the characters, best match first, within
        each character's cap. Returns how many were planned."""
        planned = 0
        offers = self.offers
        if offers is None:
            return 0
        for character in characters:
            cap = self.cap_for(character)
            candidates = []
            for quest_id in quest_ids:
                oq = self._open(quest_id)
                if oq is None or quest_id in self.pending(character):
                    continue
                pq = self.personalize(oq, character)
                if pq is not None:
                    candidates.append(pq)
            candidates.sort(key=lambda p: (-p.match_score, -p.quest.importance, p.quest.id))
            for pq in candidates:
                if offers.pending_offers(character) >= cap or len(self.pending(character)) >= cap:
                    break
                self.schedule(pq)
                planned += 1
            self.check(character, entered=False)
        return planned

    def schedule(self, pq: PersonalizedQuest) -> PendingDelivery:
        world, d = self.world, pq.delivery
        comp = world.get_or_add(pq.character_id, PendingDeliveries)
        pending = PendingDelivery(
            pq.quest.id,
            d.method,
            d.trigger,
            pq.quest.quest_giver_id,
            pq.match_score,
            self.facts.now,
            d.delivery_npc,
            d.trigger_location,
        )
        comp.items[pq.quest.id] = pending
        world.modified(pq.character_id, comp)
        return pending

    def drop(self, character: UUID, quest_id: str) -> None:
        comp = self.world.try_component(character, PendingDeliveries)
        if comp is not None and comp.items.pop(quest_id, None) is not None:
            self.world.modified(character, comp)

    def forget_quest(self, quest_id: str) -> None:
        """The quest closed: nobody is told about it any more."""
        self.open_quests.pop(quest_id, None)
        for uid, comp in list(self.world.each(PendingDeliveries)):
            if quest_id in comp.items:
                self.drop(uid, quest_id)

    # -- delivering ---------------------------------------------------------------------
    def deliver(
        self,
        character: UUID,
        pending: PendingDelivery,
        method: QuestDeliveryMethod,
        intro: list[str],
    ) -> list[str] | None:
        """Offer now if the caps allow; returns the lines to show (None: not now)."""
        offers = self.offers
        oq = self._open(pending.quest_id)
        if offers is None or oq is None or offers.has_quest(character, pending.quest_id):
            self.drop(character, pending.quest_id)
            return None
        if offers.pending_offers(character) >= self.cap_for(character):
            return None
        line = offers.offer(character, pending.quest_id, method.value, pending.match_score)
        self.drop(character, pending.quest_id)
        if line is None:
            return None
        self.history.mark_offered(pending.quest_id, character)
        self.metrics.offered(method.value)
        for observer in self.on_offer:
            observer(character, pending.quest_id, method)
        log.info(
            "quest %s offered to %s by %s",
            pending.quest_id,
            character,
            method.value,
            extra={
                "quest_id": pending.quest_id,
                "character_id": str(character),
                "delivery_method": method.value,
            },
        )
        return [*intro, *self.additions(character, oq.quest)[0], line]

    def additions(
        self, character: UUID, quest: GeneratedQuest
    ) -> tuple[list[str], ReputationLabel]:
        """What is said to this character in particular, as things stand now (the
        relationship may have changed since the delivery was planned)."""
        offers = self.offers
        active = offers.active_quests(character) if offers is not None else []
        profile = self.personalizer.build_profile(character, active, [quest.quest_giver_id])
        return self.personalizer.narrative_additions(quest, profile)

    def _send(self, character: UUID, lines: list[str] | None) -> bool:
        if lines:
            self.sessions.send_to(character, "\n".join(lines))
            return True
        return False

    def name(self, entity: UUID | None) -> str:
        return speaker(self.facts.name(entity)) if entity is not None else "Someone"

    def signer(self, entity: UUID | None) -> str:
        """A name inside a sentence: "signed by a gate guard"."""
        return self.facts.name(entity) if entity is not None else "someone"

    def _quest(self, pending: PendingDelivery) -> GeneratedQuest | None:
        oq = self.open_quests.get(pending.quest_id)
        return oq.quest if oq is not None else None

    def direct(self, character: UUID, pending: PendingDelivery) -> list[str] | None:
        quest = self._quest(pending)
        if quest is None:
            return None
        giver = self.name(pending.giver_id)
        greeting = GREETINGS.get(self.additions(character, quest)[1], "looks you over")
        intro = [
            f"{giver} {greeting}, then beckons you closer.",
            f'{giver} says, "{quest.quest_giver_dialogue.offer}"',
        ]
        return self.deliver(character, pending, M.DIRECT_OFFER, intro)

    # -- triggers -----------------------------------------------------------------------
    def check(self, character: UUID, entered: bool) -> int:
        """Fire what the character's situation triggers (after a move, a login or a
        new plan). Returns how many offers were made."""
        world = self.world
        if not world.entity_exists(character) or not self.sessions.is_online(character):
            return 0
        room = self.facts.room_of(character)
        if room is None:
            return 0
        npcs_here = set(self.facts.ws.npcs_in(room))
        made = 0
        for pending in list(self.pending(character).values()):
            lines = self._fire(character, pending, room, npcs_here, entered)
            made += self._send(character, lines)
        if entered or npcs_here:
            made += self.meet_givers(character, npcs_here)
        return made

    def _fire(
        self,
        character: UUID,
        pending: PendingDelivery,
        room: str,
        npcs_here: set[UUID],
        entered: bool,
    ) -> list[str] | None:
        quest = self._quest(pending)
        if quest is None or self._open(pending.quest_id) is None:
            self.drop(character, pending.quest_id)
            return None
        if pending.giver_id in npcs_here:
            return self.direct(character, pending)
        giver = self.name(pending.giver_id)
        method = pending.method
        if method is M.LETTER and entered:
            return self.deliver(
                character,
                pending,
                M.LETTER,
                [
                    "A runner catches up with you and presses a sealed letter into your hand.",
                    f'It is from {giver}: "{quest.summary} {quest.quest_giver_dialogue.offer}"',
                ],
            )
        if method is M.DISCOVERY and entered and room == pending.trigger_location:
            return self.deliver(
                character,
                pending,
                M.DISCOVERY,
                [
                    f"Something here catches your eye: signs of the trouble {giver} has been "
                    f"worrying about.",
                    quest.summary,
                ],
            )
        if method is M.OVERHEARD:
            oq = self.open_quests[pending.quest_id]
            knowers = sorted((n for n in npcs_here if self.planner.knows(n, oq)), key=str)
            if len(knowers) >= 2:
                a, b = self.name(knowers[0]), self.facts.name(knowers[1])
                return self.deliver(
                    character,
                    pending,
                    M.OVERHEARD,
                    [
                        f"You overhear {a} and {b} talking in low voices.",
                        f'"{quoted(quest.summary)}" one of them mutters. "Someone ought to '
                        f'go and see {giver}," the other replies.',
                    ],
                )
        return None

    def meet_givers(self, character: UUID, npcs_here: set[UUID]) -> int:
        """Givers present offer open quests never planned for the character."""
        made = 0
        pending = self.pending(character)
        # Of the open quests (hundreds), only those of the givers here are ordered:
        # this runs at every step a player takes.
        here = [oq for oq in self.open_quests.values() if oq.quest.quest_giver_id in npcs_here]
        for oq in sorted(here, key=lambda o: -o.quest.importance):
            quest = oq.quest
            if quest.id in pending:
                continue
            if self._open(quest.id) is None:
                continue
            offers = self.offers
            if offers is None or offers.pending_offers(character) >= self.cap_for(character):
                break
            pq = self.personalize(oq, character, in_person=True)
            if pq is None:
                continue
            planned = self.schedule(pq)
            made += self._send(character, self.direct(character, planned))
        return made

    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        if event.to_room is None or not self.open_quests:
            return
        world = self.world
        mover = event.entity_id
        if world.has_component(mover, PlayerCharacter):
            self.check(mover, entered=event.reason not in ("spawn",))
        elif world.has_component(mover, NPC):
            for character in self.facts.ws.characters_in(event.to_room):
                self.check(character, entered=False)

    def on_conversation(self, character: UUID, npc: UUID, topic: str = "") -> list[str] | None:
        """The character talks to (or asks) ``npc``: rumors and conversations fire."""
        wanted = topic_tokens(topic) if topic else set()
        out: list[str] = []
        for pending in list(self.pending(character).values()):
            oq = self._open(pending.quest_id)
            if oq is None:
                continue
            quest = oq.quest
            giver = self.name(pending.giver_id)
            if wanted and not (wanted & (oq.topics | topic_tokens(quest.title))):
                continue
            lines: list[str] | None = None
            gossip = self.planner.gossip_about(npc, oq) if npc != quest.quest_giver_id else None
            speaker = self.name(npc)
            if pending.method is M.RUMOR and gossip is not None:
                lines = self.deliver(
                    character,
                    pending,
                    M.RUMOR,
                    [
                        f"{speaker} lowers {self.facts.pronouns(npc).determiner} voice. "
                        f'"{hedge(gossip.content, HEARSAY)}"',
                        f'"{giver} is looking for someone to do something about it. '
                        f'{quest.summary}"',
                    ],
                )
            elif pending.method is M.CONVERSATION and (
                npc == pending.delivery_npc
                or npc == quest.quest_giver_id
                or npc in quest.involved_npcs
            ):
                said = (
                    quest.quest_giver_dialogue.offer
                    if npc == quest.quest_giver_id
                    else f"{quest.summary} {giver} could use a hand."
                )
                lines = self.deliver(
                    character,
                    pending,
                    M.CONVERSATION,
                    [f'As you talk, {speaker} mentions it: "{said}"'],
                )
            if lines:
                out.extend(lines)
        return out or None

    def read_board(self, character: UUID) -> list[str]:
        """The character reads the notice board where they stand: the notices posted
        there for them become offers."""
        room = self.facts.room_of(character)
        out: list[str] = []
        for pending in list(self.pending(character).values()):
            quest = self._quest(pending)
            if pending.method is not M.NOTICE_BOARD or quest is None:
                continue
            if pending.trigger_location not in (None, room):
                continue
            lines = self.deliver(
                character,
                pending,
                M.NOTICE_BOARD,
                [
                    f"A fresh notice is pinned to the board, signed by "
                    f"{self.signer(pending.giver_id)}:",
                    f'"{quest.title}. {quest.summary}"',
                ],
            )
            out.extend(lines or [])
        return out
