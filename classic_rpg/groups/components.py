"""Who follows whom and who is grouped with whom (runtime only: a group, like a
fight, does not outlive the session)."""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from maid_engine.ecs import Component


@dataclass
class Following(Component):
    """This character walks after ``leader`` when the leader walks out of a room
    they share."""

    component_name = "Following"
    persist = False
    leader: UUID | None = None


@dataclass
class GroupMember(Component):
    """This character is in ``leader``'s group (the leader has no GroupMember: a
    leader is whoever members name)."""

    component_name = "GroupMember"
    persist = False
    leader: UUID | None = None
