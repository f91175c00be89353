"""Generated quest text over whole runs: the lint finds nothing a reader would stop at.

Runs 7 game days on several seeds (few bots: the text, not the play, is under
test) and reads ``narrative.lint`` from simulate's report.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from classic_rpg.simulate import SimulationOptions, run_simulation
from maid_stdlib.text import lint_text


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_seven_days_of_quests_have_no_text_defects(seed: int) -> None:
    report: dict[str, Any] = asyncio.run(
        run_simulation(SimulationOptions(days=7, bots=2, seed=seed, progress=False, drain_hours=1))
    )
    lint = report["narrative"]["lint"]
    assert lint["quests"] > 5
    assert lint["by_kind"] == {}, lint["examples"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Would you Hear Selena's side of the dispute over Selena blames the guard", None),
        ("Bring lump of iron ore to Gundrik", "missing_article"),
        ("Go and hear what Captain Voss want.", "subject_verb_agreement"),
        ("Meet Odda Flint to hear what Odda Flint want", "subject_verb_agreement"),
        ("Talk to Bram and finally Tell Pell it was delivered?", "capitalised_verb_mid_sentence"),
        ("I learned that bandits are on Old Trade Road", "first_person_in_third_person_slot"),
        ("Trouble on Old Trade Road, The Broken Wagon.", "raw_place_name"),
        ("Hear Captain Voss's side of the dispute over follow_up", "internal_id"),
        ("I am tired of the shouting. a gate guard will not listen to me anymore.", None),
    ],
)
def test_the_issues_examples_are_flagged(text: str, kind: str | None) -> None:
    names = ["Selena", "Captain Voss", "Gundrik", "Odda Flint", "Pell", "Bram"]
    found = {d.kind for d in lint_text(text, "third", names)}
    assert found, text
    if kind is not None:
        assert kind in found


def test_the_scripted_model_names_only_what_the_facts_hold() -> None:
    report: dict[str, Any] = asyncio.run(
        run_simulation(
            SimulationOptions(days=2, bots=2, seed=2, llm="scripted", progress=False, drain_hours=1)
        )
    )
    checked = report["narrative"]["unmatched_mentions"]
    assert checked["mentions"] > 20
    assert checked["rate"] < 0.013, checked["examples"]
    assert report["narrative"]["lint"]["by_kind"] == {}
