"""The bandit camp's narrated schema in the Ironvale pack: the same rules as the
stdlib's example (tests/worldstate checks the example itself)."""

from __future__ import annotations

from pathlib import Path

from maid_stdlib.worldstate import (
    Change,
    Condition,
    DictStatView,
    Report,
    apply_delta,
    lint_schema,
    load_schema_file,
)

SCHEMA = Path(__file__).resolve().parents[2] / "content_packs/ironvale/narrated/bandit_camp.yaml"


def refusal(report: Report, path: str) -> Change:
    found = [c for c in report.rejected if c.path == path]
    assert len(found) == 1, report
    return found[0]


def test_the_camp_schema_gates_every_milestone_and_passes_lint() -> None:
    schema = load_schema_file(SCHEMA)
    assert lint_schema(schema) == []
    assert all(ms.conditions for ms in schema.milestones.values())
    assert schema.milestones["rescue_gwen"].conditions == (
        Condition("flags.has_key", "==", True),
        Condition("npc.gwen.health", ">=", 1),
    )


def test_the_camp_rescue_needs_the_key_first_and_gwen_alive() -> None:
    schema = load_schema_file(SCHEMA)
    view = DictStatView()
    obedient = {"flags.has_key": True, "milestones.rescue_gwen": True}
    first = apply_delta(schema, view, obedient, 1)
    assert refusal(first, "milestones.rescue_gwen").code == "requires_unmet"
    assert view.get("flags.has_key") is True
    second = apply_delta(schema, view, {"milestones.rescue_gwen": True}, 2)
    assert second.milestones_reached == ["rescue_gwen"]
    # Had Gwen died first, no rescue.
    dead = DictStatView({"flags": {"has_key": True}, "npc": {"gwen": {"health": 10}}})
    report = apply_delta(schema, dead, {"npc.gwen.health": -30,
                                        "milestones.rescue_gwen": True}, 1)  # fmt: skip
    assert dead.get("milestones.rescue_gwen") is None
    assert refusal(report, "milestones.rescue_gwen").reason == "needs Gwen health >= 1"
