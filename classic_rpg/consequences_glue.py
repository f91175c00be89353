"""The classic RPG's side of consequences and grounding.

The stdlib's ConsequenceSystem and QuestGroundingMonitor may not import the rules
layer, whose QuestManager knows a character's run of a quest and the quest's
holders. The lifecycle events themselves are the stdlib's (the QuestManager emits
them). ``ConsequencesGluePlugin``
(``classic_rpg.consequences``, requiring ``classic_rpg.quests``,
``stdlib.consequences`` and ``stdlib.grounding``) connects them:

* QuestTurnedInEvent (with the manager's graded outcome), QuestFailedEvent,
  QuestAbandonedEvent and QuestExpiredInternalEvent -> the ConsequenceSystem;
* EntityDiedEvent (with the killer) and QuestGeneratedEvent -> the monitor;
* the monitor's acceptance check -> ``QuestManager.accept_validators``;
* :class:`RpgQuestBoard`: the QuestManager as the monitor's ``QuestBoard``;
* the ``choose`` command: the decision at a generated quest's branch point,
  recorded in ``quest_branch_choices``, completes the quest's choice objective.

NPCs mention the quest gossip they know through the living world's
``note_conversation`` hook of ``talk``; nothing here repeats it.
"""

from __future__ import annotations

from uuid import UUID

from classic_rpg.questgen.terms import rpg_terms
from classic_rpg.systems.quests.commands import resolve
from classic_rpg.systems.quests.errors import QuestError
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.register import QuestsPlugin
from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.content import ContentPack, PackContext
from maid_stdlib.consequences import BranchChoices, ConsequenceSystem, GeneratedQuestIndex
from maid_stdlib.consequences.register import ConsequencesPlugin
from maid_stdlib.grounding import Holder, QuestGroundingMonitor
from maid_stdlib.grounding.register import GroundingPlugin
from maid_stdlib.questgen.events import (
    QuestAbandonedEvent,
    QuestExpiredInternalEvent,
    QuestFailedEvent,
    QuestGeneratedEvent,
    QuestTurnedInEvent,
)
from maid_stdlib.questgen.quest import BranchOption, GeneratedQuest, QuestBranch
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world.events import EntityDiedEvent

__all__ = ["ConsequencesGluePlugin", "RpgQuestBoard", "choose_cmd"]


class RpgQuestBoard:
    """The QuestManager as the grounding monitor's QuestBoard."""

    def __init__(self, manager: QuestManager) -> None:
        self.manager = manager

    def open_generated_quests(self) -> list[str]:
        m = self.manager
        return [q.quest_id for q in m.quests() if q.source == "generated" and m.is_open(q.quest_id)]

    def holders(self, quest_id: str) -> list[Holder]:
        return [
            Holder(
                character,
                entry.state.active,
                frozenset(o for o, p in entry.objectives.items() if p.completed),
            )
            for character, entry in self.manager.holders(quest_id)
        ]

    def title(self, quest_id: str) -> str:
        return self.manager.title(quest_id)

    def invalidate(self, quest_id: str, reason: str, explanation: str = "") -> list[UUID]:
        return self.manager.invalidate_quest(quest_id, reason, explanation)

    def set_hint(self, quest_id: str, objective_id: str, hint: str) -> bool:
        return self.manager.set_objective_hint(quest_id, objective_id, hint)

    def rerate(self, quest: GeneratedQuest) -> bool:
        terms = rpg_terms(quest)
        return self.manager.set_terms(quest.id, terms.level_requirement, terms.experience)


class _Forwarder:
    def __init__(
        self, manager: QuestManager, system: ConsequenceSystem, monitor: QuestGroundingMonitor
    ) -> None:
        self.manager = manager
        self.system = system
        self.monitor = monitor

    def _run(self, character: UUID, quest_id: str) -> int:
        entry = self.manager.entry(character, quest_id)
        return entry.run if entry is not None else 0

    async def on_turned_in(self, event: QuestTurnedInEvent) -> None:
        await self.system.on_turned_in(
            event.quest_id,
            event.character_id,
            event.outcome,
            run=self._run(event.character_id, event.quest_id),
        )

    async def on_failed(self, event: QuestFailedEvent) -> None:
        if not event.previous_state.active:
            return  # an offer that was never taken: nothing was let down
        await self.system.on_failed(
            event.quest_id,
            event.character_id,
            event.outcome,
            event.reason,
            run=self._run(event.character_id, event.quest_id),
        )

    async def on_abandoned(self, event: QuestAbandonedEvent) -> None:
        await self.system.on_abandoned(
            event.quest_id, event.character_id, run=self._run(event.character_id, event.quest_id)
        )

    async def on_expired(self, event: QuestExpiredInternalEvent) -> None:
        await self.system.on_expired(event.quest_id, event.character_ids)

    async def on_died(self, event: EntityDiedEvent) -> None:
        if not event.is_player:
            await self.monitor.on_entity_died(event.entity_id, event.killer_id)

    async def on_generated(self, event: QuestGeneratedEvent) -> None:
        # Cache the quest now: the generation system forgets it once it is turned in,
        # and without a store nothing else remembers it.
        await self.system.index.get(event.quest_id)
        await self.monitor.watch(event.quest_id)

    async def check_acceptance(self, quest: Quest, character: UUID) -> str | None:
        if quest.source != "generated":
            return None
        return await self.monitor.check_acceptance(quest.quest_id, character)


# -- the choice command ---------------------------------------------------------------
async def open_decisions(
    ctx: CommandContext, only: Quest | None = None
) -> list[tuple[Quest, QuestBranch]]:
    """Branch points of the actor's generated quests that are open right now."""
    manager: QuestManager = ctx.service(QuestManager)
    index: GeneratedQuestIndex = ctx.service(GeneratedQuestIndex)
    actor = ctx.require_actor()
    out = []
    for quest, entry in manager.quests_of(actor, QuestState.IN_PROGRESS):
        if quest.source != "generated" or (only is not None and quest.quest_id != only.quest_id):
            continue
        generated = await index.get(quest.quest_id)
        for branch in (generated.branches or []) if generated is not None else []:
            progress = entry.objectives.get(branch.trigger_objective)
            if progress is not None and progress.open and branch.options:
                out.append((quest, branch))
    return out


def _describe(quest: Quest, branch: QuestBranch) -> str:
    lines = [f"|c{quest.title}|n: {branch.description}"]
    for n, option in enumerate(branch.options, 1):
        lines.append(f"  {n}. {option.label} - {option.description}")
    return "\n".join(lines)


@command("choose", aliases=("decide",), category="quests")
async def choose_cmd(ctx: CommandContext) -> None:
    """Make a decision a quest asks of you (whose side to take, how to settle it).

    Usage:
      choose                  what you can decide right now
      choose <n>              option <n> of your one open decision
      choose <quest> <n>      option <n> of that quest's decision ('quests' numbers)
    """
    args = ctx.args.split()
    only = None
    if len(args) >= 2:
        only, _ = resolve(ctx, " ".join(args[:-1]))
    decisions = await open_decisions(ctx, only)
    if not args:
        if not decisions:
            raise CommandError("None of your quests asks a decision of you right now.")
        ctx.send(
            "\n".join(_describe(q, b) for q, b in decisions) + "\nType 'choose <number>' to decide."
        )
        return
    if not args[-1].isdigit():
        raise CommandError("Usage: choose <number>  (or: choose <quest> <number>)")
    if not decisions:
        raise CommandError(
            "That quest asks no decision of you right now."
            if only
            else "None of your quests asks a decision of you right now."
        )
    if len(decisions) > 1:
        raise CommandError(
            "You have more than one decision to make; say which quest: choose <quest> <number>."
        )
    quest, branch = decisions[0]
    n = int(args[-1])
    if not 1 <= n <= len(branch.options):
        raise CommandError(f"Choose a number from 1 to {len(branch.options)}.")
    await _decide(ctx, quest, branch, branch.options[n - 1])


async def _decide(
    ctx: CommandContext, quest: Quest, branch: QuestBranch, option: BranchOption
) -> None:
    actor = ctx.require_actor()
    manager: QuestManager = ctx.service(QuestManager)
    choices: BranchChoices = ctx.service(BranchChoices)
    await choices.record(quest.quest_id, actor, branch.id, option.id, option.label)
    ctx.send(f"|gYou decide: {option.label}.|n")
    try:
        manager.complete_custom(actor, quest.quest_id, branch.trigger_objective)
    except QuestError as exc:
        raise CommandError(str(exc)) from exc


class ConsequencesGluePlugin(ContentPack):
    """Connect the QuestManager to the consequence layer and the grounding monitor:
    forward quest outcomes and deaths, check acceptance against the world, provide
    the ``RpgQuestBoard`` the monitor reads, and add ``choose``."""

    name = "classic_rpg.consequences"
    requires = (QuestsPlugin, ConsequencesPlugin, GroundingPlugin)
    provides = (RpgQuestBoard,)
    description = "Quest outcomes reach the consequence layer; grounding sees the quests."

    def register(self, ctx: PackContext) -> None:
        manager = ctx.service(QuestManager)
        system = ctx.service(ConsequenceSystem)
        monitor = ctx.service(QuestGroundingMonitor)
        forward = _Forwarder(manager, system, monitor)
        ctx.subscribe(QuestTurnedInEvent, forward.on_turned_in)
        ctx.subscribe(QuestFailedEvent, forward.on_failed)
        ctx.subscribe(QuestAbandonedEvent, forward.on_abandoned)
        ctx.subscribe(QuestExpiredInternalEvent, forward.on_expired)
        ctx.subscribe(EntityDiedEvent, forward.on_died)
        ctx.subscribe(QuestGeneratedEvent, forward.on_generated)
        manager.accept_validators.append(forward.check_acceptance)
        board = RpgQuestBoard(manager)
        ctx.provide(RpgQuestBoard, board)
        monitor.board = board
        ctx.add_commands(COMMANDS)


COMMANDS: list[Command] = [choose_cmd]
