"""Quest definitions: the pydantic models the QuestManager works on.

A :class:`Quest` is the static definition (authored in pack data or built by the
generation pipeline, ``to_quest_model``). Per-character progress lives
in the ``QuestLog`` component (:mod:`classic_rpg.systems.quests.questlog`).

Rooms are referred to by their string key ("ironvale:road_ridge"), as everywhere
in the world layer; entities (NPCs) by UUID.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.vocabulary import ObjectiveType

__all__ = [
    "WATCHERS",
    "Quest",
    "QuestObjective",
    "QuestRewards",
    "Slug",
]

_SLUG = re.compile(r"[a-z0-9][a-z0-9_\-]{0,49}")


def _slug(value: str) -> str:
    if not _SLUG.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a valid id (1-50 characters: lower-case letters, digits, '-', '_')"
        )
    return value


Slug = Annotated[str, AfterValidator(_slug)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QuestRewards(_Model):
    experience: int = Field(default=0, ge=0)
    gold: int = Field(default=0, ge=0)
    #: Item templates ("ironvale:iron_sword") spawned into the character's inventory.
    item_template_ids: list[str] = Field(default_factory=list)


#: Objective types that complete when other objectives ("watch") complete.
WATCHERS = (ObjectiveType.PROTECT, ObjectiveType.TIMED)


class QuestObjective(_Model):
    """One objective. See docs/quests.md for which fields each type reads."""

    objective_id: Slug
    objective_type: ObjectiveType
    description: str = Field(min_length=1)
    #: Display name of the target ("a bandit scout").
    target_name: str = ""
    #: A specific entity (KILL/TALK target, PROTECT/ESCORT NPC, DELIVER recipient).
    target_id: UUID | None = None
    #: NPC template ("ironvale:bandit_scout") for KILL/TALK/DELIVER recipients.
    target_template: str | None = None
    #: KILL: any NPC having this keyword.
    target_keyword: str | None = None
    #: COLLECT/DELIVER: the item template.
    item_template: str | None = None
    target_count: int = Field(default=1, ge=1, le=10_000)
    #: VISIT/ESCORT: room key.
    destination_room_id: str | None = None
    required: bool = True
    #: Same order = parallel; a higher order unlocks once every required objective
    #: of lower order is complete; order 0 is available at the start.
    order: int = Field(default=0, ge=0)
    hint: str = ""
    #: TIMED: game seconds from unlocking; PROTECT: survive this long (optional).
    time_limit_seconds: float | None = Field(default=None, gt=0)
    #: PROTECT/TIMED: objective ids (same order) whose completion completes this one.
    watch: list[str] = Field(default_factory=list)
    #: The stage of a quest in stages it belongs to ("Stage 1 of 2: Deal with the
    #: bandits"), shown above its objectives in the quest log; "" for none.
    stage: str = ""
    #: FACT: the world fact (``rescue_gwen``) the character has to make true.
    fact: str | None = None
    #: TALK: what the one talked to says or does once the step is done (a line as
    #: it is shown: "Gundrik says, ..."), in place of their greeting; "" for none.
    reply: str = Field(default="", max_length=600)

    @field_validator("destination_room_id", mode="before")
    @classmethod
    def _room(cls, value: Any) -> Any:
        # Generated quests carry room entity ids (seed: target_location: UUID);
        # QuestManager.register_generated_quest turns them into room keys.
        return str(value) if isinstance(value, UUID) else value

    @model_validator(mode="after")
    def _fields_for_type(self) -> QuestObjective:
        t = self.objective_type
        need = {
            ObjectiveType.KILL: (
                self.target_id or self.target_template or self.target_keyword,
                "target_id, target_template or target_keyword",
            ),
            ObjectiveType.COLLECT: (self.item_template, "item_template"),
            ObjectiveType.DELIVER: (
                self.item_template and (self.target_id or self.target_template),
                "item_template and a recipient (target_id or target_template)",
            ),
            ObjectiveType.VISIT: (self.destination_room_id, "destination_room_id"),
            ObjectiveType.TALK: (
                self.target_id or self.target_template,
                "target_id or target_template",
            ),
            ObjectiveType.PROTECT: (self.target_id, "target_id (the NPC to protect)"),
            ObjectiveType.ESCORT: (
                self.target_id and self.destination_room_id,
                "target_id and destination_room_id",
            ),
            ObjectiveType.TIMED: (self.time_limit_seconds, "time_limit_seconds"),
            ObjectiveType.FACT: (self.fact, "fact"),
        }
        if t in need and not need[t][0]:
            raise ValueError(f"a {t.value} objective needs {need[t][1]}")
        if self.watch and t not in WATCHERS:
            raise ValueError("only protect and timed objectives may watch other objectives")
        return self


class Quest(_Model):
    """A quest definition (hand-authored or generated)."""

    quest_id: Slug
    title: str = Field(min_length=1, max_length=80)
    summary: str = ""
    description: str = ""
    level_requirement: int = Field(default=1, ge=1)
    giver_npc_id: UUID | None = None
    #: Defaults to the giver.
    turn_in_npc_id: UUID | None = None
    accept_dialogue: str = ""
    progress_dialogue: str = ""
    complete_dialogue: str = ""
    objectives: list[QuestObjective] = Field(min_length=1)
    rewards: QuestRewards = Field(default_factory=QuestRewards)
    #: Game seconds from acceptance to turn-in; None: unlimited.
    time_limit_seconds: float | None = Field(default=None, gt=0)
    #: Expected game seconds from acceptance to completion (2x = pyrrhic victory).
    estimated_duration_seconds: float | None = Field(default=None, gt=0)
    repeatable: bool = False
    #: May be turned in with >= 50% of the required objectives (PARTIAL_SUCCESS).
    partial_turn_in: bool = False
    #: Who a kill counts for: the killer alone (individual, competitive) or every
    #: group member present with the quest too (shared_credit).
    progression_mode: ProgressionMode = ProgressionMode.INDIVIDUAL
    tags: list[str] = Field(default_factory=list)
    source: Literal["authored", "generated"] = "authored"

    @model_validator(mode="before")
    @classmethod
    def _hours(cls, data: Any) -> Any:
        # Authors think in game hours (``time_limit_hours``); the model keeps seconds.
        if isinstance(data, dict) and "time_limit_hours" in data:
            data = dict(data)
            hours = data.pop("time_limit_hours")
            if "time_limit_seconds" in data:
                raise ValueError("give time_limit_hours or time_limit_seconds, not both")
            data["time_limit_seconds"] = None if hours is None else float(hours) * 3600.0
        return data

    @model_validator(mode="after")
    def _structure(self) -> Quest:
        ids = [o.objective_id for o in self.objectives]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate objective ids: {', '.join(dupes)}")
        if not any(o.required for o in self.objectives):
            raise ValueError("a quest needs at least one required objective")
        by_id = {o.objective_id: o for o in self.objectives}
        for o in self.objectives:
            for w in o.watch:
                other = by_id.get(w)
                if other is None:
                    raise ValueError(f"objective {o.objective_id!r} watches unknown {w!r}")
                if w == o.objective_id or other.objective_type in WATCHERS:
                    raise ValueError(
                        f"objective {o.objective_id!r} may not watch {w!r} (itself or another "
                        "protect/timed objective)"
                    )
                if other.order != o.order:
                    raise ValueError(
                        f"objective {o.objective_id!r} watches {w!r} of a different order"
                    )
            if o.objective_type in WATCHERS and not o.watch and not self._watchable(o):
                if o.objective_type is ObjectiveType.TIMED or o.time_limit_seconds is None:
                    raise ValueError(
                        f"{o.objective_type.value} objective {o.objective_id!r} has nothing to "
                        "watch (no other objective of its order)"
                    )
        return self

    def _watchable(self, o: QuestObjective) -> list[str]:
        return [
            x.objective_id
            for x in self.objectives
            if x.order == o.order and x.objective_type not in WATCHERS
        ]

    # -- helpers --------------------------------------------------------------------
    @property
    def turn_in_npc(self) -> UUID | None:
        return self.turn_in_npc_id or self.giver_npc_id

    def objective(self, objective_id: str) -> QuestObjective | None:
        return next((o for o in self.objectives if o.objective_id == objective_id), None)

    def watched(self, o: QuestObjective) -> list[str]:
        """The objectives a PROTECT/TIMED objective waits for (empty: a duration only)."""
        if o.objective_type not in WATCHERS:
            return []
        if o.watch:
            return list(o.watch)
        if o.objective_type is ObjectiveType.PROTECT and o.time_limit_seconds is not None:
            return []
        return self._watchable(o)

    @property
    def required(self) -> list[QuestObjective]:
        return [o for o in self.objectives if o.required]

    @property
    def optional(self) -> list[QuestObjective]:
        return [o for o in self.objectives if not o.required]
