"""QuestsPlugin (``classic_rpg.quests``): the QuestManager and its wiring."""

from __future__ import annotations

from uuid import UUID

from classic_rpg.characters.dialogue import TalkService
from classic_rpg.combat.service import CombatService
from classic_rpg.events import DamageDealtEvent, ItemGivenEvent, ItemPickedUpEvent, TalkedToEvent
from classic_rpg.items.gifts import Gifts
from classic_rpg.rules import RulesPlugin
from classic_rpg.systems.quests.commands import COMMANDS, QuestTalk
from classic_rpg.systems.quests.gmcp import add_quests_feed
from classic_rpg.systems.quests.history import COLLECTION as HISTORY
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.questlog import QuestLog
from classic_rpg.systems.quests.registry import COLLECTION as REGISTRY
from classic_rpg.systems.quests.rewards import COLLECTION as TURNINS
from classic_rpg.systems.quests.system import QuestSystem
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import WorldPort
from maid_stdlib.story.facts import FactSetEvent
from maid_stdlib.world.events import EntityDiedEvent, EntityRelocatedEvent
from maid_stdlib.world.gmcp import GmcpFeeds
from maid_stdlib.world.info import ScoreSheet

__all__ = ["QuestsPlugin", "quest_score"]

#: Where the quest line sits in ``score`` (after the RPG section).
QUEST_SCORE_ORDER = 20


def quest_score(engine: WorldPort, uid: UUID) -> str | None:
    """The ScoreSheet line of quests done and under way."""
    qlog = engine.world.try_component(uid, QuestLog)
    if qlog is None:
        return "|cQuests:|n none done yet"
    done = sum(qlog.turn_ins.values())
    active = len(qlog.active)
    return f"|cQuests:|n {done} done, {active} under way"


class QuestsPlugin(ContentPack):
    """Provide the ``QuestManager``, declare its collections, add the QuestSystem
    (phase quests), the objective tracker's handlers, the quest-giver conversation,
    the player's quest commands and GMCP ``Char.Quests``."""

    name = "classic_rpg.quests"
    requires = (RulesPlugin,)
    provides = (QuestManager,)
    description = "Authored and generated quests: lifecycle, objectives, rewards, commands."

    def register(self, ctx: PackContext) -> None:
        manager = QuestManager(ctx.engine)
        ctx.provide(QuestManager, manager)
        for name in (HISTORY, TURNINS, REGISTRY):
            ctx.ensure_collection(name)
        ctx.add_system(QuestSystem(manager))
        tracker = manager.objectives
        ctx.subscribe(EntityDiedEvent, tracker.on_died)
        ctx.subscribe(ItemPickedUpEvent, tracker.on_picked_up)
        ctx.subscribe(ItemGivenEvent, tracker.on_given)
        ctx.service(Gifts).add_taker(tracker.takes_gift)
        ctx.subscribe(TalkedToEvent, tracker.on_talked)
        ctx.subscribe(EntityRelocatedEvent, tracker.on_relocated)
        ctx.subscribe(DamageDealtEvent, tracker.on_damage)
        ctx.subscribe(FactSetEvent, tracker.on_fact)
        # A quest's own foes: theirs to hunt, back when they log in, gone when they leave.
        combat = ctx.service(CombatService)
        combat.attack_refusals.append(manager.foes.attack_refusal)
        combat.aggression_filters.append(manager.foes.hunts)
        ctx.subscribe(CharacterConnectedEvent, manager.foes_back)
        ctx.subscribe(CharacterDisconnectedEvent, manager.foes_away)
        talk = QuestTalk(manager)
        ctx.service(TalkService).add_handler(talk)
        ctx.service(TalkService).add_afterword(talk.afterword)
        ctx.service(TalkService).add_topic_handler(talk.topic)
        ctx.add_commands(COMMANDS)
        ctx.service(ScoreSheet).add("quests", quest_score, order=QUEST_SCORE_ORDER)
        add_quests_feed(manager, ctx.service(GmcpFeeds))
