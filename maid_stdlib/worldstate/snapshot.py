"""Undo and retry: a copy of every live value taken before a turn is applied.

Take a snapshot before applying the model's block and keep it with the turn.
Undo restores the snapshot of the first turn removed; retry restores the snapshot of
the turn being regenerated and then applies the new reply, so the old reply's changes
are never applied twice. Stats, flags, milestones and cooldown records all come back,
and anything set after the snapshot was taken is removed again (a milestone reached in
the undone turn becomes pending).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from maid_stdlib.worldstate.view import StatView


class Snapshot(BaseModel):
    """Every stored value and cooldown record of a view; JSON-ready for storage."""

    model_config = ConfigDict(extra="forbid")

    values: dict[str, bool | int | float] = Field(default_factory=dict)
    last_changed: dict[str, int] = Field(default_factory=dict)

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> Snapshot:
        return cls.model_validate_json(data)


def take_snapshot(view: StatView) -> Snapshot:
    return Snapshot(values=dict(view.values()), last_changed=dict(view.all_last_changed()))


def restore(view: StatView, snapshot: Snapshot) -> None:
    """Put ``view`` back exactly as it was when ``snapshot`` was taken.

    Paths the view can no longer write (an NPC whose entity is gone) are skipped.
    """
    for path in view.values():
        if path not in snapshot.values and view.writable(path):
            view.set(path, None)
    for path, value in snapshot.values.items():
        if view.writable(path):
            view.set(path, value)
    for path in view.all_last_changed():
        if path not in snapshot.last_changed and view.writable(path):
            view.set_last_changed(path, None)
    for path, index in snapshot.last_changed.items():
        if view.writable(path):
            view.set_last_changed(path, index)
