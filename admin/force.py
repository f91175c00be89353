"""``@quest force-generate``: a synthetic seed grounded in real entities.

The seed is synthetic only in where it comes from (an admin instead of a story
signal): its giver is a living NPC, its place a real room, and every typed field
names something that exists right now -- a hostile group on the map, other NPCs,
an item lying somewhere. Each such situation ("shape") is offered to the nearest
NPCs who could plausibly ask for help with it; the first seed whose structure the
real QuestBuilder can plan, for an archetype accepting the seed type, is queued on
the QuestGenerationService, whose pipeline builds, validates, filters, registers
and delivers it like any other seed (it is urgent, so on the next tick). The
daily cap does not hold a forced seed back, nor reject its quest: an admin's
explicit request is not the world's pacing (it still counts in the day's quests,
so the world's own wait).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from admin.quest_state import QuestOps
from maid_stdlib.questgen import BasicSignal, QuestArchetype, QuestSeed, SeedGrounding
from maid_stdlib.questgen.evaluator import GroundedSignal
from maid_stdlib.questgen.rejection import Rejection
from maid_stdlib.story.system import StorySignalSystem
from maid_stdlib.world.components import Item

__all__ = ["FORCED_IMPORTANCE", "ForceResult", "Shape", "force_generate"]

#: At or above the system's urgent importance: built on the next tick.
FORCED_IMPORTANCE = 0.9
#: Givers tried per shape (the nearest ones).
GIVERS_PER_SHAPE = 3


@dataclass
class ForceResult:
    seed: QuestSeed | None = None
    archetype: QuestArchetype | None = None
    #: Why candidates were passed over (shown when nothing could be built).
    tried: list[str] = field(default_factory=list)


@dataclass
class Shape:
    """A real situation a seed can be about; fields may depend on the giver."""

    label: str
    location: str
    fields: Callable[[UUID], dict[str, Any]]
    involved: list[UUID] = field(default_factory=list)


def _fixed(fields: dict[str, Any]) -> Callable[[UUID], dict[str, Any]]:
    """Fields that do not depend on who gives the quest."""
    return lambda _giver: dict(fields)


def _shapes(ops: QuestOps) -> Iterator[Shape]:
    facts, world = ops.qg.facts, ops.engine.world
    living = facts.living
    peaceful = [
        n
        for n in facts.npcs_in_region(None)
        if facts.room_of(n) is not None and (living is None or not living.is_threat(n))
    ]
    groups = sorted(living.threat_map().groups.values(), key=lambda g: g.key) if living else []
    for group in groups:
        source = group.source
        yield Shape(
            f"{source} at {group.primary_room}",
            group.primary_room,
            _fixed({"threat_source": source}),
            [],
        )
        for victim in peaceful[:1]:

            def rescue(giver: UUID, v: UUID = victim, s: str = source) -> dict[str, Any]:
                # Rescued people are brought home to whoever asked for them.
                return {"rescue_target": v, "threat_source": s, "destination": facts.room_of(giver)}

            yield Shape(
                f"{facts.name(victim)} caught by {source}", group.primary_room, rescue, [victim]
            )
    seen: set[str] = set()
    for uid, item in sorted(world.each(Item), key=lambda p: str(p[0])):
        room, template = facts.room_of(uid), item.template
        if not template or template in seen or room is None:
            continue
        if not facts.item_obtainable(template):
            continue  # fixed in place (a rules layer says so): nobody can fetch it
        seen.add(template)
        here = [n for n in peaceful if facts.room_of(n) == room]
        owner = here[0] if here else None
        name = facts.item_name(template)

        def item_fields(
            giver: UUID, t: str = template, o: UUID | None = owner, n: str = name
        ) -> dict[str, Any]:
            out: dict[str, Any] = {
                "item_template": t,
                "recipient": giver,
                "resource_type": n,
                "subject": n,
            }
            if o is not None and o != giver:
                out.update(party_a=o, supplier=o)
            return out

        yield Shape(f"{name} at {room}", room, item_fields, [owner] if owner else [])
    for a, b in itertools.pairwise(peaceful):
        yield Shape(
            f"{facts.name(a)} and {facts.name(b)} at odds",
            facts.room_of(a) or "",
            _fixed({"party_a": a, "party_b": b, "subject": "their quarrel"}),
            [a, b],
        )
        break
    for area in sorted(facts.ws.area_keys()):
        rooms = facts.rooms_of_area(area)
        if rooms:
            room = rooms[-1]
            yield Shape(
                f"rumours about {room}",
                room,
                _fixed(
                    {
                        "evidence_location": room,
                        "discovery_type": "rumour",
                        "subject": f"what happened at {facts.room_name(room)}",
                    }
                ),
                peaceful[:2],
            )


def _givers(
    ops: QuestOps, shape: Shape, forced: dict[UUID, float], ignore_cooldown: bool = False
) -> list[UUID]:
    """The nearest peaceful NPCs to the shape's place who may give a quest now."""
    facts, history, generation = ops.qg.facts, ops.qg.history, ops.generation
    assert generation is not None
    cooldown = generation.giver_cooldown
    living = facts.living
    out = []
    for npc in facts.npcs_in_region(None):
        here = facts.room_of(npc)
        if here is None or npc in shape.involved or (living and living.is_threat(npc)):
            continue
        if ignore_cooldown:
            pass
        elif history.recent_quest_from_npc(npc, cooldown, ops.now):
            continue
        if ops.now - forced.get(npc, -cooldown - 1) < cooldown:
            continue  # already asked for a forced seed that is still waiting
        distance = facts.distance(here, shape.location)
        if distance is not None:
            out.append((distance, facts.name(npc), npc))
    return [npc for _, _, npc in sorted(out)][:GIVERS_PER_SHAPE]


def _grounding_signals(ops: QuestOps, seed_type: str) -> list[str]:
    """The signal types whose contract (and grounder) can make ``seed_type``."""
    contracts = ops.qg.contracts
    return [
        t
        for t in contracts.signal_types()
        if (contract := contracts.get(t)) is not None and seed_type in contract.seed_types
    ]


def _own_signals(ops: QuestOps, seed_type: str) -> list[Any]:
    """Signals of the live situations whose contract grounds ``seed_type``."""
    types = _grounding_signals(ops, seed_type)
    if not types:
        return []
    try:
        story = ops.engine.get_system(StorySignalSystem)
    except LookupError:
        return []
    return story.situations_now(types)


async def _try_seed(
    ops: QuestOps,
    part: GroundedSignal,
    who: str,
    result: ForceResult,
    forced: dict[UUID, float],
    ignore_cooldown: bool,
) -> bool:
    """Build, screen and dry-run one grounded signal; queue its seed if it plans."""
    generation = ops.generation
    assert generation is not None
    seed = generation.build_seed([part], part, FORCED_IMPORTANCE, ignore_cooldown=ignore_cooldown)
    if isinstance(seed, Rejection):
        result.tried.append(f"{who}: {seed.reason}")
        return False
    seed.importance = max(seed.importance, FORCED_IMPORTANCE)
    # An admin's explicit request: the daily cap does not hold it back.
    seed.forced = True
    stale = generation.screen(seed)
    if stale is not None:
        result.tried.append(f"{who}: the giver's situation is stale ({stale.reason})")
        return False
    if generation.region_full_at(seed.location):
        result.tried.append(f"{who}: the region is full of quests")
        return False
    held = generation.held_before_plan(seed)
    if held is not None:
        result.tried.append(f"{who}: the seed would wait ({held})")
        return False
    for archetype in ops.qg.ranked_archetypes(seed):
        held = generation.held_from(seed, archetype)
        if held is not None:
            result.tried.append(f"{who}, {archetype.archetype_id}: the seed would wait ({held})")
            continue
        # A dry run of the real builder's structural step; the system repeats it
        # when it launches the build.
        plan = await generation.dry_run(seed, archetype)
        if not isinstance(plan, Rejection):
            generation.enqueue(seed)
            forced[seed.primary_npc] = ops.now
            result.seed, result.archetype = seed, archetype
            return True
        result.tried.append(f"{who}, {archetype.archetype_id}: {plan.reason}")
    return False


async def force_generate(
    ops: QuestOps,
    seed_type: str,
    giver: UUID | None = None,
    by: str = "admin",
    forced: dict[UUID, float] | None = None,
    ignore_cooldown: bool = False,
) -> ForceResult:
    """Queue a synthetic, grounded seed of ``seed_type``; see the module docstring.
    ``forced`` (giver -> game time) remembers earlier forced seeds so repeated calls
    spread over different givers instead of tripping the per-NPC cooldown."""
    generation = ops.generation
    assert generation is not None
    forced = forced if forced is not None else {}
    result = ForceResult()
    # First the seed type's own grounder, on the situations its detectors see now:
    # a pack's flour run is grounded as the pack grounds it, not by the generic
    # shapes below (which would pick any guard and any item).
    evaluator = ops.qg.evaluator()
    for signal in _own_signals(ops, seed_type):
        part = evaluator.ground(signal)
        if isinstance(part, Rejection):
            result.tried.append(f"{signal.signal_type} {signal.situation_key}: {part.reason}")
            continue
        if part.seed_type != seed_type:
            continue
        primary = part.grounding.primary_npc
        who = f"{ops.name(primary)}, {signal.situation_key}"
        if giver is not None and primary != giver:
            result.tried.append(f"{who}: its grounder chose {ops.name(primary)} as the giver")
            continue
        if await _try_seed(ops, part, who, result, forced, ignore_cooldown):
            return result
    if not ops.qg.seed_types.is_builtin(seed_type) and _grounding_signals(ops, seed_type):
        # A pack's type with its own grounder but no situation now: the generic
        # shapes would make up something its grounder never would. (A type no
        # contract grounds has only the generic shapes: they are used below.)
        if not result.tried:
            result.tried.append(
                f"no situation for {seed_type} right now (its detectors found none)"
            )
        return result
    for shape in _shapes(ops):
        givers = [giver] if giver is not None else _givers(ops, shape, forced, ignore_cooldown)
        for npc in givers:
            who = f"{ops.name(npc)}, {shape.label}"
            try:
                grounding = SeedGrounding(
                    npc, shape.location, shape.fields(npc), involved_npcs=list(shape.involved)
                )
            except ValueError as exc:
                result.tried.append(f"{who}: {exc}")
                continue
            signal = BasicSignal(
                "ADMIN_FORCED",
                FORCED_IMPORTANCE,
                [npc],
                {"forced_by": by, "seed_type": seed_type, "shape": shape.label},
            )
            part = GroundedSignal(signal, seed_type, grounding, 0)
            if await _try_seed(ops, part, who, result, forced, ignore_cooldown):
                return result
    return result
