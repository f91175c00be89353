"""GMCP ``Char.Quests``: the quest log for client UIs, sent when it changed.

No MUD standard names a quest package (IRE's ``IRE.Tasks`` is its own web
client's); ``Char.Quests`` sits under the ``Char`` module Mudlet and IRE clients
already declare. The data is what ``quests`` shows: accepted quests (``n`` is the
number ``quest``/``abandon`` take) with their objectives and progress, then the open
offers, and how many quests were turned in.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from classic_rpg.systems.quests.commands import listed
from classic_rpg.systems.quests.manager import QuestManager
from classic_rpg.systems.quests.models import Quest, QuestObjective
from classic_rpg.systems.quests.questlog import QuestEntry, QuestLog
from maid_stdlib.questgen.vocabulary import QuestState
from maid_stdlib.world.gmcp import GmcpFeed, GmcpFeeds

PACKAGE = "Char.Quests"


def _objective(entry: QuestEntry, o: QuestObjective) -> dict[str, Any]:
    p = entry.objectives.get(o.objective_id)
    if p is None or not p.unlocked:
        state = "locked"
    elif p.failed:
        state = "failed"
    else:
        state = "done" if p.completed else "open"
    out: dict[str, Any] = {
        "id": o.objective_id,
        "text": o.description,
        "count": p.count if p is not None else 0,
        "target": o.target_count,
        "state": state,
        "required": o.required,
    }
    if o.hint and state == "open":
        out["hint"] = o.hint
    return out


def _quest(manager: QuestManager, n: int, quest: Quest, entry: QuestEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": n,
        "id": quest.quest_id,
        "title": quest.title,
        "state": entry.state.value,
        "giver": manager.name_of(quest.giver_npc_id) if quest.giver_npc_id else "",
    }
    if entry.state is QuestState.AVAILABLE:
        out["summary"] = quest.summary
        out["level"] = quest.level_requirement
        return out
    out["turn_in"] = manager.name_of(quest.turn_in_npc) if quest.turn_in_npc else ""
    out["objectives"] = [_objective(entry, o) for o in quest.objectives]
    return out


def quests_data(manager: QuestManager, character: UUID) -> dict[str, Any]:
    rows = listed(manager, character)
    quests = [_quest(manager, e.number, q, e) for q, e in rows]
    qlog = manager.engine.world.try_component(character, QuestLog)
    return {
        "active": [q for q in quests if q["state"] != QuestState.AVAILABLE.value],
        "offers": [q for q in quests if q["state"] == QuestState.AVAILABLE.value],
        "completed": sum(qlog.turn_ins.values()) if qlog is not None else 0,
    }


def add_quests_feed(manager: QuestManager, feeds: GmcpFeeds) -> None:
    """Char.Quests for every connected character whose quest log changed (a quest
    offered, accepted, advanced, finished, declined ...: every change of the log is
    reported to the world with ``modified``), and when a hint moves."""
    feeds.add(GmcpFeed(PACKAGE, lambda character: quests_data(manager, character)))
    manager.engine.world.on_changed(QuestLog, lambda uid, _log: feeds.mark(PACKAGE, [uid]))
    manager.hint_listeners.append(
        lambda quest_id: feeds.mark(PACKAGE, [c for c, _ in manager.holders(quest_id)])
    )
