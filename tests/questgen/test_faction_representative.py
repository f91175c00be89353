"""A faction's representative (who speaks for it in a faction quest): its leader if
it has one, the lowest id among its living NPC leaders, else among its living NPC
members; found in one pass over the members however many factions are asked."""

from __future__ import annotations

import random
from uuid import UUID

from questgen.qgkit import Town

from maid_stdlib.living import api
from maid_stdlib.living.components import FactionMembership
from maid_stdlib.questgen.facts import WorldFacts
from maid_stdlib.world.components import NPC


def by_definition(facts: WorldFacts, faction: str) -> UUID | None:
    """The rule as first written: the least (not a leader, id) of every living NPC member."""
    members = [
        (membership.factions[faction] != "leader", uid)
        for uid, membership in facts.engine.world.each(FactionMembership)
        if faction in membership.factions and facts.is_npc(uid) and facts.is_alive(uid)
    ]
    return min(members)[1] if members else None


async def test_the_representative_is_the_rule_on_many_random_factions(town: Town) -> None:
    world = town.engine.world
    facts = town.qg.facts
    rng = random.Random(5)
    dead: set[UUID] = set()
    facts.alive_checks.append(lambda uid: uid not in dead)
    factions = ["ash", "birch", "cedar", "dune"]
    for _ in range(300):
        npc = rng.random() < 0.8
        uid = world.create_entity(*([NPC("kit:someone")] if npc else []))
        for faction in rng.sample(factions, rng.randint(1, 2)):
            api.join_faction(world, uid, faction, "leader" if rng.random() < 0.03 else "member")
        if rng.random() < 0.2:
            dead.add(uid)
    got = facts.faction_representatives(*factions, "nobody")
    assert got == {f: by_definition(facts, f) for f in [*factions, "nobody"]}
    assert got["nobody"] is None
    assert all(facts.faction_representative(f) == got[f] for f in factions)


async def test_a_dead_leader_gives_way_to_a_living_one_then_to_the_members(town: Town) -> None:
    world = town.engine.world
    facts = town.qg.facts
    dead: set[UUID] = set()
    facts.alive_checks.append(lambda uid: uid not in dead)
    member = world.create_entity(NPC("kit:member"))
    leaders = [world.create_entity(NPC("kit:leader")) for _ in range(2)]
    player = world.create_entity()  # a player character leading it: not an NPC
    api.join_faction(world, member, "reeds")
    api.join_faction(world, player, "reeds", "leader")
    for leader in leaders:
        api.join_faction(world, leader, "reeds", "leader")
    first, second = sorted(leaders)
    assert facts.faction_representative("reeds") == first
    dead.add(first)
    assert facts.faction_representative("reeds") == second
    dead.add(second)
    assert facts.faction_representative("reeds") == member


async def test_the_representative_follows_joins_role_changes_departures_and_deaths(
    town: Town,
) -> None:
    """Asked between random changes of the world (the members are kept between
    questions, not gathered again), the answer is always the rule's."""
    world = town.engine.world
    facts = town.qg.facts
    rng = random.Random(11)
    dead: set[UUID] = set()
    facts.alive_checks.append(lambda uid: uid not in dead)
    factions = ["ash", "birch"]
    people: list[UUID] = []

    def join(uid: UUID) -> None:
        faction = rng.choice(factions)
        api.join_faction(world, uid, faction, "leader" if rng.random() < 0.1 else "member")

    for _ in range(60):
        uid = world.create_entity(*([NPC("kit:someone")] if rng.random() < 0.8 else []))
        people.append(uid)
        join(uid)
    for step in range(400):
        assert facts.faction_representatives(*factions) == {
            f: by_definition(facts, f) for f in factions
        }, step
        uid = rng.choice(people)
        what = rng.random()
        if what < 0.2:
            uid = world.create_entity(NPC("kit:newcomer"))
            people.append(uid)
            join(uid)
        elif what < 0.4 and world.entity_exists(uid):
            join(uid)  # another faction, or a new role in the same one
        elif what < 0.55 and world.entity_exists(uid):
            membership = world.try_component(uid, FactionMembership)
            if membership is not None and membership.factions:
                del membership.factions[rng.choice(sorted(membership.factions))]
                world.modified(uid, membership)
        elif what < 0.7:
            (dead.discard if uid in dead else dead.add)(uid)  # killed, or brought back
        elif what < 0.8 and world.entity_exists(uid):
            world.destroy_entity(uid)
            world.flush_destroyed()
        elif what < 0.9 and world.entity_exists(uid):
            world.remove_component(uid, FactionMembership)
