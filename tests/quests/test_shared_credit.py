"""A quest's progression mode: a group member's kill counts for everyone of the group
present on a shared-credit quest, only for the killer otherwise."""

from __future__ import annotations

import pytest
from kits.heroes import fight, make_strong, new_character
from quests.questkit import place, progress, quest, start

from maid_engine.engine import GameEngine
from maid_engine.testing import cmd
from maid_stdlib.questgen.quest import ProgressionMode

WOLVES = {
    "objective_id": "wolves",
    "objective_type": "kill",
    "target_template": "qtest:wolf",
    "target_count": 2,
}


@pytest.mark.parametrize(
    ("mode", "bob_counts"),
    [
        (ProgressionMode.SHARED_CREDIT, 1),
        (ProgressionMode.INDIVIDUAL, 0),
        (ProgressionMode.COMPETITIVE, 0),
    ],
)
async def test_a_group_kill_counts_as_the_quest_says(
    engine: GameEngine, mode: ProgressionMode, bob_counts: int
) -> None:
    hero, bob = new_character(engine), new_character(engine, "Bob")
    for c in (hero, bob):
        make_strong(engine, c)
        place(engine, c, "yard")
        await start(engine, c, quest("test-quest", WOLVES, progression_mode=mode))
    await cmd(engine, bob, "follow alice")
    assert await cmd(engine, hero, "group bob") == "Bob joins your group."
    await fight(engine, hero, "wolf")
    assert progress(engine, hero, "wolves").count == 1
    assert progress(engine, bob, "wolves").count == bob_counts


async def test_shared_credit_needs_the_member_present_and_grouped(engine: GameEngine) -> None:
    hero, bob = new_character(engine), new_character(engine, "Bob")
    shared = quest("test-quest", WOLVES, progression_mode=ProgressionMode.SHARED_CREDIT)
    for c in (hero, bob):
        make_strong(engine, c)
        place(engine, c, "yard")
        await start(engine, c, shared)
    await fight(engine, hero, "wolf")  # not grouped yet
    assert progress(engine, bob, "wolves").count == 0
    await cmd(engine, bob, "follow alice")
    await cmd(engine, hero, "group bob")
    place(engine, bob, "gate")  # grouped, but elsewhere
    await fight(engine, hero, "wolf")
    assert progress(engine, hero, "wolves").count == 2
    assert progress(engine, bob, "wolves").count == 0
