"""Building quest generation and wiring it into an engine: ``QuestGenerationPlugin``.

:func:`build_quest_generation` is the one place the pipeline's stages and their
collaborators are constructed, each once, with the frozen
:class:`~maid_stdlib.questgen.generation_config.QuestGenerationConfig`; nothing
is reconfigured afterwards. ``QuestGenerationPlugin`` (``stdlib.quest_generation``,
requiring ``stdlib.story`` and ``stdlib.questgen``) builds it with the
``QuestGenerationConfig`` an earlier pack provided as a service, else the
defaults; adds the system; provides the :class:`QuestGenerationService` (also as
the ``questgen`` preference's observer) and the ``TemplateRegistry`` packs add
their archetypes' templates to; subscribes the stdlib events (story signals,
moves, logins) and adds the player commands ``board`` and ``read`` (the notice
board). The rules layer then installs its offers through the service and its
sink on QuestGen (``classic_rpg.questgen.wiring.QuestDeliveryPlugin``).
The ``questgen`` preference and ``@quest`` admin commands live in
``maid_stdlib.questgen.preferences`` and the ``admin`` pack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from maid_engine.commands import Command, CommandContext, CommandError, command
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.llm import ContentFilter
from maid_engine.llm.service import CACHE_COLLECTION
from maid_engine.ports import (
    ClockPort,
    LLMPort,
    MetricsPort,
    RandomPort,
    ServicesPort,
    SessionsPort,
    StorePort,
    WorldPort,
)
from maid_stdlib.living.presence import Presence
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen.delivery import DeliveryPlanner, OpenQuest
from maid_stdlib.questgen.delivery_service import QuestDeliveryService
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.history import COLLECTION as HISTORY_COLLECTION
from maid_stdlib.questgen.intake import SignalIntake
from maid_stdlib.questgen.metrics import QuestGenMetrics
from maid_stdlib.questgen.narrative import (
    QuestNarrativeGenerator,
    TemplateFallbackGenerator,
    TemplateRegistry,
)
from maid_stdlib.questgen.personalization import PlayStyleTracker, QuestPersonalizer
from maid_stdlib.questgen.pipeline.backpressure import Backpressure
from maid_stdlib.questgen.pipeline.check import CheckStage
from maid_stdlib.questgen.pipeline.floor import DailyFloor, LiveSituations
from maid_stdlib.questgen.pipeline.holds import SeedHolds
from maid_stdlib.questgen.pipeline.lifecycle import OpenQuestLifecycle
from maid_stdlib.questgen.pipeline.narrate import NarrateStage
from maid_stdlib.questgen.pipeline.plan import PlanStage
from maid_stdlib.questgen.pipeline.publish import PublishStage
from maid_stdlib.questgen.pipeline.queue import SeedQueue
from maid_stdlib.questgen.pipeline.quotas import Quotas
from maid_stdlib.questgen.pipeline.screen import ResolvedSituations, SeedScreen
from maid_stdlib.questgen.pipeline.seed_store import SEEDS_COLLECTION, SeedStore
from maid_stdlib.questgen.preferences import PreferenceObserver
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION, QuestGen, QuestGenPlugin
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.side_table import GeneratedQuestTable
from maid_stdlib.questgen.system import QuestGenerationStages, QuestGenerationSystem
from maid_stdlib.story.register import StoryPlugin
from maid_stdlib.story.signals import StorySignalEvent, StorySituationResolvedEvent
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world.components import Describable
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.look import find_detail, name_of, render_entity
from maid_stdlib.world.plugin import WorldPlugin
from maid_stdlib.world.service import WorldService

__all__ = [
    "COMMANDS",
    "QuestGenerationPlugin",
    "build_quest_generation",
    "service_of",
]


class WiringHost(
    WorldPort, ClockPort, SessionsPort, RandomPort, MetricsPort, LLMPort, StorePort, Protocol
):
    """What building the quest-generation pipeline hands its stages: the world,
    game time, the seeded random source, who is online, the metrics registry, the
    one LLM service and the database (the seed queue is kept there)."""


def build_quest_generation(
    engine: WiringHost,
    qg: QuestGen,
    settings: QuestGenerationConfig,
    templates: TemplateRegistry,
    live: Callable[[], LiveSituations | None] = lambda: None,
) -> tuple[QuestGenerationSystem, QuestGenerationService]:
    """Every stage of the pipeline and its collaborators, each built once (in the
    order the engine's random stream has always seen them). ``live``: the story
    layer's situations, for the daily floor (None: the floor only reconsiders
    the signals it turned down)."""
    clock, world = engine.clock, engine.world
    metrics = QuestGenMetrics(engine.metrics)
    evaluator = qg.evaluator()
    composer = qg.composer(evaluator)
    builder = qg.builder()
    fallback = TemplateFallbackGenerator(templates, rng=engine.random)
    content_filter = ContentFilter()
    tracker = PlayStyleTracker(engine, settings.play_style_half_life)
    personalizer = QuestPersonalizer(
        qg.facts,
        tracker,
        qg.archetypes,
        active_damping_at=settings.active_quest_damping_at,
        active_damping=settings.active_quest_damping,
    )
    planner = DeliveryPlanner(qg.facts, settings.delivery_policy())
    open_quests: dict[str, OpenQuest] = {}
    deliveries = QuestDeliveryService(
        world,
        engine.sessions,
        qg.facts,
        personalizer,
        planner,
        qg.history,
        metrics,
        open_quests,
    )
    llm = engine.llm
    generator = QuestNarrativeGenerator(
        llm.provider,
        fallback,
        content_filter=content_filter,
        cache=llm.cache,
        metrics=engine.metrics,
        timeout=settings.build_timeout,
    )
    queue = SeedQueue(settings, metrics)
    resolved = ResolvedSituations()
    quotas = Quotas(settings, qg.history, qg.facts)
    side_table = GeneratedQuestTable(qg)
    intake = SignalIntake(
        settings,
        clock,
        metrics,
        qg.facts,
        evaluator,
        composer,
        queue,
        resolved,
        buildable=qg.fits_an_archetype,
    )
    narrate = NarrateStage(generator, fallback)
    holds = SeedHolds(
        qg.facts, qg.history, quotas, open_quests, lambda: [j.plan for j in narrate.jobs()]
    )
    qg.facts.item_claims.append(holds.items_claimed)

    stages = QuestGenerationStages(
        intake=intake,
        queue=queue,
        screen=SeedScreen(
            qg.facts,
            world,
            builder,
            qg.history,
            open_quests,
            resolved,
            evaluator.COOLDOWN_PER_NPC,
            stands_alone=lambda seed_type: not qg.seed_types.mergeable(seed_type),
        ),
        resolved=resolved,
        quotas=quotas,
        holds=holds,
        floor=DailyFloor(
            settings,
            clock,
            quotas,
            qg.facts,
            evaluator,
            intake,
            queue,
            resolved,
            open_quests,
            metrics,
            live,
        ),
        plan=PlanStage(
            qg.facts, builder, qg.quality_filter, qg.ranked_archetypes, qg.validator, holds
        ),
        narrate=narrate,
        check=CheckStage(
            builder, fallback, content_filter, qg.validator, qg.quality_filter, quotas
        ),
        publish=PublishStage(
            lambda: qg.sink,
            qg.record,
            qg.facts,
            queue,
            open_quests,
            side_table,
            deliveries,
            engine.sessions.characters_online,
            settings.delivery_spread,
            settings.deliveries_per_tick,
        ),
        lifecycle=OpenQuestLifecycle(open_quests, deliveries, qg.history, lambda: qg.sink),
        backpressure=Backpressure(settings, metrics, clock.monotonic),
        deliveries=deliveries,
        side_table=side_table,
        seed_store=SeedStore(queue, engine),
        open_quests=open_quests,
        metrics=metrics,
    )

    system = QuestGenerationSystem(settings, stages, clock, qg.history, llm, qg.startup)
    service = QuestGenerationService(system, stages, evaluator, tracker, metrics, clock)
    return system, service


class QuestGenerationPlugin(ContentPack):
    """Build the pipeline (with the ``QuestGenerationConfig`` an earlier pack provided
    as a service, else the defaults), add the QuestGenerationSystem (phase
    generation), provide the :class:`QuestGenerationService` (also as the
    ``questgen`` preference's observer) and the ``TemplateRegistry`` packs add their
    archetypes' templates to, subscribe the stdlib events and add ``board`` and
    ``read``."""

    name = "stdlib.quest_generation"
    requires = (WorldPlugin, StoryPlugin, QuestGenPlugin)
    provides = (QuestGenerationService, PreferenceObserver, TemplateRegistry)
    description = "The quest-generation pipeline run each tick, and the notice board."

    def register(self, ctx: PackContext) -> None:
        engine = ctx.engine
        templates = TemplateRegistry()
        ctx.provide(TemplateRegistry, templates)
        ctx.add_registry(templates.claims)
        # A setting, not a layer: a test or a server pack may provide its own.
        settings = engine.services.try_get(QuestGenerationConfig) or QuestGenerationConfig()

        def live() -> LiveSituations | None:
            try:
                return engine.get_system(StorySignalSystem)
            except LookupError:
                return None

        system, service = build_quest_generation(
            engine, ctx.service(QuestGen), settings, templates, live
        )
        ctx.provide(QuestGenerationService, service)
        ctx.provide(PreferenceObserver, service)
        ctx.add_system(system)
        for name in (
            GENERATED_QUESTS_COLLECTION,
            HISTORY_COLLECTION,
            CACHE_COLLECTION,
            SEEDS_COLLECTION,
        ):
            ctx.ensure_collection(name)
        ctx.subscribe(StorySignalEvent, system.on_story_signal)
        ctx.subscribe(StorySituationResolvedEvent, system.on_situation_resolved)

        def connected(event: CharacterConnectedEvent) -> None:
            service.character_connected(event.character_id)

        def disconnected(event: CharacterDisconnectedEvent) -> None:
            service.character_disconnected(event.character_id)

        ctx.subscribe(EntityRelocatedEvent, service.character_moved)
        ctx.subscribe(CharacterConnectedEvent, connected)
        ctx.subscribe(CharacterDisconnectedEvent, disconnected)
        ctx.add_commands(COMMANDS)
        living = engine.services.try_get(LivingWorld)
        if living is not None:
            living.presence.board_sections.append(QuestBoardSection(service, engine).lines)


class QuestBoardSection:
    """The open quests whose givers live in a notice board's area, for its text."""

    HEADING = "Work on offer:"

    def __init__(self, service: QuestGenerationService, engine: ServicesPort) -> None:
        self.service = service
        self.engine = engine

    def lines(self, area: str) -> list[str]:
        ws = self.engine.services.get(WorldService)
        out = []
        for oq in self.service.open_quests().values():
            quest = oq.quest
            room = ws.room_key_of(quest.quest_giver_id)
            if room is None or ws.area_of(room) != area:
                continue
            out.append(f"  - {quest.title} (ask {name_of(ws, quest.quest_giver_id)})")
        return [self.HEADING, *sorted(out)] if out else []


def service_of(ctx: CommandContext) -> QuestGenerationService:
    service = ctx.engine.services.try_get(QuestGenerationService)
    if service is None:
        raise CommandError("Quest generation is not running.")
    return service


def _show_board(ctx: CommandContext) -> None:
    service = service_of(ctx)
    facts = ctx.engine.services.get(QuestGen).facts
    actor = ctx.require_actor()
    board = service.notice_board_in(facts.room_of(actor))
    if board is None:
        raise CommandError("There is no notice board here.")
    world = ctx.world
    listed = quiet = False
    if isinstance(board, str):
        found = facts.ws.room(board)
        desc = found.name if found is not None else "this place"
        ctx.send(f"You study the notices posted here in {desc}.")
    else:
        look = world.try_component(board, Describable)
        text = (look.description or look.short) if look is not None else "A notice board."
        listed = QuestBoardSection.HEADING in text
        quiet = Presence.NOTHING_PINNED in text
        # Its lines (what is pinned up) stay lines.
        ctx.send("\n".join(" ".join(ln.split()) for ln in text.splitlines() if ln.strip()))
    lines = service.read_board(actor)
    if lines:
        ctx.send("\n".join(lines))
    elif listed:
        # The board's own text already lists the area's open work; "nothing new"
        # under that list read as if the list were stale.
        ctx.send("No fresh notice is pinned up for you; ask those named above about their work.")
    elif not quiet:  # the board already said there is nothing new
        ctx.send("Nothing new has been posted for you.")


@command("board", aliases=("noticeboard",), category="quests")
def board_cmd(ctx: CommandContext) -> None:
    """Read the notice board where you stand: people post work there.

    Usage: board        (or: read board)
    """
    _show_board(ctx)


BOARD_WORDS = ("board", "noticeboard", "notice", "notices")


@command("read", category="general", prefix_match=False)
async def read_cmd(ctx: CommandContext) -> None:
    """Read something: a notice board, a sign, a map, a letter you carry.

    Usage: read <thing>       e.g. "read board", "read map", "read sign"

    For a map of the area around you, type 'map'.
    """
    words = ctx.argv
    if not words:
        raise CommandError("Read what?")
    if words[-1].lower() in BOARD_WORDS:
        _show_board(ctx)
        return
    wanted = ctx.args.strip()
    ws: WorldService = ctx.service(WorldService)
    actor = ctx.require_actor()
    room = ws.room_key_of(actor)
    detail = find_detail(ws, room, wanted) if room else None
    if detail is not None:
        ctx.send(detail)
        return
    found = ws.find_in_room(room, wanted, viewer=actor) if room else None
    if found is not None:
        ctx.send(render_entity(ws, found))
        return
    # Things carried belong to another layer: its 'examine' reads them.
    examine = [c for c in ctx.engine.commands.match("examine", ctx.role) if c.key == "examine"]
    try:
        if not examine:
            raise CommandError(f"You see nothing called '{wanted}' here to read.")
        await examine[0].run(ctx)
    except CommandError:
        if wanted.lower() in ("map", "the map") and ctx.engine.commands.match("map", ctx.role):
            raise CommandError(
                "There is no map here to read. Type 'map' to draw the area around you."
            ) from None
        raise CommandError(f"You see nothing called '{wanted}' here to read.") from None


COMMANDS: list[Command] = [board_cmd, read_cmd]
