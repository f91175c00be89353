"""WorldMutationBatch: merging, validation, atomic application with rollback, and
optimistic concurrency."""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from kits.engines import hamlet_engine, hv, living_of
from kits.heroes import new_character

from maid_engine.ecs import Component
from maid_engine.engine import GameEngine
from maid_engine.events import Event
from maid_stdlib.consequences import (
    Applied,
    EntityVersions,
    MutationEnv,
    MutationKind,
    MutationKinds,
    WorldMutation,
    WorldMutationBatch,
    world_flag,
)
from maid_stdlib.living import (
    Goal,
    GoalStatusChangedEvent,
    KnownGossip,
    NeedsComponent,
    SocialInfluence,
)
from maid_stdlib.living import gossip as gossip_api
from maid_stdlib.living.api import (
    add_goal,
    adjust_faction_standing,
    get_faction_standing,
    get_influence,
    get_need_value,
    get_relationship,
    set_need,
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[GameEngine]:
    """Hamlet, the neutral test world, with every stdlib layer wired in."""
    async with hamlet_engine(tmp_path).lifespan() as eng:
        yield eng


def env(engine: GameEngine) -> MutationEnv:
    return MutationEnv(engine.world, engine.clock.game_time, living_of(engine))


def trust(engine: GameEngine, npc: uuid.UUID, who: uuid.UUID) -> float:
    rel = get_relationship(engine.world, npc, who)
    return rel.trust if rel is not None else 0.0


def rel(
    npc: uuid.UUID, who: uuid.UUID, delta: float, text: str = "", saturate: bool = True
) -> WorldMutation:
    return WorldMutation(
        "relationship_change", npc, str(who), delta, description=text, saturate=saturate
    )


def gossip(teller: uuid.UUID, content: str) -> WorldMutation:
    return WorldMutation(
        "gossip_injection",
        teller,
        None,
        None,
        payload={
            "tellers": [str(teller)],
            "content": content,
            "statement_id": f"test:{content}",
            "confidence": 0.9,
            "tags": ["quest"],
        },
    )


class Explode(MutationKind):
    """A mutation kind that fails while being applied (after touching its component)."""

    name = "explode"

    def components(self, m: WorldMutation) -> list[tuple[uuid.UUID, type[Component]]]:
        assert m.target_entity is not None
        return [(m.target_entity, NeedsComponent)]

    def apply(self, env: MutationEnv, m: WorldMutation) -> Applied | None:
        assert m.target_entity is not None
        needs = env.world.get_component(m.target_entity, NeedsComponent)
        needs.needs["economic"].value = 0.01  # half-applied ...
        raise RuntimeError("boom")  # ... then it fails


def kinds_with_explode() -> MutationKinds:
    kinds = MutationKinds.builtin()
    kinds.register(Explode())
    return kinds


# -- merging ----------------------------------------------------------------------------
async def test_same_target_deltas_are_summed_into_one_mutation(engine: GameEngine) -> None:
    hero, miller = new_character(engine, "Aria"), hv("hollin")
    batch = WorldMutationBatch(env(engine))
    batch.add(rel(miller, hero, -0.1, "Hollin is let down"))
    batch.add(rel(miller, hero, -0.15, "Abandoned quest"))
    batch.add(rel(hv("tamsin"), hero, 0.2))
    assert batch.validate()
    assert [(m.target_entity, m.delta) for m in batch.planned] == [
        (miller, pytest.approx(-0.25)),
        (hv("tamsin"), 0.2),
    ]
    assert batch.planned[0].description == "Hollin is let down; Abandoned quest"
    assert batch.apply().ok
    assert trust(engine, miller, hero) == pytest.approx(-0.25)
    assert trust(engine, hv("tamsin"), hero) == pytest.approx(0.2)


async def test_merge_rules_for_flags_goals_and_gossip(engine: GameEngine) -> None:
    miller = hv("hollin")
    add_goal(engine.world, miller, Goal(id="get_grain", need="economic"))
    batch = WorldMutationBatch(env(engine))
    batch.add(WorldMutation("world_state", None, "road", None, payload={"value": "cleared"}))
    batch.add(WorldMutation("npc_goal_advance", miller, "get_grain", 0.5, saturate=True))
    batch.add(WorldMutation("npc_goal_complete", miller, "get_grain", None))
    batch.add(WorldMutation("npc_goal_complete", miller, "get_grain", None))
    batch.add(WorldMutation("world_state", None, "road", None, payload={"value": "contested"}))
    batch.add(gossip(miller, "The road is clear"))
    batch.add(gossip(miller, "The road is clear"))
    batch.add(gossip(miller, "Old Grey is dead"))
    assert batch.validate()
    types = [m.mutation_type for m in batch.planned]
    # the advance is subsumed by the completion; duplicates collapse; last flag wins
    assert types == ["world_state", "npc_goal_complete", "gossip_injection", "gossip_injection"]
    assert batch.apply().ok
    assert world_flag(engine.world, "road") == "contested"
    known = engine.world.get_component(miller, KnownGossip)
    assert {i.content for i in known.items.values()} == {"The road is clear", "Old Grey is dead"}


async def test_saturating_changes_stop_at_the_bound(engine: GameEngine) -> None:
    hero = new_character(engine, "Aria")
    adjust_faction_standing(engine.world, hero, "hamlet", 0.95)
    batch = WorldMutationBatch(env(engine))
    batch.add(WorldMutation("faction_standing", hero, "hamlet", 0.125, saturate=True))
    assert batch.validate()
    assert batch.planned[0].delta == pytest.approx(0.05)
    assert batch.planned[0].payload["requested_delta"] == 0.125
    assert batch.apply().ok
    assert get_faction_standing(engine.world, hero, "hamlet") == pytest.approx(1.0)


# -- validation failures ------------------------------------------------------------------
@pytest.mark.parametrize(
    "case",
    [
        "missing_entity",
        "standing_bounds",
        "need_bounds",
        "unknown_type",
        "nan",
        "huge_delta",
        "no_such_need",
        "gossip_without_teller",
    ],
)
async def test_validation_failures_apply_nothing(engine: GameEngine, case: str) -> None:
    hero, miller = new_character(engine, "Aria"), hv("hollin")
    adjust_faction_standing(engine.world, hero, "hamlet", 0.95)
    set_need(engine.world, miller, "economic", 0.9)
    bad: dict[str, WorldMutation] = {
        "missing_entity": rel(uuid.uuid4(), hero, 0.1),
        "standing_bounds": WorldMutation("faction_standing", hero, "hamlet", 0.1),
        "need_bounds": WorldMutation("npc_need_satisfy", miller, "economic", 0.2),
        "unknown_type": WorldMutation("teleport_castle", miller, None, 1.0),
        "nan": rel(miller, hero, math.nan),
        "huge_delta": WorldMutation("npc_need_satisfy", miller, "economic", -5.0, saturate=True),
        "no_such_need": WorldMutation("npc_need_satisfy", miller, "hunger", 0.1),
        "gossip_without_teller": WorldMutation(
            "gossip_injection", None, None, None, payload={"content": "x", "tellers": []}
        ),
    }
    batch = WorldMutationBatch(env(engine))
    batch.add(rel(miller, hero, 0.3))
    batch.add(bad[case])
    validation = batch.validate()
    assert not validation, validation.errors
    assert len(validation.errors) == 1, validation.errors
    result = batch.apply()
    assert result.status == "failed"
    assert not result.applied
    assert trust(engine, miller, hero) == 0.0
    assert get_faction_standing(engine.world, hero, "hamlet") == pytest.approx(0.95)
    assert get_need_value(engine.world, miller, "economic") == pytest.approx(0.9)


# -- atomicity ------------------------------------------------------------------------------
async def test_rollback_when_the_third_of_five_fails(engine: GameEngine) -> None:
    hero = new_character(engine, "Aria")
    miller, warden, keeper = hv("hollin"), hv("tamsin"), hv("marta")
    living = living_of(engine)
    memories_before = living.memory.count(miller)
    need_before = get_need_value(engine.world, miller, "economic")
    influence_before = get_influence(engine.world, warden)
    versions = EntityVersions()
    events: list[Event] = []
    batch = WorldMutationBatch(env(engine), versions, kinds_with_explode(), emit=events.append)
    batch.add(rel(miller, hero, 0.3))
    batch.add(
        WorldMutation(
            "memory_creation",
            miller,
            None,
            None,
            payload={"content": "A stranger helped", "tags": ["quest"], "visibility": "public"},
        )
    )
    batch.add(WorldMutation("explode", miller, None, None))
    batch.add(WorldMutation("social_influence", warden, None, 0.1, saturate=True))
    batch.add(gossip(keeper, "The road is clear"))
    assert batch.validate()
    needs_obj = engine.world.get_component(miller, NeedsComponent)

    result = batch.apply()

    assert result.status == "failed"
    assert "boom" in (result.error or "")
    assert trust(engine, miller, hero) == 0.0
    assert get_relationship(engine.world, miller, hero) is None
    assert living.memory.count(miller) == memories_before
    # the half-applied change of the failing mutation is undone too, in place
    assert engine.world.get_component(miller, NeedsComponent) is needs_obj
    assert get_need_value(engine.world, miller, "economic") == need_before
    # the fourth and fifth never ran
    assert get_influence(engine.world, warden) == influence_before
    assert (
        engine.world.try_component(keeper, KnownGossip) is None
        or "test:The road is clear" not in engine.world.get_component(keeper, KnownGossip).items
    )
    assert versions.version(miller) == 0
    assert not events


async def test_events_are_emitted_only_once_the_batch_commits(engine: GameEngine) -> None:
    miller = hv("hollin")
    add_goal(engine.world, miller, Goal(id="get_grain", status="blocked", need="economic"))
    events: list[Event] = []
    batch = WorldMutationBatch(env(engine), emit=events.append)
    batch.add(WorldMutation("npc_goal_complete", miller, "get_grain", None))
    assert batch.apply().ok
    assert [type(e) for e in events] == [GoalStatusChangedEvent]
    assert isinstance(events[0], GoalStatusChangedEvent)
    assert (events[0].old_status, events[0].new_status) == ("blocked", "done")


# -- optimistic concurrency -------------------------------------------------------------------
async def test_a_concurrent_batch_makes_the_second_conflict_and_roll_back(
    engine: GameEngine,
) -> None:
    hero, miller, warden = new_character(engine, "Aria"), hv("hollin"), hv("tamsin")
    versions = EntityVersions()
    first = WorldMutationBatch(env(engine), versions)
    first.add(rel(miller, hero, 0.3))
    second = WorldMutationBatch(env(engine), versions)
    second.add(WorldMutation("social_influence", warden, None, 0.1, saturate=True))
    second.add(rel(miller, hero, 0.15))
    # both planned from the same world, as two turn-ins resolved in one tick
    assert first.validate()
    assert second.validate()
    influence_before = get_influence(engine.world, warden)

    assert first.apply().ok
    result = second.apply()

    assert result.status == "conflict"
    assert str(miller) in (result.error or "")
    # The warden's change (applied before the conflict was found) was rolled back
    assert get_influence(engine.world, warden) == influence_before
    assert trust(engine, miller, hero) == pytest.approx(0.3)
    # re-read and retry
    assert second.validate()
    assert second.apply().ok
    assert trust(engine, miller, hero) == pytest.approx(0.45)
    assert versions.version(miller) == 2
    assert versions.version(warden) == 1


async def test_a_writer_that_never_bumps_versions_is_noticed(engine: GameEngine) -> None:
    miller = hv("hollin")
    batch = WorldMutationBatch(env(engine))
    batch.add(WorldMutation("npc_need_satisfy", miller, "economic", 0.2, saturate=True))
    assert batch.validate()
    set_need(engine.world, miller, "economic", 0.1)  # e.g. the autonomy system
    result = batch.apply()
    assert result.status == "conflict"
    assert "value changed" in (result.error or "")
    assert get_need_value(engine.world, miller, "economic") == pytest.approx(0.1)


async def test_restored_components_are_the_same_objects(engine: GameEngine) -> None:
    miller = hv("hollin")
    engine.world.add_component(miller, SocialInfluence(0.5))
    influence = engine.world.get_component(miller, SocialInfluence)
    batch = WorldMutationBatch(env(engine), kinds=kinds_with_explode())
    batch.add(WorldMutation("social_influence", miller, None, 0.2, saturate=True))
    batch.add(WorldMutation("explode", miller, None, None))
    assert batch.apply().status == "failed"
    assert engine.world.get_component(miller, SocialInfluence) is influence
    assert influence.value == 0.5


async def test_news_of_a_players_deed_is_not_told_back_to_them(engine: GameEngine) -> None:
    # "An adventurer helped me.", said to the adventurer who did it, read oddly.
    miller = hv("hollin")
    hero = new_character(engine, "Alice", online=False)
    other = new_character(engine, "Bob", online=False)
    deed = gossip(miller, "An adventurer helped Hollin")
    deed.payload["character_id"] = str(hero)
    batch = WorldMutationBatch(env(engine))
    batch.add(deed)
    assert batch.validate()
    assert batch.apply().ok
    [item] = engine.world.get_component(miller, KnownGossip).items.values()
    assert item.doer == str(hero)
    living = living_of(engine)
    assert "An adventurer helped me." not in " ".join(living.note_conversation(miller, hero))
    assert "An adventurer helped me." in " ".join(living.note_conversation(miller, other))
    # Passed on, it stays theirs.
    marta = hv("marta")
    assert gossip_api.retell(engine.world, miller, marta, item, engine.clock.game_time)
    assert engine.world.get_component(marta, KnownGossip).items[item.id].doer == str(hero)
