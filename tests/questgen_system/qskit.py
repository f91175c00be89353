"""Hamlet with the RPG layer and the whole quest pipeline (wired by the stdlib and
classic_rpg packs): living world, story signals, the QuestGen toolkit, the RPG
archetypes and hooks, the quest generation pipeline and its RPG delivery glue.
Another world (the shipped game, for the end-to-end tests) is one ``world=`` away.

``QuestgenSettings`` (``kits.engines``) provides a test's generation config before
the stdlib builds the pipeline with it; :class:`QuestgenTuning` silences the story detectors.
Tests talk to the pipeline through the :class:`QuestGenerationService`
(``kits.engines.questgen_of``); ``pipeline_of`` gives the coordinator and its
stages to the tests that check a stage itself.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from kits.engines import HAMLET_RPG, QuestgenSettings, npc, questgen_of, room_key
from kits.engines import make_engine as kits_engine
from kits.heroes import new_character

from classic_rpg.components import CharacterStats
from maid_engine.content import ContentPack, PackContext
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent
from maid_engine.testing import FakeSession, session_for
from maid_stdlib.living import api
from maid_stdlib.living.components import Goal, GoalStatus
from maid_stdlib.questgen import QuestSeed
from maid_stdlib.questgen.contract import SeedGrounding
from maid_stdlib.questgen.evaluator import GroundedSignal
from maid_stdlib.questgen.generation_config import QuestGenerationConfig
from maid_stdlib.questgen.personalization import PlayStyleTracker, QuestPersonalizer
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.signals import BasicSignal
from maid_stdlib.questgen.system import QuestGenerationSystem
from maid_stdlib.story.signals import StorySignal
from maid_stdlib.world import WorldService


class QuestgenTuning(ContentPack):
    """Only test tuning of the (default-wired) quest pipeline: ``quiet``
    unregisters every story detector so only test signals arrive (it requires the
    stdlib, whose story plugin registers them; no world pack adds any)."""

    name = "questgen_tuning"
    requires = ("stdlib",)

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet

    def register(self, ctx: PackContext) -> None:
        from maid_stdlib.story.detectors import StoryDetectors

        if self.quiet:
            detectors = ctx.service(StoryDetectors)
            for name in detectors.names():
                detectors.unregister(name)


def make_engine(
    tmp_path: Path,
    *,
    tick: float = 60.0,
    config: QuestGenerationConfig | None = None,
    quiet: bool = False,
    use_store: bool = False,
    seed: int = 7,
    world: Sequence[str | type[ContentPack]] = HAMLET_RPG,
    db_url: str | None = None,
    **settings: Any,
) -> GameEngine:
    """The pipeline on ``world`` (by default Hamlet with the RPG layer); a store at
    ``db_url``, or with ``use_store`` the data dir's SQLite file."""
    packs: list[str | type[ContentPack] | ContentPack] = [*world, QuestgenTuning(quiet)]
    if config is not None:
        packs.insert(0, QuestgenSettings(config))
    return kits_engine(
        tmp_path,
        packs,
        tick=tick,
        seed=seed,
        db_url=db_url,
        use_store=use_store or bool(db_url),
        settings=settings,
    )


@asynccontextmanager
async def started(
    tmp_path: Path,
    config: QuestGenerationConfig | None = None,
    *,
    quiet: bool = True,
    world: Sequence[str | type[ContentPack]] = HAMLET_RPG,
) -> AsyncIterator[GameEngine]:
    """A started engine (quiet by default) whose pipeline runs with ``config``."""
    engine = make_engine(tmp_path, config=config, quiet=quiet, world=world)
    async with engine.lifespan():
        yield engine


def pipeline_of(engine: GameEngine) -> QuestGenerationSystem:
    """The coordinator, for tests of a stage itself."""
    found = [s for s in engine.systems if isinstance(s, QuestGenerationSystem)]
    assert len(found) == 1, found
    return found[0]


def no_holds(engine: GameEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing holds a seed back: tests of throughput and scheduling build one
    threat's quests from several givers in a row, which the holds (one open quest
    per threat, the giver's and the area's day) would make wait."""
    holds = pipeline_of(engine).stages.holds
    monkeypatch.setattr(holds, "before_plan", lambda *_args, **_kw: None)
    monkeypatch.setattr(holds, "for_archetype", lambda *_args: None)


def personalizer_of(engine: GameEngine) -> QuestPersonalizer:
    """The delivery stage's personalizer (tests of scoring)."""
    return pipeline_of(engine).stages.deliveries.personalizer


def tracker_of(engine: GameEngine) -> PlayStyleTracker:
    """The play-style tracker (tests of style inference)."""
    return personalizer_of(engine).tracker


async def ticks(engine: GameEngine, n: int = 1) -> None:
    """Run ``n`` ticks, letting background builds finish between them (as the real
    loop's sleeps do)."""
    system = questgen_of(engine)
    for _ in range(n):
        await engine.tick()
        await system.drain()
        await asyncio.sleep(0)


async def until(engine: GameEngine, check: Any, limit: int = 2000) -> int:
    """Tick until ``check()`` is truthy; returns the ticks it took."""
    for n in range(limit):
        if check():
            return n
        await ticks(engine)
    raise AssertionError(f"not reached within {limit} ticks")


async def online(
    engine: GameEngine, name: str = "Aldric", room: str | None = None, level: int | None = None
) -> tuple[UUID, FakeSession]:
    """A new character, logged in (CharacterConnectedEvent dispatched)."""
    uid = new_character(engine, name, online=False)
    if level is not None:
        engine.world.get_component(uid, CharacterStats).level = level
    if room is not None:
        engine.services.get(WorldService).move(uid, room_key(engine, room), reason="test")
    session = session_for(engine, uid)
    engine.events.emit(CharacterConnectedEvent(uid, session.id))
    await engine.dispatch_events()
    return uid, session


async def move(engine: GameEngine, uid: UUID, room: str, reason: str = "walk") -> None:
    """Move like a walk (or, with ``reason="goto"``, like a teleport, which is not
    exploring) and dispatch what it caused."""
    engine.services.get(WorldService).move(uid, room_key(engine, room), reason=reason)
    await engine.dispatch_events()


def seed_for(
    engine: GameEngine,
    giver: str,
    seed_type: str = "threat_response",
    room: str = "hamlet:road_copse",
    importance: float = 0.9,
    involved: tuple[str, ...] = (),
    **fields: Any,
) -> QuestSeed:
    """A grounded seed built through the evaluator (cooldown and variety apply)."""
    uid = npc(engine, giver)
    fields.setdefault("threat_source", "wolves")
    grounding = SeedGrounding(uid, room, fields, [npc(engine, n) for n in involved])
    part = GroundedSignal(BasicSignal("TEST", importance, [uid]), seed_type, grounding, 0)
    seed = questgen_of(engine).build_seed([part], part, importance)
    assert not isinstance(seed, Rejection), seed
    return seed


# -- model answers -----------------------------------------------------------------------
NARRATIVE = {
    "title": "The Mill Road",
    "summary": "Hollin's grain has stopped coming. He needs the mill road cleared of "
    "wolves before his mill stands idle.",
    "description": "Hollin looks up from his empty sacks. 'Three days now without a single "
    "grain cart. Those wolves on the mill road...' He kicks a sack."
    "\n\n'The warden knows, but she is one woman with a horn. If someone does not deal "
    "with them soon, the mill stops.'",
}
DIALOGUE = {
    "offer": "You look like you can swing a blade. The wolves on the mill road are "
    "starving my mill. Will you help drive them off?",
    "progress": "Any word from the road? My millstones are still.",
    "completion": "The road is clear? Then the grain will come again. Thank you, friend.",
}


TITLES = ("The Mill Road", "Wolves on the Mill Road", "A Road Without Grain", "The Road Again")
_GIVER = re.compile(r'<user_content source="quest_giver">\s*(.*?)\s*</user_content>', re.DOTALL)


def answer_for(request: Any, tokens: int = 0) -> Any:
    """A valid model answer for the quest call (narrative and dialogue), titled like
    a model told which titles were used lately."""
    import json

    from maid_engine.llm import LLMResult

    prompt = " ".join(str(m.get("content", "")) for m in request.messages)
    used = prompt.split('<user_content source="recent_titles">', 1)[-1].split("</user_content>")[0]
    title = next((t for t in TITLES if f"- {t}\n" not in used + "\n"), TITLES[0])
    found = _GIVER.search(prompt)
    # The canned prose is Hollin's; another giver's quest gets it in their name
    # (a model writes about its own giver, and the grounding check holds it to that).
    giver = found.group(1) if found is not None else "Hollin"
    if found is not None:  # quests written at once for two givers differ too
        title = f"{title} for {giver}"
    data = {**NARRATIVE, **DIALOGUE}  # the one quest call answers both
    data = {k: v.replace("Hollin", giver) for k, v in data.items()}
    data["title"] = title
    text = json.dumps(data)
    if tokens:
        half = tokens // 2
        return LLMResult(text=text, prompt_tokens=half, completion_tokens=tokens - half)
    return text


def scripted(engine: GameEngine, responder: Any = None, **kw: Any) -> Any:
    """Give the system's generator a ScriptedProvider (default: valid answers)."""
    from maid_engine.llm import ScriptedProvider

    provider = ScriptedProvider(responder or answer_for, metrics=engine.metrics, **kw)
    pipeline_of(engine).stages.narrate.generator.provider = provider
    return provider


def _blocked_supply(
    engine: GameEngine,
    key: str,
    goal: tuple[str, str],
    blocker: tuple[str, str, str],
    target: str,
) -> UUID:
    """Set an NPC to the worked example's state: economic need 0.2 and a blocked
    ACQUIRE goal (``goal``: id and description; ``blocker``: text, source, room)."""
    uid = npc(engine, key)
    api.set_need(engine.world, uid, "economic", 0.2)
    api.add_goal(
        engine.world,
        uid,
        Goal(
            id=goal[0],
            type="ACQUIRE",
            description=goal[1],
            priority=0.8,
            status=GoalStatus.BLOCKED,
            blocker=blocker[0],
            blocker_source=blocker[1],
            blocker_rooms=[blocker[2]],
            need="economic",
            target=target,
            created_at=engine.clock.game_time,
        ),
    )
    return uid


def threat(engine: GameEngine, *npcs: str, importance: float = 0.6) -> StorySignal:
    """The wolves on the mill road, seen by ``npcs``."""
    return StorySignal(
        "THREAT_DETECTED",
        importance,
        [npc(engine, n) for n in npcs],
        context={"threat_source": "wolves", "threat_location": "hamlet:road_copse"},
        situation_key="threat:wolves:hamlet:mill_road",
    )


def blocked(engine: GameEngine, importance: float = 0.8) -> StorySignal:
    """Hollin's grain goal, blocked by the wolves."""
    miller = npc(engine, "hollin")
    return StorySignal(
        "GOAL_BLOCKED",
        importance,
        [miller],
        context={
            "blocked_goal": "Get grain to the mill",
            "blocker": "wolves on the mill road",
            "npc_id": str(miller),
            "threat_source": "wolves",
            "blocker_location": "hamlet:road_copse",
        },
        situation_key="goal_blocked:hollin:get_grain",
    )


def grain_crisis(engine: GameEngine) -> UUID:
    """Hamlet's miller in the state of the worked example, set directly: economic need
    0.2 and a blocked ACQUIRE goal (the wolves on the mill road). Returns the miller."""
    return _blocked_supply(
        engine,
        "hamlet:hollin",
        ("get_grain", "Get grain to the mill"),
        ("wolves on the mill road, The Copse", "wolves", "hamlet:road_copse"),
        "grain",
    )
