"""The stdlib.questgen plugin, and how a content pack extends quest generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kits.narrators import EchoNarrator
from questgen.qgkit import Town, make_engine, populate

from maid_engine.content import ContentPack, PackContext
from maid_stdlib.questgen import (
    BasicSignal,
    ObjectiveType,
    QuestArchetype,
    QuestGen,
    QuestObjective,
    QuestSeed,
    SeedGrounding,
    SignalContract,
    WorldFacts,
)
from maid_stdlib.questgen.register import GENERATED_QUESTS_COLLECTION
from maid_stdlib.questgen.rejection import Rejection


def _ground_heist(signal: Any, facts: WorldFacts) -> SeedGrounding | None:
    target = facts.resolve_npc(signal.context["mark"])
    vault = facts.resolve_room(signal.context["vault"])
    if target is None or vault is None:
        return None
    return SeedGrounding(
        signal.involved_npcs[0],
        vault,
        {"party_a": target, "subject": "the mill's strongbox"},
        involved_npcs=[target],
    )


def _stealth(seed: QuestSeed, facts: WorldFacts) -> list[QuestObjective]:
    assert seed.party_a is not None
    return [
        QuestObjective(
            objective_type=ObjectiveType.VISIT,
            description=f"Slip into {facts.room_name(seed.location)} unseen",
            target=facts.room_name(seed.location),
            target_location=seed.location,
            order=1,
        ),
        QuestObjective(
            objective_type=ObjectiveType.CUSTOM,
            description="Crack the strongbox",
            target="the strongbox",
            order=2,
        ),
        QuestObjective(
            objective_type=ObjectiveType.TALK,
            description=f"Report to {facts.name(seed.primary_npc)}",
            target=facts.name(seed.primary_npc),
            target_entity_id=seed.primary_npc,
            order=3,
        ),
    ]


class HeistPack(ContentPack):
    """What a content pack does in its register() to add a new kind of quest."""

    name = "heist"
    requires = ("brookhaven",)

    def register(self, ctx: PackContext) -> None:
        qg, pack = ctx.service(QuestGen), ctx.pack.name
        qg.add_seed_type(pack, "heist_opportunity", "A valuable target is poorly guarded")
        qg.add_contract(
            pack,
            SignalContract(
                "VAULT_UNGUARDED", ("heist_opportunity",), ("mark", "vault"), _ground_heist
            ),
        )
        qg.add_archetype(
            pack,
            QuestArchetype(
                archetype_id="heist",
                name="Heist",
                objective_pattern="stealth",
                estimated_steps=3,
                compatible_seed_types=["heist_opportunity"],
                requires_social=True,
                tone=["tense", "clever"],
            ),
        )
        qg.add_objective_pattern(pack, "stealth", _stealth, requires=("party_a",))


async def test_the_questgen_plugin_provides_the_service_and_collections(town: Town) -> None:
    engine = town.engine
    assert isinstance(engine.services.get(QuestGen), QuestGen)
    assert {"quest_history", GENERATED_QUESTS_COLLECTION} <= engine._collections
    assert town.qg.sink is None  # the rules layer installs one
    assert len(town.qg.archetypes) == 4  # only what the tests registered: none built in


async def test_a_content_pack_adds_a_seed_type_archetype_and_pattern(tmp_path: Path) -> None:
    engine = make_engine(tmp_path)
    engine._pack_refs.append(HeistPack)  # type: ignore[arg-type]
    async with engine.lifespan():
        town = populate(engine)
        qg = town.qg
        signal = BasicSignal(
            "VAULT_UNGUARDED", 0.8, [town.orla], {"mark": "Tam", "vault": "brookhaven:mill"}
        )
        seed = await qg.evaluator().evaluate(signal)
        assert not isinstance(seed, Rejection), seed
        assert seed.seed_type == "heist_opportunity"
        assert [a.archetype_id for a in qg.ranked_archetypes(seed)] == ["heist"]
        quest = await qg.build_best(seed, qg.builder(EchoNarrator()))
        assert quest is not None
        assert quest.archetype_id == "heist"
        assert [o.objective_type for o in quest.objectives] == [
            ObjectiveType.VISIT,
            ObjectiveType.CUSTOM,
            ObjectiveType.TALK,
        ]
        assert (await qg.validator.validate(quest)).valid


async def test_history_is_loaded_once_and_flushed_through_the_store(tmp_path: Path) -> None:
    from questgen.qgkit import iron_quest, register_test_archetypes

    engine = make_engine(tmp_path, use_store=True)
    engine.register_packs()
    register_test_archetypes(engine.services.get(QuestGen))
    async with engine.lifespan():
        town = populate(engine)
        await town.qg.startup()
        town.qg.record(await iron_quest(town))
        assert await town.qg.flush() == 1
        quest_id = next(iter(town.qg.history.active_generated_quest_ids()))
    async with make_engine(tmp_path, use_store=True).lifespan() as engine:
        qg = engine.services.get(QuestGen)
        await qg.startup()
        await qg.startup()
        assert qg.history.active_generated_quest_ids() == {quest_id}
