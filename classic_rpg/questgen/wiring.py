"""RPG glue of quest generation: offers through the QuestManager, generated
quests fitted to the accepting character (``RpgQuestFitting``), the
RPG's actions feeding play-style inference, quest lifecycle events, and the
conversations that deliver rumors and quests emerging in dialogue.

``QuestDeliveryPlugin`` (``classic_rpg.quest_delivery``, in the ``classic_rpg``
group) wires it in. Everything goes through the service
(:mod:`maid_stdlib.questgen.service`); the quest sink is installed on QuestGen by
the ``classic_rpg.questgen`` plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from uuid import UUID

from classic_rpg.characters.dialogue import ASKING_FOR_WORK, TalkService
from classic_rpg.events import CombatStartedEvent, ItemGivenEvent, ItemPickedUpEvent, TalkedToEvent
from classic_rpg.groups.service import Groups
from classic_rpg.questgen.register import RpgQuestGenPlugin
from classic_rpg.questgen.scaling import RpgQuestFitting
from classic_rpg.questgen.templates import RPG_TEMPLATES
from classic_rpg.rules import RulesPlugin
from classic_rpg.systems.quests.commands import accept_hint
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.questlog import QuestLog
from classic_rpg.systems.quests.register import QuestsPlugin
from maid_engine.accounts.components import PlayerCharacter
from maid_engine.commands import CommandContext
from maid_engine.content import ContentPack, PackContext
from maid_engine.ecs import World
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestAcceptedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.narrative import TemplateRegistry, register_default_templates
from maid_stdlib.questgen.personalization import PlayStyle, styles_of_archetype
from maid_stdlib.questgen.register import QuestGen
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.system_wiring import QuestGenerationPlugin
from maid_stdlib.questgen.text import topic_tokens
from maid_stdlib.questgen.vocabulary import QuestDeliveryMethod, QuestState
from maid_stdlib.world.events import EntityDiedEvent
from maid_stdlib.world.text import speaker

__all__ = ["ConversationDelivery", "QuestDeliveryPlugin", "RpgQuestOffers"]

#: How much each action says about a play style.
KILL, ATTACK, TALK, PICK_UP, GIVE = 1.0, 0.3, 1.0, 1.0, 0.5


class RpgQuestOffers:
    """The QuestOffers sink of delivery, on the QuestManager."""

    def __init__(self, manager: QuestManager) -> None:
        self.manager = manager
        # Quotas ask about every open quest, often; the answer changes only with a
        # quest log.
        self._accepted: tuple[int, frozenset[str]] | None = None

    def offer(self, character: UUID, quest_id: str, method: str, match_score: float) -> str | None:
        try:
            self.manager.offer_quest(character, quest_id, QuestDeliveryMethod(method), match_score)
        except QuestError:
            return None
        title = self.manager.title(quest_id)
        hint = accept_hint(self.manager, character, quest_id)
        return f"|yQuest offered: '{title}'.|n {hint}"

    def pending_offers(self, character: UUID) -> int:
        return self.manager.count_pending_offers(character)

    def active_quests(self, character: UUID) -> list[str]:
        return [
            q.quest_id
            for q, _ in self.manager.quests_of(
                character, QuestState.IN_PROGRESS, QuestState.COMPLETED
            )
        ]

    def has_quest(self, character: UUID, quest_id: str) -> bool:
        qlog = self.manager.engine.world.try_component(character, QuestLog)
        return qlog is not None and (
            qlog.entry(quest_id) is not None
            or bool(qlog.turn_ins.get(quest_id))
            # Turned down a while ago, it may come back: people change their minds.
            or self.manager.turned_down(character, quest_id)
        )

    def is_open(self, quest_id: str) -> bool:
        return self.manager.is_open(quest_id)

    def accepted(self, quest_id: str) -> bool:
        world = self.manager.engine.world
        version = world.version_of(QuestLog)
        if self._accepted is None or self._accepted[0] != version:
            taken: set[str] = set()
            for _uid, qlog in world.each(QuestLog):
                taken.update(q for q, entry in qlog.quests.items() if entry.accepted_at is not None)
                taken.update(q for q, n in qlog.turn_ins.items() if n)
            self._accepted = (version, frozenset(taken))
        return quest_id in self._accepted[1]


class ConversationDelivery:
    """TalkService handler (runs first): rumors and quests emerging in dialogue.

    It only adds to a conversation: when the NPC has quest business of its own
    (it gives or takes quests), the QuestManager's handler still runs after it.
    """

    def __init__(self, generation: QuestGenerationService, manager: QuestManager) -> None:
        self.generation = generation
        self.manager = manager

    def __call__(self, ctx: CommandContext, npc: UUID) -> bool:
        actor = ctx.require_actor()
        lines = self.generation.conversation(actor, npc)
        if not lines:
            return False
        ctx.send("\n".join(lines))
        busy = any(npc in (q.giver_npc_id, q.turn_in_npc) for q in self.manager.quests())
        return not busy

    def topic(self, ctx: CommandContext, npc: UUID, topic: str) -> bool:
        actor = ctx.require_actor()
        lines = self.generation.conversation(actor, npc, topic)
        again = self._reconsidered(actor, npc, topic)
        lines = [*(lines or []), *again]
        if lines:
            ctx.send("\n".join(lines))
        # The NPC still answers the question itself, unless the answer was the
        # quest the character turned down (asking about work is not a topic).
        return bool(again)

    def _reconsidered(self, actor: UUID, npc: UUID, topic: str) -> list[str]:
        """Asking a giver about a quest one turned down (its words, or simply about
        work) is changing one's mind: the giver offers it again, at once, while it
        is open and the offer cap allows."""
        manager = self.manager
        qlog = manager.engine.world.try_component(actor, QuestLog)
        if qlog is None or not qlog.declined:
            return []
        wanted = topic_tokens(topic)
        out: list[str] = []
        for quest in manager.quests_from(npc):
            qid = quest.quest_id
            if qid not in qlog.declined or qlog.entry(qid) is not None:
                continue
            oq = self.generation.open_quest(qid)
            about = topic_tokens(quest.title) | (oq.topics if oq is not None else frozenset())
            if not (wanted & (about | ASKING_FOR_WORK)) or not manager.is_open(qid):
                continue
            if manager.count_pending_offers(actor) >= self.generation.offer_cap(actor):
                out.append("You already have as many offers as you can weigh: decline one first.")
                break
            try:
                manager.reconsider(actor, qid)
            except QuestError:
                continue
            speech = quest.accept_dialogue or quest.summary
            name = speaker(manager.name_of(npc))
            out.append(f'{name} says, "{speech}"' if speech else f"{name} has work for you.")
            out.append(
                f"|yQuest offered again: '{quest.title}'.|n " + accept_hint(manager, actor, qid)
            )
        return out


class AuthoredClaims:
    """``WorldFacts.authored_claims`` of a classic RPG: the NPCs and rooms of the
    hand-written quests someone is on (accepted, not yet turned in), with the
    quest's title. Generated quests leave them alone."""

    def __init__(self, manager: QuestManager, world: World) -> None:
        self.manager = manager
        self.world = world
        # The quest generator asks for every NPC it considers, many times a tick;
        # the claims change only when a quest log or a hand-written definition
        # does. Every accept or step of 200 players changes some quest log: the
        # logs changed since are read again, not the hundreds of others.
        self._cached: tuple[tuple[int, int], dict[UUID | str, str]] | None = None
        #: Holder of a quest log -> what its log claims (only logs claiming any).
        self._per_log: dict[UUID, dict[UUID | str, str]] = {}
        #: Logs given, changed or gone since the last reading; None: read them all.
        self._changed: set[UUID] | None = None
        self._authored_version: int | None = None
        world.watch_holders(self._log_changed, QuestLog)
        world.on_changed(QuestLog, lambda entity, _log: self._log_changed(entity))

    def _log_changed(self, entity: UUID) -> None:
        if self._changed is not None:
            self._changed.add(entity)

    def __call__(self) -> Mapping[UUID | str, str]:
        registry = self.manager.registry
        key = (self.world.version_of(QuestLog), registry.authored_version)
        if self._cached is not None and self._cached[0] == key:
            return self._cached[1]
        changed = self._changed
        if changed is None or self._authored_version != registry.authored_version:
            self._per_log = {
                uid: found for uid, qlog in self.world.each(QuestLog) if (found := self._of(qlog))
            }
        else:
            for uid in changed:
                self._per_log.pop(uid, None)
            for uid, qlog in self.world.each_in(QuestLog, changed):
                if found := self._of(qlog):
                    self._per_log[uid] = found
        self._changed = set()
        self._authored_version = registry.authored_version
        # In the logs' order, as one walk over every log would claim them.
        claims: dict[UUID | str, str] = {}
        for uid, _ in self.world.each_in(QuestLog, self._per_log):
            for ref, title in self._per_log[uid].items():
                claims.setdefault(ref, title)
        self._cached = (key, claims)
        return claims

    def _of(self, qlog: QuestLog) -> dict[UUID | str, str]:
        """What one quest log claims."""
        claims: dict[UUID | str, str] = {}
        for entry in qlog.quests.values():
            if not entry.state.active:
                continue
            quest = self.manager.get_quest(entry.quest_id)
            if quest is None or quest.source != "authored":
                continue
            refs: list[UUID | str | None] = [quest.giver_npc_id, quest.turn_in_npc]
            for o in quest.objectives:
                refs += [o.target_id, o.destination_room_id]
            for ref in refs:
                if ref is not None:
                    claims.setdefault(ref, quest.title)
        return claims


class QuestDeliveryPlugin(ContentPack):
    """Deliver generated quests through the QuestManager (offers), feed the RPG's
    actions and quest lifecycle into play-style inference, and let conversations
    carry rumors and quests (a TalkService handler that runs first)."""

    name = "classic_rpg.quest_delivery"
    requires = (RulesPlugin, QuestsPlugin, RpgQuestGenPlugin, QuestGenerationPlugin)
    description = "Offers, play-style inference and conversations of generated quests."

    def register(self, ctx: PackContext) -> None:
        generation = ctx.service(QuestGenerationService)
        manager = ctx.service(QuestManager)
        if not generation.install_offers(RpgQuestOffers(manager)):
            raise ctx.error("quest generation has offers installed already")
        qg, world = ctx.service(QuestGen), ctx.engine.world
        qg.facts.authored_claims.append(AuthoredClaims(manager, world))
        # The eight archetypes' texts as the default layer: a pack's own templates for
        # the same archetype win.
        register_default_templates(ctx.service(TemplateRegistry), RPG_TEMPLATES)
        # Per-character difficulty: a generated quest is fitted to its acceptor.
        services = ctx.engine.services

        def group_of(uid: UUID) -> list[UUID]:
            # The groups plugin is optional and may register after this one.
            groups = services.try_get(Groups)
            return groups.group_of(uid) if groups is not None else []

        manager.accept_adjusters.append(RpgQuestFitting(ctx.engine, qg, generation, group_of))

        def is_character(uid: UUID | None) -> bool:
            return uid is not None and world.has_component(uid, PlayerCharacter)

        def died(event: EntityDiedEvent) -> None:
            if is_character(event.killer_id) and not event.is_player:
                assert event.killer_id is not None
                generation.record_play(event.killer_id, PlayStyle.COMBAT, KILL)

        def attacked(event: CombatStartedEvent) -> None:
            if is_character(event.attacker_id):
                generation.record_play(event.attacker_id, PlayStyle.COMBAT, ATTACK)

        def talked(event: TalkedToEvent) -> None:
            generation.record_play(event.character_id, PlayStyle.SOCIAL, TALK)

        def picked(event: ItemPickedUpEvent) -> None:
            if is_character(event.holder_id):
                generation.record_play(event.holder_id, PlayStyle.CRAFTER, PICK_UP)

        def given(event: ItemGivenEvent) -> None:
            if is_character(event.giver_id):
                generation.record_play(event.giver_id, PlayStyle.CRAFTER, GIVE)
                generation.record_play(event.giver_id, PlayStyle.SOCIAL, GIVE)

        def finished(quest_id: str, character: UUID, outcome: str) -> None:
            entry = qg.history.get(quest_id)
            if entry is None:
                return  # an authored quest
            styles = styles_of_archetype(qg.archetypes, entry.archetype_id)
            generation.record_quest_outcome(
                character,
                quest_id,
                entry.archetype_id,
                entry.quest_giver_id,
                outcome,
                styles if outcome != "abandoned" else (),
            )

        def accepted(event: QuestAcceptedEvent) -> None:
            generation.quest_accepted(event.quest_id, event.character_id)

        def turned_in(event: QuestTurnedInEvent) -> None:
            finished(event.quest_id, event.character_id, event.outcome.value)
            generation.quest_turned_in(event.quest_id, event.outcome.value)

        def failed(event: QuestFailedEvent) -> None:
            if event.previous_state.active:
                finished(event.quest_id, event.character_id, event.outcome.value)

        def abandoned(event: QuestAbandonedEvent) -> None:
            finished(event.quest_id, event.character_id, "abandoned")

        def expired(event: QuestExpiredInternalEvent) -> None:
            for character in event.character_ids:
                finished(event.quest_id, character, "expired")

        for event_type, handler in (
            (EntityDiedEvent, died),
            (CombatStartedEvent, attacked),
            (TalkedToEvent, talked),
            (ItemPickedUpEvent, picked),
            (ItemGivenEvent, given),
            (QuestAcceptedEvent, accepted),
            (QuestTurnedInEvent, turned_in),
            (QuestFailedEvent, failed),
            (QuestAbandonedEvent, abandoned),
            (QuestExpiredInternalEvent, expired),
        ):
            ctx.subscribe(event_type, handler)
        talk = ctx.service(TalkService)
        conversation = ConversationDelivery(generation, manager)
        talk.add_handler(conversation, first=True)
        talk.add_topic_handler(conversation.topic)
