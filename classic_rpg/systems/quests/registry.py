"""Quest definitions and their quest-level status, persisted where needed.

Authored quests come back from pack data on every start; generated quests exist
only at runtime, so their definitions are stored in the ``quest_registry``
collection. A quest closed by ``expire_quest``/``invalidate_quest`` stays closed
after a restart (its status document is stored whatever its source).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

from classic_rpg.systems.quests.models import Quest
from classic_rpg.systems.quests.questlog import QuestEntry
from classic_rpg.systems.quests.scaling import fitted
from maid_stdlib.world.components import Room

if TYPE_CHECKING:
    from maid_engine.ecs import World
    from maid_engine.store import DocumentStore

COLLECTION = "quest_registry"


#: How a registered quest can be closed (``QuestRegistry.close``).
CLOSED_STATUSES = ("expired", "invalidated", "resolved")


class QuestRegistry:
    def __init__(self) -> None:
        self._quests: dict[str, Quest] = {}
        #: Fitted copies (per-character difficulty) by what they were fitted to;
        #: an entry is dropped when its definition is replaced.
        self._fitted: dict[tuple[object, ...], tuple[Quest, Quest]] = {}
        #: quest id -> (status, reason) for closed quests.
        self._closed: dict[str, tuple[str, str]] = {}
        self._pending: dict[str, dict[str, Any]] = {}
        #: Giver -> their quests by id, in registration order: ``talk`` asks for
        #: one NPC's quests, and scanning every definition was most of its cost
        #: once a world held a few hundred.
        self._by_giver: dict[UUID, dict[str, Quest]] = {}
        #: Bumped whenever a definition is added or replaced (for caches of
        #: what the definitions say).
        self.version = 0
        #: Bumped only when an authored definition comes, goes or changes (a
        #: generated quest is registered every few minutes; caches of what the
        #: hand-written quests say need not follow those).
        self.authored_version = 0

    def add(self, quest: Quest, persist: bool = False) -> None:
        """Register ``quest``; an id already used by a different quest is an error."""
        old = self._quests.get(quest.quest_id)
        if old is not None and old != quest:
            raise ValueError(f"quest id {quest.quest_id!r} is already registered")
        self._set(quest)
        self._drop_fitted(quest.quest_id)
        if persist:
            self._pending[quest.quest_id] = self._document(quest.quest_id)

    def replace(self, quest: Quest) -> None:
        """Update the definition of a registered quest (same id), persisted."""
        if quest.quest_id not in self._quests:
            raise KeyError(f"quest {quest.quest_id!r} is not registered")
        self._set(quest)
        self._drop_fitted(quest.quest_id)
        self._pending[quest.quest_id] = self._document(quest.quest_id)

    def _set(self, quest: Quest) -> None:
        quest_id, giver = quest.quest_id, quest.giver_npc_id
        old = self._quests.get(quest_id)
        self._quests[quest_id] = quest
        self.version += 1
        if quest.source == "authored" or (old is not None and old.source == "authored"):
            self.authored_version += 1
        if old is not None and old.giver_npc_id != giver:
            # A definition that changed hands: both givers' lists again, in the
            # order of registration, as a scan of every definition would give.
            for who in (old.giver_npc_id, giver):
                if who is not None:
                    self._by_giver[who] = {
                        q.quest_id: q for q in self._quests.values() if q.giver_npc_id == who
                    }
        elif giver is not None:
            self._by_giver.setdefault(giver, {})[quest_id] = quest

    def get(self, quest_id: str) -> Quest | None:
        return self._quests.get(quest_id)

    def from_giver(self, npc: UUID) -> list[Quest]:
        """The quests ``npc`` gives, in the order they were registered."""
        mine = self._by_giver.get(npc)
        return list(mine.values()) if mine else []

    def _drop_fitted(self, quest_id: str) -> None:
        for key in [k for k in self._fitted if k[0] == quest_id]:
            del self._fitted[key]

    def for_entry(self, entry: QuestEntry) -> Quest | None:
        """The quest as fitted to the character holding ``entry`` (see
        :func:`~classic_rpg.systems.quests.scaling.fitted`); cached, since the
        tracker asks for it on every event."""
        quest = self._quests.get(entry.quest_id)
        if quest is None or not entry.scaled:
            return quest
        key = (
            entry.quest_id,
            tuple(sorted(entry.target_counts.items())),
            tuple(sorted(entry.time_limits.items())),
            entry.time_limit_seconds,
            entry.reward_factor,
        )
        hit = self._fitted.get(key)
        if hit is not None and hit[0] is quest:
            return hit[1]
        view = fitted(quest, entry)
        self._fitted[key] = (quest, view)
        return view

    def all(self) -> list[Quest]:
        return list(self._quests.values())

    def status(self, quest_id: str) -> tuple[str, str] | None:
        """(``expired``|``invalidated``|``resolved``, reason) once closed; None while open."""
        return self._closed.get(quest_id)

    def close(self, quest_id: str, status: str, reason: str, now: float) -> None:
        self._closed[quest_id] = (status, reason)
        doc = self._document(quest_id)
        doc["changed_at"] = now
        self._pending[quest_id] = doc

    def _document(self, quest_id: str) -> dict[str, Any]:
        quest = self._quests[quest_id]
        status, reason = self._closed.get(quest_id, ("open", ""))
        return {
            "quest_id": quest_id,
            "source": quest.source,
            "status": status,
            "reason": reason,
            # Authored definitions are reloaded from data; only generated ones are kept.
            "quest": quest.model_dump(mode="json") if quest.source == "generated" else None,
        }

    # -- persistence ---------------------------------------------------------------------
    @property
    def pending(self) -> int:
        return len(self._pending)

    def discard_pending(self) -> None:
        """Forget queued writes (an engine without a store never flushes)."""
        self._pending.clear()

    async def load(self, documents: DocumentStore) -> int:
        """Restore generated definitions and closed statuses; returns how many docs."""
        docs = await documents.query(COLLECTION)
        for doc in docs:
            quest_id = doc.get("quest_id")
            if not isinstance(quest_id, str):
                continue
            if doc.get("quest") and quest_id not in self._quests:
                self._set(Quest.model_validate(doc["quest"]))
            if doc.get("status") in CLOSED_STATUSES:
                self._closed[quest_id] = (str(doc["status"]), str(doc.get("reason", "")))
        return len(docs)

    async def flush(self, documents: DocumentStore) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        try:
            await documents.put_many(COLLECTION, pending)
        except Exception:
            self._pending = {**pending, **self._pending}
            raise


def resolve_room_ids(world: World, quest: Quest) -> Quest:
    """``quest`` with room entity ids (generated quests) replaced by room keys.

    LookupError names an objective whose room is neither a key nor a room entity.
    """
    objectives = []
    for o in quest.objectives:
        room = o.destination_room_id
        if room is not None and ":" not in room:
            try:
                comp = world.try_component(UUID(room), Room)
            except ValueError:
                comp = None
            if comp is None:
                raise LookupError(f"objective {o.objective_id!r}: unknown room {room!r}")
            o = o.model_copy(update={"destination_room_id": comp.key})
        objectives.append(o)
    return quest.model_copy(update={"objectives": objectives})
