"""One narrated turn, retry and undo: the bodies of the jobs the service queues.

A turn, in four phases (the room's queue lock is held throughout, so turns of one
room never interleave; other rooms and the tick never wait for it):

1. *read the log* (no engine lock): the previous turn's report (its refusals go to
   the model, and only that turn's) and the history, both read back from the store;
2. *read the world* (``world_lock``): the scene, the World State, the messages;
3. *ask the model* (no lock): one call; after ``unfolding_after`` seconds the room is
   told the story is unfolding; past the timeout the turn ends with a fallback
   narration and no change;
4. *apply* (``world_lock``): snapshot, ``apply_delta``, tell the room, and collect
   the commit (``TurnLog.commit``); then, outside the lock, wait for it: the turn
   with its snapshot and report is written together with everything the world
   changed since the last checkpoint, in one transaction.

Retry restores the snapshot of the turn it replaces in the same critical section
that applies the new reply, so a change is never applied twice; if the new telling
fails, the old turn stands untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.llm import (
    KIND_PLAYER,
    ContentFilter,
    LLMBudgetExhausted,
    LLMError,
    LLMProvider,
    LLMQuotaExceeded,
    LLMRequest,
    LLMResult,
    LLMTimeout,
    LLMUnavailable,
    sanitize_generated,
)
from maid_engine.ports import ClockPort, SessionsPort, WorldLockPort
from maid_stdlib.narration.components import NarratedRoom
from maid_stdlib.narration.config import NarrationConfig
from maid_stdlib.narration.context import Scene, build_messages
from maid_stdlib.narration.jobs import (
    BUDGET,
    DROPPED,
    FILTERED,
    LLM_ERROR,
    NO_MODEL,
    OK,
    QUOTA,
    TIMEOUT,
    TurnHandle,
    TurnResult,
)
from maid_stdlib.narration.rooms import RoomSetup, SceneHost, present_npcs
from maid_stdlib.narration.turnlog import TurnLog, TurnRecord
from maid_stdlib.narration.writes import record_view, snapshot_view, store
from maid_stdlib.world.look import name_of
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import escape_markup, spoken
from maid_stdlib.worldstate import (
    BlockReading,
    Report,
    StatView,
    Unreadable,
    apply_delta,
    instantiate,
    read_reply,
    render_changes,
    restore,
    take_snapshot,
)
from maid_stdlib.worldstate.report import Reader


class TurnHost(SceneHost, SessionsPort, ClockPort, WorldLockPort, Protocol):
    """What a turn uses of the engine: the world under its lock, game time, and
    messaging the characters in the room."""


class Narrator(Protocol):
    """What a turn uses of the narration service (``NarrationService``, which
    queues these jobs: typing against it would close an import loop)."""

    @property
    def engine(self) -> TurnHost: ...

    @property
    def config(self) -> NarrationConfig: ...

    @property
    def ws(self) -> WorldService: ...

    @property
    def provider(self) -> LLMProvider | None: ...

    @property
    def timeout(self) -> float: ...

    @property
    def content_filter(self) -> ContentFilter | None: ...

    @property
    def log(self) -> TurnLog: ...

    def count_turn(self, outcome: str, report: Report | None = None) -> None: ...
    def count_blocks(self, blocks: Iterable[BlockReading]) -> None: ...


log = logging.getLogger("maid.narration")

UNFOLDING = "|xThe story is unfolding...|n"
FALLBACK = "The moment hangs, unfinished, as if the world has lost its thread."
RETRY_HINT = "|yNothing changed. Type 'retry' to try again.|n"
NO_MODEL_NOTE = (
    "|x(No storyteller is configured on this server: this is only a sketch, "
    "and nothing in the world changes.)|n"
)
GMCP_CHANGES = "Room.Narration.Changes"
GMCP_UNDONE = "Room.Narration.Undone"


@dataclass
class Telling:
    """What came back from the model (or instead of it)."""

    outcome: str
    narration: str
    reply: str = ""
    delta: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    latency: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: How each state block of the reply was read (what was forgiven, what refused).
    blocks: list[BlockReading] = field(default_factory=list)

    @property
    def unreadable(self) -> list[Unreadable]:
        return [item for block in self.blocks for item in block.unreadable]

    @property
    def lenient(self) -> list[str]:
        out: list[str] = []
        for block in self.blocks:
            out += [note for note in block.lenient if note not in out]
        return out


#: Outcomes where the model was never asked: the turn is refused, not told.
REFUSALS = frozenset({QUOTA, BUDGET})


def wait_phrase(seconds: float | None) -> str:
    """ "in 40 s", "in 12 min" (rounded up), or "in a moment" when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "in a moment"
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return f"in {whole} s"
    return f"in {math.ceil(whole / 60)} min"


def refusal_message(error: LLMQuotaExceeded | LLMBudgetExhausted) -> str:
    """What the player is told when the model was not asked for them."""
    if isinstance(error, LLMBudgetExhausted):
        return f"The storyteller is worn out for now; try again {wait_phrase(error.retry_after)}."
    if error.scope == "queue":
        return "The storyteller is still busy with your earlier requests; try again in a moment."
    return f"The storyteller needs a moment; try again {wait_phrase(error.retry_after)}."


def account_of(svc: Narrator, actor: UUID) -> str | None:
    """The actor's account id (None for a character without one)."""
    pc = svc.engine.world.try_component(actor, PlayerCharacter)
    return pc.account_id or None if pc is not None else None


def _refuse(svc: Narrator, actor: UUID, message: str) -> TurnResult:
    svc.engine.sessions.send_to(actor, message)
    return TurnResult("refused")


def template_narration(actor_name: str, text: str) -> str:
    return f'{actor_name} sets about it: "{text}". The scene holds still, waiting.'


def make_scene(svc: Narrator, setup: RoomSetup, actor: UUID) -> Scene:
    ws = svc.ws
    room = ws.room(setup.key)
    assert room is not None
    return Scene(
        room_name=room.name,
        description=room.description,
        actor_name=name_of(ws, actor),
        premise=setup.premise,
        others=[name_of(ws, c) for c in ws.characters_in(setup.key) if c != actor],
        npcs=[name_of(ws, n) for n in ws.npcs_in(setup.key) if ws.is_visible(n, actor)],
    )


# -- phase 3: the model ------------------------------------------------------------------
async def call_with_notice(
    svc: Narrator, provider: LLMProvider, request: LLMRequest, room_key: str
) -> LLMResult:
    started = time.monotonic()
    call = asyncio.ensure_future(provider.complete(request))
    try:
        done, _ = await asyncio.wait({call}, timeout=svc.config.unfolding_after)
        if not done:
            # Synchronous (no await inside), so it cannot interleave with a command.
            svc.ws.message_room(room_key, UNFOLDING)
        remaining = svc.timeout - (time.monotonic() - started)
        return await asyncio.wait_for(call, max(remaining, 0.001))
    finally:
        if not call.done():
            call.cancel()
            with contextlib.suppress(BaseException):
                await call


async def ask_model(
    svc: Narrator,
    setup: RoomSetup,
    messages: list[dict[str, Any]],
    scene: Scene,
    text: str,
    actor: UUID,
    account: str | None,
) -> Telling:
    provider = svc.provider
    sketch = template_narration(scene.actor_name, text)
    if provider is None:
        return Telling(NO_MODEL, sketch)
    cfg = svc.config
    request = LLMRequest(
        messages=messages,
        purpose="narration",
        max_tokens=cfg.max_tokens,
        temperature=cfg.temperature,
        timeout=svc.timeout,
        kind=KIND_PLAYER,
        account=account,
        character=str(actor),
    )
    try:
        result = await call_with_notice(svc, provider, request, setup.key)
    except LLMUnavailable:
        return Telling(NO_MODEL, sketch)
    except LLMQuotaExceeded as exc:
        # Refused before any call: not a model failure, and nothing was charged.
        return Telling(QUOTA, refusal_message(exc))
    except LLMBudgetExhausted as exc:
        return Telling(BUDGET, refusal_message(exc))
    except (LLMTimeout, TimeoutError):
        return Telling(TIMEOUT, FALLBACK)
    except LLMError as exc:
        log.info("narration in %s failed: %s", setup.key, exc)
        return Telling(LLM_ERROR, FALLBACK)
    except Exception:
        log.exception("the LLM provider failed in %s", setup.key)
        return Telling(LLM_ERROR, FALLBACK)
    reading = read_reply(result.text)
    narration = sanitize_generated(reading.narration)
    verdict = svc.content_filter.check(narration) if svc.content_filter else None
    if not narration or (verdict is not None and not verdict.ok):
        reasons = verdict.reasons if verdict is not None else ("empty",)
        log.warning("narration in %s refused by the content filter: %s", setup.key, reasons)
        return Telling(
            FILTERED,
            FALLBACK,
            reply=result.text,
            model=result.model,
            latency=result.latency,
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )
    for item in reading.unreadable:
        log.info("state block in %s not readable at %s: %s", setup.key, item.where(), item.problem)
    return Telling(
        OK,
        narration,
        reply=result.text,
        delta=reading.delta,
        model=result.model,
        latency=result.latency,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        blocks=reading.blocks,
    )


# -- the turn ----------------------------------------------------------------------------
async def run_turn(
    svc: Narrator, handle: TurnHandle, setup: RoomSetup, actor: UUID, text: str | None
) -> TurnResult:
    """A new turn (``text``) or a retry of the actor's last turn (``text=None``)."""
    engine, room = svc.engine, setup.key
    cfg = svc.config
    recent = await svc.log.recent(room, cfg.history_turns + 1)
    old: TurnRecord | None = None
    if text is None:
        old = await svc.log.last_of(room, str(actor))
        if old is None:
            return _refuse(svc, actor, "You have no turn here to tell again.")
        if not recent or recent[0].key != old.key:
            return _refuse(
                svc, actor, "Someone has acted since: only the last turn here can be told again."
            )
        text, recent = old.player_text, recent[1:]
    previous = recent[0].parsed_report() if recent else None
    history = list(reversed(recent[: cfg.history_turns]))
    async with engine.world_lock:
        room_id = svc.ws.room_id(room)
        if room_id is None or svc.ws.room_key_of(actor) != room:
            svc.count_turn(DROPPED)
            return _refuse(svc, actor, "You are no longer there; that action fades.")
        if old is not None:
            refusal = undo_refusal(svc, setup, room_id, old)
            if refusal is not None:
                return _refuse(svc, actor, refusal)
        present = present_npcs(engine, setup)
        shown: StatView = setup.view(engine.world, room_id, actor, present)
        before = old.snapshot() if old is not None else None
        if before is not None:
            shown = snapshot_view(before)
        scene = make_scene(svc, setup, actor)
        account = account_of(svc, actor)
        messages, sections = build_messages(
            setup.schema,
            shown,
            scene,
            text,
            present_npcs=list(present),
            history=history,
            previous=previous,
        )
    handle.phase = "calling"
    telling = await ask_model(svc, setup, messages, scene, text, actor, account)
    if telling.outcome in REFUSALS:
        # No turn happened: nothing to apply or store, a retried turn stands as it was.
        svc.count_turn(telling.outcome)
        engine.sessions.send_to(actor, telling.narration)
        return TurnResult(telling.outcome)
    handle.phase = "applying"
    async with engine.world_lock:
        records, report = apply_turn(
            svc, setup, actor, text, telling, old, sections, scene.actor_name
        )
        # Collected here, with the turn's changes and nothing half-done by others.
        pending = svc.log.commit(*records)
    await store(pending, records)
    mine = Reader(scene.actor_name, you=True, toward=toward_phrases(setup))
    line = render_changes(report, setup.schema, mine) if report is not None else ""
    return TurnResult(telling.outcome, records[0], report, telling.narration, line)


def apply_turn(
    svc: Narrator,
    setup: RoomSetup,
    actor: UUID,
    text: str,
    telling: Telling,
    old: TurnRecord | None,
    sections: dict[str, str],
    actor_name: str,
) -> tuple[list[TurnRecord], Report | None]:
    """Phase 4, under the world lock. Returns the records to store and the report."""
    engine, room = svc.engine, setup.key
    world, ws = engine.world, svc.ws
    room_id = ws.room_id(room)
    assert room_id is not None
    ok = telling.outcome == OK
    base: dict[str, Any] = dict(
        room=room,
        actor=str(actor),
        actor_name=actor_name,
        kind="retry" if old else "act",
        player_text=text,
        narration=telling.narration,
        reply=telling.reply,
        outcome=telling.outcome,
        scope=setup.scope,
        context=sections,
        game_time=engine.clock.game_time,
        retry_of=old.key if old else None,
        model=telling.model,
        latency=telling.latency,
        prompt_tokens=telling.prompt_tokens,
        completion_tokens=telling.completion_tokens,
    )
    if old is not None and not ok:
        # A failed retry changes nothing: the turn it meant to replace stands.
        failed = TurnRecord(
            key=TurnRecord.new_key(room, old.action_index),
            action_index=old.action_index,
            active=False,
            status="retry_failed",
            **base,
        )
        engine.sessions.send_to(
            actor,
            "|yThe new telling did not come; your last turn "
            "stands as it was. Type 'retry' to try again.|n",
        )
        svc.count_turn(telling.outcome)
        return [failed], None
    record = world.try_component(room_id, NarratedRoom)
    if record is None:
        record = NarratedRoom(schema_ref=setup.ref, scope=setup.scope)
        world.add_component(room_id, record)
    if old is not None:
        before = old.snapshot()
        if before is not None:
            restore(record_view(engine, setup, room_id, old), before)
        index = old.action_index
        old.active, old.status = False, "retried"
    else:
        index = record.action_index + 1
    present = present_npcs(engine, setup)
    view = setup.view(world, room_id, actor, present)
    schema = setup.schema
    if not schema.is_empty:
        # A newcomer's values are written at their initial before the snapshot, so the
        # snapshot (and every later undo) starts from real values, not from "unset".
        instantiate(schema, view)
    snapshot = None if schema.is_empty else take_snapshot(view)
    report = (
        None
        if schema.is_empty
        else apply_delta(
            schema,
            view,
            telling.delta if ok else {},
            index,
            unreadable=telling.unreadable if ok else (),
            lenient=telling.lenient if ok else (),
        )
    )
    turn = TurnRecord(
        key=TurnRecord.new_key(room, index),
        action_index=index,
        npcs={npc_id: str(uid) for npc_id, uid in present.items()},
        snapshot_before=snapshot.model_dump(mode="json") if snapshot else None,
        report=report.model_dump(mode="json") if report else None,
        **base,
    )
    record.action_index, record.last_turn = index, turn.key
    record.turns_stored += 1
    announce(svc, setup, actor, turn, report, rewound=old is not None)
    svc.count_turn(telling.outcome, report)
    if ok and report is not None:
        svc.count_blocks(telling.blocks)
    return [turn] + ([old] if old is not None else []), report


#: Where every line of narration starts (its continuation lines too): the model's
#: prose never starts a line, so it cannot pass for the game's own messages (a
#: prompt-injected model writing "The server is shutting down. Goodbye!").
NARRATION_INDENT = "  "


def narrated(text: str) -> str:
    """Narration as the room reads it: markup made inert, every line indented and
    marked as someone's words (blank lines stay blank)."""
    return "\n".join(
        spoken(NARRATION_INDENT + escape_markup(line)) if line.strip() else ""
        for line in text.split("\n")
    )


def toward_phrases(setup: RoomSetup) -> dict[str, str]:
    """Bound stats that are someone's feeling about the actor, with their words."""
    return {p: b.binder.toward for p, b in setup.bindings.items() if b.binder.toward}


def undo_refusal(svc: Narrator, setup: RoomSetup, room_id: UUID, turn: TurnRecord) -> str | None:
    """Why ``turn`` can no longer be taken back (undone or told again), or ``None``.

    Bound values are the world's: once something outside the room reacted to one (a
    quest counted the rescue, the village heard of it), rolling it back would leave
    that reaction standing on a deed that never happened.
    """
    report = turn.parsed_report()
    if report is None or not setup.bindings:
        return None
    paths = [c.path for c in report.applied if c.path in setup.bindings]
    reasons = record_view(svc.engine, setup, room_id, turn).undo_blocked(paths)
    if not reasons:
        return None
    return "That cannot be taken back now: " + "; ".join(reasons) + "."


def announce(
    svc: Narrator,
    setup: RoomSetup,
    actor: UUID,
    turn: TurnRecord,
    report: Report | None,
    rewound: bool,
) -> None:
    ws, sessions = svc.ws, svc.engine.sessions
    room = setup.key
    if rewound:
        ws.message_room(
            room, f"|yThe story rewinds, and {turn.actor_name}'s action is told anew.|n"
        )
    ws.message_room(room, narrated(turn.narration))
    if turn.outcome == NO_MODEL:
        ws.message_room(room, NO_MODEL_NOTE)
    elif turn.outcome != OK:
        sessions.send_to(actor, RETRY_HINT)
    if report is None or turn.outcome != OK:
        return
    toward = toward_phrases(setup)
    for character in ws.characters_in(room):
        reader = Reader(turn.actor_name, you=character == actor, toward=toward)
        line = render_changes(report, setup.schema, reader)
        if line:
            sessions.send_to(character, f"|wChanges:|n {line}")
    payload = {
        "room": room,
        "turn": turn.key,
        "action": turn.action_index,
        "actor": turn.actor_name,
        "applied": [c.model_dump(mode="json") for c in report.applied],
        "clamped": [c.model_dump(mode="json") for c in report.clamped],
        "rejected": [c.model_dump(mode="json") for c in report.rejected],
        "milestones_reached": list(report.milestones_reached),
        "lenient": list(report.lenient),
    }
    for character in ws.characters_in(room):
        sessions.gmcp_to(character, GMCP_CHANGES, payload)


# -- undo --------------------------------------------------------------------------------
async def run_undo(svc: Narrator, handle: TurnHandle, setup: RoomSetup, actor: UUID) -> TurnResult:
    engine, room = svc.engine, setup.key
    mine = await svc.log.last_of(room, str(actor))
    recent = await svc.log.recent(room, 2)
    if mine is None:
        return _refuse(svc, actor, "You have nothing to undo here.")
    if not recent or recent[0].key != mine.key:
        return _refuse(
            svc, actor, "Someone has acted since: only the last turn here can be undone."
        )
    handle.phase = "applying"
    async with engine.world_lock:
        room_id = svc.ws.room_id(room)
        if room_id is None:
            return _refuse(svc, actor, "That place is gone.")
        refusal = undo_refusal(svc, setup, room_id, mine)
        if refusal is not None:
            return _refuse(svc, actor, refusal)
        before = mine.snapshot()
        if before is not None:
            restore(record_view(engine, setup, room_id, mine), before)
        record = engine.world.try_component(room_id, NarratedRoom)
        if record is not None:
            record.action_index = mine.action_index - 1
            record.last_turn = recent[1].key if len(recent) > 1 else ""
        mine.active, mine.status = False, "undone"
        svc.ws.message_room(
            room, f"|yThe story steps back: {mine.actor_name}'s last action is undone.|n"
        )
        for character in svc.ws.characters_in(room):
            engine.sessions.gmcp_to(character, GMCP_UNDONE, {"room": room, "turn": mine.key})
        pending = svc.log.commit(mine)
    await store(pending, [mine])
    return TurnResult("undone", mine, mine.parsed_report(), mine.narration)
