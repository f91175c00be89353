"""Every @quest subcommand against a world of generated, active, expired and chained
quests built through the real pipeline (see conftest.py)."""

from __future__ import annotations

import re

import pytest
from kits.engines import questgen_of, skip
from kits.heist import LoopWorld, admin, ticks

from admin import quest_commands
from admin.force import ForceResult
from admin.quest_commands import SUBCOMMANDS
from admin.quest_views import objective_line
from maid_engine.clock import GAME_DAY
from maid_engine.commands import Role
from maid_engine.net.markup import strip_markup
from maid_engine.testing import cmd
from maid_stdlib.questgen import BasicSignal, QuestGen, SeedGrounding
from maid_stdlib.questgen.evaluator import GroundedSignal
from maid_stdlib.questgen.quest import QuestObjective
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.questgen.service import QuestGenerationService
from maid_stdlib.questgen.system import QuestGenerationSystem
from maid_stdlib.questgen.vocabulary import ObjectiveType
from maid_stdlib.story.system import StorySignalSystem

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def run(world: LoopWorld, line: str) -> str:
    """An admin command, all pages of it."""
    out = await admin(world.engine, world.admin, line)
    if "-- more --" in out:
        out = out.replace("-- more -- (type 'more' or 'next')", "")
        out += "\n" + await admin(world.engine, world.admin, "more all")
    return out


def ids_in(text: str) -> set[str]:
    return set(re.findall(r"gen-[a-z_]+-[0-9a-f]{8}", text))


async def test_no_arguments_lists_every_subcommand(loop_world: LoopWorld) -> None:
    out = await run(loop_world, "@quest")
    for name in SUBCOMMANDS:
        assert f"@quest {name}" in out
    assert "Usage: @quest <subcommand>" in out


async def test_a_non_admin_is_refused(loop_world: LoopWorld) -> None:
    w = loop_world
    for role, said in (
        (Role.PLAYER, "Huh? '@quest' is not a command."),
        (Role.BUILDER, "You do not have permission to use @quest"),
    ):
        out = await cmd(w.engine, w.player, "@quest list-generated", role=role)
        assert said in out
        assert w.active not in out


async def test_unknown_and_ambiguous_subcommands(loop_world: LoopWorld) -> None:
    assert "Unknown subcommand 'bogus'" in await run(loop_world, "@quest bogus")
    # Unambiguous prefixes select a subcommand.
    assert "Generated quests (active)" in await run(loop_world, "@quest list")


async def test_list_generated_filters_by_status(loop_world: LoopWorld) -> None:
    w = loop_world
    active = await run(w, "@quest list-generated")
    assert active == await run(w, "@quest list-generated --active")
    assert {w.active, w.chained} <= ids_in(active)
    assert not {w.expired, w.heist} & ids_in(active)
    assert f"{w.active} [active]" in active
    assert re.search(rf"{w.chained} \[(generated|offered)\] grounding \d\.\d\d", active)
    expired = await run(w, "@quest list-generated --expired")
    assert w.expired in ids_in(expired)
    assert f"{w.expired} [expired]" in expired
    assert not {w.active, w.chained, w.heist} & ids_in(expired)
    everything = await run(w, "@quest list-generated --all")
    assert {w.active, w.chained, w.heist, w.expired} <= ids_in(everything)
    assert f"{w.heist} [perfect]" in everything
    assert 'heist: "' in everything
    assert "from Tamsin Reed" in everything
    assert "Usage: @quest list-generated" in await run(w, "@quest list-generated --soon")


async def test_seed_status_shows_queue_in_flight_and_ages(loop_world: LoopWorld) -> None:
    w = loop_world
    system = w.engine.services.get(QuestGenerationService)
    queue = next(s for s in w.engine.systems if isinstance(s, QuestGenerationSystem)).stages.queue
    # The world's own follow-ups may wait for their givers; this test reads a queue
    # holding only its own seed.
    for waiting in queue.pending:
        queue.withdraw(waiting)
    out = await run(w, "@quest seed-status")
    assert "Seed queue: depth 0" in out
    assert "builds in flight 0 of 3" in out
    assert "Recent builds: registered" in out
    # A seed waiting two game hours (built by the real evaluator from Hobb's state).
    qg = w.engine.services.get(QuestGen)
    hobb = qg.facts.resolve_npc("heist:hobb")
    assert hobb is not None
    grounding = SeedGrounding(hobb, "heist:strongroom", {"subject": "a lost ledger"})
    signal = BasicSignal("ADMIN_FORCED", 0.6, [hobb], {})
    part = GroundedSignal(signal, "mystery", grounding, 0)
    seed = system.build_seed([part], part, 0.6)
    assert not isinstance(seed, Rejection), seed
    seed.created_at -= 2 * 3600
    queue.enqueue(seed)
    queue.drain_incoming(system.in_flight_ids())  # pending, as on the next tick
    try:
        out = await run(w, "@quest seed-status")
    finally:
        queue.withdraw(seed)
    assert "Seed queue: depth 1 (0 arrived for the next tick, 1 waiting)" in out
    histogram = {
        line.split()[0]: line.split()[-1]
        for line in out.splitlines()
        if line.strip().startswith(("<", "10m", "1-6h", "6-24h", ">"))
    }
    assert histogram == {"<": "0", "10m-1h": "0", "1-6h": "1", "6-24h": "0", ">": "0"}
    assert "#" in next(line for line in out.splitlines() if "1-6h" in line)
    assert "mystery from Hobb: importance 0.60, age 2.0h" in out
    assert "Usage: @quest seed-status" in await run(w, "@quest seed-status now")


async def test_inspect_a_finished_heist(loop_world: LoopWorld) -> None:
    w = loop_world
    out = await run(w, f"@quest inspect {w.heist}")
    assert out.startswith(f'{w.heist}  "')
    assert "status: perfect -- Aria: turned_in" in out
    assert "seed: heist_opportunity" in out
    assert "archetype heist" in out
    assert "giver: Tamsin Reed at The Tenements" in out
    assert "narrative source: template (fallback: no_model); token cost 0" in out
    assert re.search(r"quality: grounding \d\.\d\d, coherence \d\.\d\d, novelty \d\.\d\d", out)
    for objective in (
        "[visit] Reach Vesk's Strongroom",
        "[custom] Go unseen by Hobb",
        "<stay-unseen>",
        "[collect] Take an iron-bound strongbox",
        "[deliver] Bring the iron-bound strongbox to Tamsin Reed",
    ):
        assert objective in out
    assert "Consequences on success: 4" in out
    assert "npc_need_satisfy (Tamsin Reed, need +" in out
    assert "Consequences on failure: 4" in out  # her need sinks when nobody helps
    assert "Branches: 0" in out
    # Every sentence of the prose names the facts it stands on.
    assert re.search(r"Narrative facts: [1-9]", out)
    assert "  - giver: Tamsin Reed asks for help" in out
    trace = [line for line in out.splitlines() if line.startswith("  [")]
    assert trace
    assert all(re.match(r"  \[\w+ <- [\w:, ]+\] ", line) for line in trace), trace
    assert re.search(r"  \[summary <- [^\]]*giver[^\]]*\] Tamsin Reed ", out), out
    assert "  [offer <- flavour] Will you?" in out
    assert "Consequence batches applied: 1" in out
    assert "perfect by Aria: applied" in out


async def test_inspect_shows_branches_and_holders(loop_world: LoopWorld) -> None:
    w = loop_world
    out = await run(w, f"@quest inspect {w.active}")
    assert "status: active -- Cora: in progress" in out
    branches = int(re.search(r"Branches: (\d+)", out).group(1))  # type: ignore[union-attr]
    assert branches == 1
    assert "* Side with" in out
    assert "* Broker a compromise" in out
    assert "(choice)" in out
    # Per-character difficulty: Cora (level 8) took on a quest for level 7, so the
    # work factor rose; nothing here is counted, so the work and its pay did not.
    assert "Fitted to characters: 1" in out
    assert (
        "  - Cora: work x1.25, time /1.25, rewards x1.00; level 8 against a hard quest "
        "for level 7" in out
    )
    assert "gold: " not in out
    assert "experience: " not in out


async def test_inspect_and_grounding_check_refuse_bad_ids(loop_world: LoopWorld) -> None:
    w = loop_world
    for sub in ("inspect", "grounding-check", "chain"):
        assert "No generated quest 'gen-nope-00000000'" in await run(
            w, f"@quest {sub} gen-nope-00000000"
        )
        assert f"Usage: @quest {sub} <quest_id>" in await run(w, f"@quest {sub}")
    assert "hand-authored" in await run(w, "@quest inspect road-scouts")


async def test_grounding_check_reports_valid_and_invalid(loop_world: LoopWorld) -> None:
    w = loop_world
    out = await run(w, f"@quest grounding-check {w.chained}")
    assert "VALID" in out
    assert "INVALID" not in out
    assert "checked as an offer" in out
    assert "Grounding monitor: nothing in the world contradicts it." in out
    # The heist's strongbox was taken and handed over: as an offer it would no
    # longer stand, but it was accepted, so taking the item was progress.
    out = await run(w, f"@quest grounding-check {w.heist}")
    assert "checked as accepted" in out
    assert "VALID" in out


async def test_quality_report_matches_the_history(loop_world: LoopWorld) -> None:
    w = loop_world
    entries = w.engine.services.get(QuestGen).history.entries()
    out = await run(w, "@quest quality-report")
    assert f"Quality report: {len(entries)} generated quests" in out
    avg = sum(e.grounding_score for e in entries) / len(entries)
    assert f"average grounding {avg:.2f}" in out
    assert "by status:" in out
    assert "expired" in out
    assert "perfect 1" in out
    assert "template fallback rate 100% (reasons: no_model" in out
    assert re.search(r"rejected \d+ \(stages: .*\); rejection rate \d+%", out)
    assert "rejected by rule:" in out
    assert "seeds held (cycles waited) by rule:" in out
    assert "seeds dropped by rule:" in out
    assert "signals turned down by rule:" in out
    assert "found by the daily floor's wider search:" in out
    assert "Alert window" in out
    # Every rejection listed names its rules: no empty reasons.
    latest = out.split("Latest rejections:")[-1].splitlines()[1:] if "Latest" in out else []
    assert all(re.match(r"\s+\d+s \w+ \([\w, ]+\): \S", line) for line in latest), latest


async def test_backpressure_reports_the_throttle(loop_world: LoopWorld) -> None:
    out = await run(loop_world, "@quest backpressure")
    assert out.startswith("Backpressure: normal")
    assert "builds in flight: 0 of 3" in out
    assert "token budget: 15000 of 15000 left" in out
    assert "template-only above 20 until back to 10; spike mode off" in out
    assert "LLM p99 latency: n/a" in out
    assert "active per region (max 3):" in out


async def test_chain_draws_ancestry_and_descendants(loop_world: LoopWorld) -> None:
    w = loop_world
    out = await run(w, f"@quest chain {w.heist}")
    lines = out.splitlines()
    root = next(i for i, line in enumerate(lines) if w.heist in line and "[perfect]" in line)
    assert "<-- this one" in lines[root]
    assert lines[root + 1].lstrip().startswith(f"`-- {w.chained}")
    assert "0 ancestor(s), 1 descendant(s)" in out
    out = await run(w, f"@quest chain {w.chained}")
    assert f"ancestry {w.heist} -> {w.chained}" in out
    assert "1 ancestor(s), 0 descendant(s)" in out
    assert f"{w.chained} [" in out
    assert "<-- this one" in out


async def test_force_generate_goes_through_the_real_pipeline(loop_world: LoopWorld) -> None:
    w = loop_world
    out = await run(w, "@quest force-generate nonsense")
    assert "Unknown seed type 'nonsense'" in out
    assert "heist_opportunity" in out
    assert "There is no NPC called 'nobody'." in await run(
        w, "@quest force-generate mystery nobody"
    )
    assert "Usage: @quest force-generate" in await run(w, "@quest force-generate")
    history = w.engine.services.get(QuestGen).history
    before = {e.quest_id for e in history.entries()}
    # A pack's seed type is grounded only by its own grounder, on a situation its
    # detector sees now (tests/heist/test_force_generate.py); without one, nothing
    # is made up from the generic shapes.
    story = w.engine.get_system(StorySignalSystem)
    if not story.situations_now(["VAULT_UNGUARDED"]):
        out = await run(w, "@quest force-generate heist_opportunity")
        assert "no situation for heist_opportunity right now" in out
    # A game day on, the daily cap has room again (the valley's own troubles may
    # have filled the last one): the forced seed is built at once.
    skip(w.engine, GAME_DAY)
    assert not questgen_of(w.engine).day_full()
    out = await run(w, "@quest force-generate rivalry_intervention --ignore-cooldown")
    assert "Queued seed" in out, out
    await ticks(w.engine, 2)
    # (The day a game day on is short of quests: the floor's wider search may
    # build the valley's own troubles alongside.)
    new = [e for e in history.entries() if e.quest_id not in before]
    forced = [e for e in new if e.seed_type == "rivalry_intervention"]
    assert len(forced) == 1, [e.seed_type for e in new]
    listed = await run(w, "@quest list-generated")
    assert forced[0].quest_id in listed


async def test_force_generate_shows_situation_keys_as_text(
    loop_world: LoopWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key with a pipe ("bandits|guard") is shown as typed: "|g" is no colour code."""

    async def nothing(*args: object, **kwargs: object) -> ForceResult:
        return ForceResult(tried=["TENSION tension:bandits|guard: no giver in reach"])

    monkeypatch.setattr(quest_commands, "force_generate", nothing)
    out = await run(loop_world, "@quest force-generate rivalry_intervention")
    assert "tension:bandits|guard: no giver" in strip_markup(out), out


async def test_an_objective_line_says_its_count_once() -> None:
    said = QuestObjective(
        objective_type=ObjectiveType.KILL,
        description="Defeat 3 bandit scouts",
        target="bandit scout",
        quantity=3,
    )
    assert "Defeat 3 bandit scouts  <" in objective_line(said)
    bare = QuestObjective(
        objective_type=ObjectiveType.COLLECT, description="Gather ore", target="ore", quantity=2
    )
    assert "Gather ore x2  <" in objective_line(bare)
