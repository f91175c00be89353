"""Wiring the QuestGenerationSystem into an engine: ``register_quest_generation(ctx)``.

Called from StdlibContentPack.register after ``register_living``,
``register_story`` and ``register_questgen``; idempotent. It provides the system
(under ``QuestGenerationSystem``) and the ``TemplateRegistry`` packs add their
archetypes' templates to, subscribes the stdlib events (story signals, moves,
logins) and adds the player commands ``board`` and ``read`` (the notice board).
The rules layer then installs the offer sink and its own events
(``classic_rpg.questgen.wiring.register_rpg_quest_delivery``). The ``questgen``
preference and ``@quest`` admin commands live in ``maid_stdlib.questgen.preferences``
and the ``admin`` pack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.llm.service import CACHE_COLLECTION
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import COLLECTION as HISTORY_COLLECTION
from maid_stdlib.questgen.narrative import TemplateRegistry, register_default_templates
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen, register_questgen
from maid_stdlib.questgen.system import QuestGenerationSystem
from maid_stdlib.story.signals import StorySignalEvent, StorySituationResolvedEvent
from maid_stdlib.world.components import Describable
from maid_stdlib.world.events import EntityRelocatedEvent

if TYPE_CHECKING:
    from maid_engine.content import PackContext

__all__ = ["COMMANDS", "register_quest_generation", "system_of"]


def register_quest_generation(
    ctx: PackContext, config: QuestGenerationConfig | None = None
) -> QuestGenerationSystem:
    engine = ctx.engine
    existing = engine.services.try_get(QuestGenerationSystem)
    if existing is not None:
        return existing
    qg = engine.services.try_get(QuestGen) or register_questgen(ctx)
    templates = engine.services.try_get(TemplateRegistry)
    if templates is None:
        templates = TemplateRegistry()
        # The default layer: any pack registration of the same archetype wins.
        register_default_templates(templates)
        ctx.provide(TemplateRegistry, templates)
    system = QuestGenerationSystem(qg, config, templates)
    ctx.provide(QuestGenerationSystem, system)
    ctx.add_system(system)
    for name in (GENERATED_QUESTS_COLLECTION, HISTORY_COLLECTION, CACHE_COLLECTION):
        ctx.ensure_collection(name)
    ctx.subscribe(StorySignalEvent, system.on_story_signal)
    ctx.subscribe(StorySituationResolvedEvent, system.on_situation_resolved)

    def moved(event: EntityRelocatedEvent) -> None:
        system.tracker.on_moved(event.entity_id, event.to_room, event.reason)
        system.deliveries.on_relocated(event)

    def connected(event: CharacterConnectedEvent) -> None:
        system.tracker.connected_at.setdefault(event.character_id, engine.clock.game_time)
        system.deliveries.match(list(system.open_quests), [event.character_id])

    def disconnected(event: CharacterDisconnectedEvent) -> None:
        system.tracker.connected_at.pop(event.character_id, None)

    ctx.subscribe(EntityRelocatedEvent, moved)
    ctx.subscribe(CharacterConnectedEvent, connected)
    ctx.subscribe(CharacterDisconnectedEvent, disconnected)
    ctx.add_commands(COMMANDS)
    return system


def system_of(ctx: CommandContext) -> QuestGenerationSystem:
    system = ctx.engine.services.try_get(QuestGenerationSystem)
    if system is None:
        raise CommandError("Quest generation is not running.")
    return system


def _show_board(ctx: CommandContext) -> None:
    system = system_of(ctx)
    actor = ctx.require_actor()
    room = system.qg.facts.room_of(actor)
    board = system.planner.board_in(room)
    if board is None:
        raise CommandError("There is no notice board here.")
    world = ctx.world
    if isinstance(board, str):
        found = system.qg.facts.ws.room(board)
        desc = found.name if found is not None else "this place"
        ctx.send(f"You study the notices posted here in {desc}.")
    else:
        look = world.try_component(board, Describable)
        ctx.send(
            " ".join((look.description or look.short).split())
            if look is not None
            else "A notice board."
        )
    lines = system.deliveries.read_board(actor)
    ctx.send("\n".join(lines) if lines else "Nothing new has been posted for you.")


@command("board", aliases=("noticeboard",), category="quests")
def board_cmd(ctx: CommandContext) -> None:
    """Read the notice board where you stand: people post work there.

    Usage: board        (or: read board)
    """
    _show_board(ctx)


@command("read", category="general", prefix_match=False)
def read_cmd(ctx: CommandContext) -> None:
    """Read something: a notice board.

    Usage: read <thing>       e.g. "read board"
    """
    words = ctx.argv
    if not words:
        raise CommandError("Read what?")
    if words[-1] in ("board", "noticeboard", "notice", "notices"):
        _show_board(ctx)
        return
    raise CommandError(f"You cannot read the {ctx.args.strip()}.")


COMMANDS: list[Command] = [board_cmd, read_cmd]
