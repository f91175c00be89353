"""The tick's schedule: named phases, after/before, sort keys, and the errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.ecs import System
from maid_engine.ecs.schedule import (
    MARKDOWN_BEGIN,
    MARKDOWN_END,
    PHASES,
    ScheduleError,
    render_markdown,
    render_text,
    resolve_order,
)
from maid_engine.engine import GameEngine

DOCS = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


class Named(System):
    """A system whose name is given per test class (see ``make``)."""


def make(name: str, phase: str, **declared: Any) -> System:
    cls = type(name, (Named,), {"phase": phase, **declared})
    system: System = cls()
    return system


def names(systems: list[System]) -> list[str]:
    return [s.name for s in systems]


def test_phases_run_in_the_listed_order_whatever_the_registration_order() -> None:
    systems = [make(f"S{i}", phase) for i, phase in reversed(list(enumerate(PHASES)))]
    assert names(resolve_order(systems)) == [f"S{i}" for i in range(len(PHASES))]


def test_after_and_before_order_a_phase_by_class_or_name() -> None:
    first = make("First", "living")
    third = make("Third", "living", after=("Second",))
    second = make("Second", "living", after=(type(first),))
    zeroth = make("Zeroth", "living", before=(type(first), "Third"))
    assert names(resolve_order([third, second, first, zeroth])) == [
        "Zeroth",
        "First",
        "Second",
        "Third",
    ]


def test_a_class_target_also_matches_its_subclasses() -> None:
    base = type("Base", (Named,), {"phase": "combat"})
    child = type("Child", (base,), {})
    late = make("Late", "combat", after=(base,))
    assert names(resolve_order([late, child()])) == ["Child", "Late"]


def test_free_systems_sort_by_order_key_then_registration() -> None:
    systems = [
        make("C", "story", order=220),
        make("A", "story", order=200),
        make("B1", "story", order=210),
        make("B2", "story", order=210),
        make("Z", "story"),
    ]
    assert names(resolve_order(systems)) == ["Z", "A", "B1", "B2", "C"]


def test_declarations_beat_the_sort_key() -> None:
    low = make("Low", "quests", order=1, after=("High",))
    high = make("High", "quests", order=9)
    assert names(resolve_order([low, high])) == ["High", "Low"]


def test_a_cross_phase_declaration_that_agrees_with_the_phases_is_fine() -> None:
    story = make("Story", "story")
    flush = make("Flush", "persistence", after=("Story",))
    regen = make("Regen", "combat", before=("Story",))
    assert names(resolve_order([flush, story, regen])) == ["Regen", "Story", "Flush"]


@pytest.mark.parametrize(
    ("systems", "message"),
    [
        pytest.param(
            lambda: [make("Lost", "")],
            "Lost declares no phase (one of combat, living,",
            id="no phase",
        ),
        pytest.param(
            lambda: [make("Odd", "tea-time"), make("Fine", "living")],
            "Odd declares the unknown phase 'tea-time'",
            id="unknown phase",
        ),
        pytest.param(
            lambda: [make("Old", "living", priority=150)],
            "Old declares a priority: tick order is declared with phase",
            id="legacy priority",
        ),
        pytest.param(
            lambda: [make("Waiter", "living", after=("Ghost",))],
            "Waiter runs after Ghost, which is not registered",
            id="unknown after",
        ),
        pytest.param(
            lambda: [make("Eager", "living", before=(Named,))],
            "Eager runs before Named, which is not registered",
            id="unknown before (a class with no other instance)",
        ),
        pytest.param(
            lambda: [make("Flush", "persistence"), make("Regen", "combat", after=("Flush",))],
            "Regen runs after Flush, but phase 'combat' of Regen comes before "
            "phase 'persistence' of Flush",
            id="against the phase order",
        ),
        pytest.param(
            lambda: [
                make("A", "living", after=("C",)),
                make("B", "living", after=("A",)),
                make("C", "living", after=("B",)),
                make("Free", "living"),
            ],
            "the after/before declarations form a cycle: A -> B -> C -> A",
            id="cycle",
        ),
        pytest.param(
            lambda: [
                make("Self", "living", before=("Other",)),
                make("Other", "living", before=("Self",)),
            ],
            "form a cycle: Self -> Other -> Self",
            id="two-cycle",
        ),
    ],
)
def test_a_bad_schedule_is_a_clear_error(systems: Any, message: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        resolve_order(systems())
    assert message in str(caught.value)


async def test_the_engine_refuses_to_start_with_a_bad_schedule() -> None:
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[], use_store=False)
    engine.add_system(make("Waiter", "living", after=("Ghost",)))
    with pytest.raises(ScheduleError, match="Waiter runs after Ghost"):
        await engine.start()
    await engine.stop()
    assert not engine.started


def default_engine() -> GameEngine:
    engine = GameEngine(Settings(), use_store=False)
    engine.register_packs()
    return engine


def test_default_packs_keep_their_tick_order() -> None:
    engine = default_engine()
    assert [(s.phase, s.name) for s in engine.systems] == [
        ("combat", "RegenSystem"),
        ("combat", "CombatSystem"),
        ("combat", "RespawnSystem"),
        ("living", "ScheduleSystem"),
        ("living", "AutonomySystem"),
        ("living", "SocialFabricSystem"),
        ("living", "RegroupSystem"),
        ("living", "PresenceSystem"),
        ("living", "AmbientSystem"),
        ("living", "RestockSystem"),
        ("quests", "QuestSystem"),
        ("story", "StorySignalSystem"),
        ("generation", "QuestGenerationSystem"),
        ("consequences", "ConsequenceSystem"),
        ("grounding", "QuestGroundingMonitor"),
        ("persistence", "MemoryFlushSystem"),
        ("persistence", "CrowdSystem"),
        ("persistence", "GmcpSystem"),
    ]
    table = engine.resolved_schedule()
    # The feature plugin that registered each system.
    assert {row.system: row.pack for row in table}["QuestSystem"] == "classic_rpg.quests"
    assert {row.system: row.pack for row in table}["StorySignalSystem"] == "stdlib.story"
    text = render_text(table)
    assert re.search(r"^combat +RespawnSystem +classic_rpg\.rules +after CombatSystem$", text, re.M)


def test_architecture_doc_shows_the_real_system_order() -> None:
    doc = DOCS.read_text(encoding="utf-8")
    begin, end = doc.index(MARKDOWN_BEGIN), doc.index(MARKDOWN_END) + len(MARKDOWN_END)
    engine = default_engine()
    expected = render_markdown(engine.resolved_schedule())
    assert doc[begin:end] == expected, (
        "docs/architecture.md is out of date: paste the output of `maid systems --markdown`"
    )
