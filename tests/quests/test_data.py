"""Hand-authored quests in pack data: loading, and problems reported by file and entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from kits.engines import qm
from pydantic import ValidationError
from quests.questkit import WORLD, QuestTestWorld, make_engine, npc

from classic_rpg.systems.quests import Quest, QuestObjective
from maid_engine.content import PackError
from maid_engine.engine import GameEngine
from maid_stdlib.questgen.quest import ProgressionMode
from maid_stdlib.questgen.vocabulary import ObjectiveType


def world_copy(tmp_path: Path, quests: object) -> type[QuestTestWorld]:
    root = tmp_path / "qtest"
    shutil.copytree(WORLD, root)
    (root / "quests.yaml").unlink()
    if quests is not None:
        text = quests if isinstance(quests, str) else yaml.safe_dump(quests, sort_keys=False)
        (root / "quests.yaml").write_text(text)
    return type("CopiedWorld", (QuestTestWorld,), {"path": property(lambda self: root)})


async def start_error(tmp_path: Path, quests: object) -> str:
    from classic_rpg.pack import ClassicRPGContentPack
    from maid_stdlib.pack import StdlibContentPack

    packs = [StdlibContentPack(), ClassicRPGContentPack(), world_copy(tmp_path, quests)()]
    engine = make_engine(tmp_path, packs=packs)
    with pytest.raises(PackError) as info:
        async with engine.lifespan():
            pass
    return str(info.value)


def one(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "q1",
        "title": "Q1",
        "giver": "elder",
        "objectives": [{"id": "o", "type": "visit", "room": "yard", "description": "Go."}],
    }
    base.update(kw)
    return {"quests": [base]}


async def test_the_pack_quest_file_is_loaded(engine: GameEngine) -> None:
    q = qm(engine).get_quest("wolf-trouble")
    assert q is not None
    assert (q.source, q.giver_npc_id, q.turn_in_npc) == ("authored", npc("elder"), npc("elder"))
    kinds = {o.objective_id: o for o in q.objectives}
    assert kinds["kill-wolf"].objective_type is ObjectiveType.KILL
    assert kinds["kill-wolf"].target_template == "qtest:wolf"
    assert kinds["get-pelt"].item_template == "qtest:pelt"
    assert kinds["report"].target_id == npc("elder")
    assert kinds["report"].order == 1
    assert kinds["see-camp"].destination_room_id == "qtest:camp"
    assert not kinds["see-camp"].required
    assert q.rewards.item_template_ids == ["qtest:ring"]
    assert kinds["kill-wolf"].hint == "The yard is north of the hall."
    assert q.progression_mode is ProgressionMode.SHARED_CREDIT


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (one(giver="nobody"), "quests.yaml:4: quest 'q1': giver: unknown NPC 'qtest:nobody'"),
        (one(giver="wolf"), "quest 'q1': giver: NPC 'qtest:wolf' is not one placed NPC"),
        (
            one(objectives=[{"id": "o", "type": "visit", "room": "moon", "description": "Go."}]),
            "quest 'q1': objectives[0].room: unknown room 'qtest:moon'",
        ),
        (
            one(rewards={"items": ["gold_bar"]}),
            "quest 'q1': rewards.items[0]: unknown item template 'qtest:gold_bar'",
        ),
        (
            one(objectives=[{"id": "o", "type": "kill", "description": "Kill."}]),
            "quest 'q1': objectives.0: a kill objective needs target_id, target_template or "
            "target_keyword",
        ),
        (
            one(objectives=[{"id": "o", "type": "fly", "description": "Fly."}]),
            "quest 'q1': objectives.0.type: Input should be",
        ),
        (one(colour="red"), "quest 'q1': colour: unknown key"),
        (one(progression="shared"), "quest 'q1': progression: Input should be"),
        (one(title=None), "quest 'q1': title:"),
        (one(id="Bad Id"), "quest 'Bad Id': quest_id: 'Bad Id' is not a valid id"),
        ({"quests": [{"title": "no id"}]}, "quests.yaml:2: quests[0]: id: required but missing"),
        ({"quest": []}, "quests.yaml: must be a mapping with one key, 'quests'"),
        ("quests: [\n  - id: x\n  title: y", "quests.yaml:2: invalid YAML at line 2"),
    ],
)
async def test_problems_name_the_file_and_the_quest(
    tmp_path: Path, data: object, problem: str
) -> None:
    message = await start_error(tmp_path, data)
    assert problem in message
    assert "problem(s) in its quest data" in message
    assert message.startswith("content pack 'qtest'")


async def test_all_problems_are_listed_at_once(tmp_path: Path) -> None:
    data = {
        "quests": [
            {
                "id": "a",
                "title": "A",
                "giver": "ghost",
                "objectives": [{"id": "o", "type": "talk", "npc": "ghost2", "description": "x"}],
            },
            {
                "id": "a",
                "title": "A again",
                "objectives": [{"id": "o", "type": "custom", "description": "x"}],
            },
            {
                "id": "b",
                "title": "B",
                "objectives": [
                    {"id": "o", "type": "custom", "description": "x"},
                    {"id": "o", "type": "custom", "description": "y"},
                ],
            },
        ]
    }
    message = await start_error(tmp_path, data)
    assert "giver: unknown NPC 'qtest:ghost'" in message
    assert "objectives[0].npc: unknown NPC 'qtest:ghost2'" in message
    assert "quest 'a': duplicate quest id" in message
    assert "quest 'b': objectives: Value error" not in message
    assert "duplicate objective ids: o" in message


async def test_a_pack_without_quest_data_is_fine(tmp_path: Path) -> None:
    from classic_rpg.pack import ClassicRPGContentPack
    from maid_stdlib.pack import StdlibContentPack

    world = world_copy(tmp_path, None)
    async with make_engine(
        tmp_path, packs=[StdlibContentPack(), ClassicRPGContentPack(), world()]
    ).lifespan() as engine:
        assert qm(engine).quests() == []


def test_model_rules() -> None:
    visit = {
        "objective_id": "v",
        "objective_type": "visit",
        "description": "v",
        "destination_room_id": "a:b",
    }
    with pytest.raises(ValidationError, match="at least one required objective"):
        Quest(
            quest_id="q",
            title="Q",
            objectives=[QuestObjective.model_validate({**visit, "required": False})],
        )
    with pytest.raises(ValidationError, match="time_limit_hours or time_limit_seconds"):
        Quest.model_validate(
            {
                "quest_id": "q",
                "title": "Q",
                "objectives": [visit],
                "time_limit_hours": 1,
                "time_limit_seconds": 5,
            }
        )
    q = Quest.model_validate(
        {"quest_id": "q", "title": "Q", "objectives": [visit], "time_limit_hours": 2}
    )
    assert q.time_limit_seconds == 7200
    timed = {
        "objective_id": "t",
        "objective_type": "timed",
        "description": "t",
        "time_limit_seconds": 5,
    }
    with pytest.raises(ValidationError, match="has nothing to watch"):
        Quest(quest_id="q", title="Q", objectives=[QuestObjective.model_validate(timed)])
    with pytest.raises(ValidationError, match="of a different order"):
        Quest(
            quest_id="q",
            title="Q",
            objectives=[
                QuestObjective.model_validate(visit),
                QuestObjective.model_validate({**timed, "watch": ["v"], "order": 1}),
            ],
        )
    with pytest.raises(ValidationError, match="watches unknown 'x'"):
        Quest(
            quest_id="q",
            title="Q",
            objectives=[
                QuestObjective.model_validate(visit),
                QuestObjective.model_validate({**timed, "watch": ["x"]}),
            ],
        )
    with pytest.raises(ValidationError, match="only protect and timed"):
        QuestObjective.model_validate({**visit, "watch": ["t"]})
    with pytest.raises(ValidationError, match="1-50 characters"):
        Quest(quest_id="x" * 51, title="Q", objectives=[QuestObjective.model_validate(visit)])
    ok = Quest(
        quest_id="q",
        title="Q",
        objectives=[QuestObjective.model_validate(visit), QuestObjective.model_validate(timed)],
    )
    assert ok.watched(ok.objectives[1]) == ["v"]


async def test_a_talk_step_may_have_its_answer_written(tmp_path: Path) -> None:
    from classic_rpg.pack import ClassicRPGContentPack
    from maid_stdlib.pack import StdlibContentPack

    answer = 'The smith says, "Tell the elder I will look into it."'
    step = {"id": "o", "type": "talk", "npc": "smith", "description": "Ask.", "reply": answer}
    world = world_copy(tmp_path, one(objectives=[step]))
    async with make_engine(
        tmp_path, packs=[StdlibContentPack(), ClassicRPGContentPack(), world()]
    ).lifespan() as engine:
        q = qm(engine).get_quest("q1")
        assert q is not None
        assert q.objectives[0].reply == answer
