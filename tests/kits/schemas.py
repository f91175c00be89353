"""Checks shared by every narrated schema that uses the rescue-Gwen example rules
(the stdlib's example and the shipped game's bandit camp keep the same milestones)."""

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


def refusal(report: Report, path: str) -> Change:
    """The one refusal of ``path`` in ``report``."""
    found = [c for c in report.rejected if c.path == path]
    assert len(found) == 1, report
    return found[0]


def check_gates_every_milestone(path: Path) -> None:
    """The schema passes lint and every milestone has preconditions; the rescue needs
    the key and a living Gwen."""
    schema = load_schema_file(path)
    assert lint_schema(schema) == []
    assert all(ms.conditions for ms in schema.milestones.values())
    assert schema.milestones["rescue_gwen"].conditions == (
        Condition("flags.has_key", "==", True),
        Condition("npc.gwen.health", ">=", 1),
    )


def check_rescue_needs_key_and_gwen_alive(path: Path) -> None:
    """A reply that sets the key and the rescue at once gets the key only; a later
    reply rescues; a Gwen killed in the same reply cannot be rescued."""
    schema = load_schema_file(path)
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
