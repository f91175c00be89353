"""A generated world for the tick benchmark: rooms, NPCs, living data, quests.

The world goes through the same paths as a real pack: area files read by
``WorldDataPack`` (so the RPG layer's ``stats:``/``combat:`` sections become its
own components), living data validated by the living layer's models and applied
by its start-up, quests registered with the QuestManager and accepted through it.

Layers come from the loaded plugin groups (``stdlib``, ``classic_rpg``);
:attr:`BenchWorld.layers` says which of them are registered, so the output always
tells.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import random
import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from maid_engine.content import PackContext
from maid_stdlib.world.datapack import WorldDataPack

log = logging.getLogger("maid.bench")

PACK = "benchworld"
GRID = 10  # rooms per row inside an area
ROOMS_PER_AREA = 100

#: (label, module, service class name) of the layers a benchmark world wants.
LAYERS: list[tuple[str, str, str]] = [
    ("living world", "maid_stdlib.living", "LivingWorld"),
    ("story signals", "maid_stdlib.story", "StoryDetectors"),
    ("quest generation toolkit", "maid_stdlib.questgen", "QuestGen"),
    ("quest generation", "maid_stdlib.questgen.service", "QuestGenerationService"),
    ("RPG quests (QuestManager)", "classic_rpg.systems.quests", "QuestManager"),
]


@dataclass
class WorldSpec:
    rooms: int = 2000
    npcs: int = 10_000
    quests: int = 200
    fights: int = 50
    seed: int = 7


@dataclass
class Layers:
    """What the benchmark found, layer by layer: label -> status text."""

    status: dict[str, str] = field(default_factory=dict)

    def set(self, label: str, status: str) -> None:
        self.status[label] = status


def room_key(i: int) -> str:
    return f"a{i // ROOMS_PER_AREA:03d}_r{i % ROOMS_PER_AREA:03d}"


def _role(i: int) -> str:
    """Room i's NPC role: 1 room in 20 holds bandits, 1 in 20 guards, the rest villagers."""
    if i % 20 == 7:
        return "bandit"
    if i % 20 == 3:
        return "guard"
    return "villager"


def _exits(i: int, rooms: int) -> dict[str, str]:
    area, local = divmod(i, ROOMS_PER_AREA)
    size = min(ROOMS_PER_AREA, rooms - area * ROOMS_PER_AREA)
    row, col = divmod(local, GRID)
    exits: dict[str, str] = {}
    base = area * ROOMS_PER_AREA

    def link(name: str, other_local: int) -> None:
        if 0 <= other_local < size:
            exits[name] = room_key(base + other_local)

    if col + 1 < GRID:
        link("east", local + 1)
    if col > 0:
        link("west", local - 1)
    link("south", local + GRID)
    if row > 0:
        link("north", local - GRID)
    # Areas form a chain: the last room of one leads to the first of the next.
    if local == size - 1 and i + 1 < rooms:
        exits["northeast"] = room_key(i + 1)
    if local == 0 and i > 0:
        exits["southwest"] = room_key(i - 1)
    return exits


def area_documents(spec: WorldSpec, rpg: bool) -> dict[str, dict[str, Any]]:
    """area file name -> its document."""
    docs: dict[str, dict[str, Any]] = {}
    per_room, extra = divmod(spec.npcs, spec.rooms)
    for i in range(spec.rooms):
        area = i // ROOMS_PER_AREA
        doc = docs.setdefault(
            f"area{area:03d}.yaml",
            {
                "area": {
                    "key": f"area{area:03d}",
                    "name": f"Area {area}",
                    "region": f"region{area // 5:02d}",
                },
                "rooms": [],
                "npcs": [],
            },
        )
        key = room_key(i)
        doc["rooms"].append(
            {
                "key": key,
                "name": f"Room {i}",
                "description": f"Room {i} of area {area}: a plain place with a few people in it.",
                "exits": _exits(i, spec.rooms),
            }
        )
        count = per_room + (1 if i < extra else 0)
        if count == 0:
            continue
        role = _role(i)
        npc: dict[str, Any] = {
            "key": f"n{i:05d}",
            "name": f"a {role}",
            "keywords": [role, f"n{i}"],
            "room": key,
            "count": count,
        }
        if rpg:
            if role == "bandit":
                npc["stats"] = {"level": 2, "hp": 20, "damage": [1, 3], "xp": 40}
                npc["combat"] = {"hostile": True, "respawn": 900}
            else:
                npc["stats"] = {"level": 1 + i % 5, "hp": 20 + i % 30}
        doc["npcs"].append(npc)
    return docs


def living_document(spec: WorldSpec, rng: random.Random) -> dict[str, Any]:
    """Living data (the living.yaml format) for every NPC template of the world."""
    npcs: dict[str, Any] = {}
    safety = {
        "threshold": 0.3,
        "modifiers": [{"when": "threat_known", "add": 0.03}],
        "satisfied_by": [{"when": "no_threat_known", "rate": 0.02}],
    }
    rooms = spec.rooms
    for i in range(rooms):
        role = _role(i)
        key = f"n{i:05d}"
        area0 = (i // ROOMS_PER_AREA) * ROOMS_PER_AREA
        size = min(ROOMS_PER_AREA, rooms - area0)
        bandit_rooms = [room_key(r) for r in range(area0, area0 + size) if _role(r) == "bandit"]
        if role == "bandit":
            npcs[key] = {"factions": {"bandits": "member"}}
            continue
        if role == "guard":
            npcs[key] = {
                "needs": {"safety": {**safety, "value": round(rng.uniform(0.5, 0.9), 2)}},
                "watch": bandit_rooms[:3],
                "factions": {"guard": "member"},
                "influence": 0.4,
            }
            continue
        entry: dict[str, Any] = {
            "needs": {
                "economic": {
                    "value": round(rng.uniform(0.3, 0.95), 2),
                    "decay": 0.004,
                    "threshold": 0.35,
                    "modifiers": [{"when": "supply_blocked", "decay_x": 8}],
                    "satisfied_by": [{"when": "supply_clear", "rate": 0.02}],
                    "goal": {
                        "id": "get_goods",
                        "type": "ACQUIRE",
                        "target": "goods",
                        "description": "Get goods from the next village",
                        "priority": 0.7,
                        "blocked_when": ["supply_blocked"],
                        "progress_when": "supply_clear",
                        "progress_rate": 0.25,
                        "completion_need_delta": 0.4,
                    },
                },
                "safety": {**safety, "value": round(rng.uniform(0.3, 0.9), 2)},
            },
            "factions": {"village": "member"},
            "influence": round(rng.uniform(0.05, 0.6), 2),
            "wealth": rng.randint(10, 500),
        }
        if bandit_rooms and i % 2 == 0:
            route_end = min(area0 + size - 1, i + 12)
            route = [room_key(r) for r in range(i + 1, route_end + 1)]
            if i % 4 == 0:
                route.append(bandit_rooms[(i // 4) % len(bandit_rooms)])
            entry["supply"] = [
                {"resource": "goods", "need": "economic", "route": route or [room_key(i)]}
            ]
        if i % 3 == 0:
            neighbour = next(iter(_exits(i, rooms).values()), room_key(i))
            entry["schedule"] = [
                {"hour": 6, "room": room_key(i)},
                {"hour": 9, "room": neighbour},
                {"hour": 19, "room": room_key(i)},
            ]
        others = [r for r in range(area0, area0 + size) if _role(r) == "villager" and r != i]
        rels: dict[str, Any] = {}
        for r in rng.sample(others, min(2, len(others))):
            # About one villager template in fifty has a rival (a real village has a
            # few feuds, not hundreds); the rest like their neighbours to a degree.
            rival = (i + r) % 50 == 0
            rels[f"n{r:05d}"] = {
                "trust": round(rng.uniform(-0.45, -0.2) if rival else rng.uniform(0.0, 0.7), 2),
                "affinity": round(rng.uniform(-0.3, 0.5), 2),
                **({"kind": "rival", "cause": "old debts", "drift": -0.03} if rival else {}),
            }
        if rels:
            entry["relationships"] = rels
        if i % 10 == 1:
            entry["memories"] = [
                {
                    "content": "The last cart from the next village came three days ago.",
                    "importance": 0.6,
                    "valence": "negative",
                    "intensity": 0.5,
                    "tags": ["goods", "supply"],
                    "visibility": "public",
                    "age_hours": 72,
                }
            ]
        npcs[key] = entry
    return {
        "factions": {
            "village": {"name": "the villages"},
            "guard": {"name": "the guard"},
            "bandits": {"name": "bandits", "hostile": True},
        },
        "faction_relations": [{"a": "guard", "b": "bandits", "value": -0.6}],
        "crises": [{"need": "safety", "below": 0.3, "min_npcs": 3, "crisis_type": "fear"}],
        "npcs": npcs,
    }


def make_pack(root: Path, spec: WorldSpec, layers: Layers) -> type[WorldDataPack]:
    """Write the world's data under ``root``; return the pack class that loads it."""
    rng = random.Random(spec.seed)
    try:
        importlib.import_module("classic_rpg.combat.data")
        rpg = True
    except ImportError:
        rpg = False
    (root / "areas").mkdir(parents=True, exist_ok=True)
    (root / "pack.yaml").write_text(yaml.safe_dump({"name": PACK, "start_room": room_key(0)}))
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    for name, doc in area_documents(spec, rpg).items():
        (root / "areas" / name).write_text(yaml.dump(doc, Dumper=dumper, sort_keys=False))
    living_doc = living_document(spec, rng)

    class BenchWorldPack(WorldDataPack):
        name = PACK
        requires: ClassVar[tuple[str, ...]] = ("stdlib", "classic_rpg") if rpg else ("stdlib",)

        @property
        def path(self) -> Path:
            return root

        def register(self, ctx: PackContext) -> None:
            super().register(ctx)
            wire_layers(ctx, layers)
            queue_living_data(ctx, living_doc, layers)

    return BenchWorldPack


def wire_layers(ctx: PackContext, layers: Layers) -> None:
    """Note which layers the loaded plugins registered (they register themselves)."""
    for label, module_name, service_name in LAYERS:
        try:
            service = getattr(importlib.import_module(module_name), service_name)
        except (ImportError, AttributeError) as exc:
            layers.set(label, f"skipped: does not import ({type(exc).__name__}: {exc})")
            continue
        if service in ctx.engine.services:
            layers.set(label, "registered by the loaded packs")
        else:
            layers.set(label, "skipped: not registered by the loaded packs")


def queue_living_data(ctx: PackContext, doc: dict[str, Any], layers: Layers) -> None:
    label = "living data (needs, goals, schedules, relationships)"
    try:
        from maid_stdlib.living.data import LivingData, parse_living
        from maid_stdlib.living.service import LivingWorld
    except ImportError as exc:
        layers.set(label, f"skipped: does not import yet ({exc})")
        return
    living = ctx.engine.services.try_get(LivingWorld)
    if living is None:
        layers.set(label, "skipped: no LivingWorld service")
        return
    spec, problems = parse_living(doc, f"{PACK}/living (generated)")
    if spec is None or problems:
        layers.set(label, f"skipped: the generated data is invalid: {problems[:3]}")
        return
    # What load_living_data does after reading its YAML file (parsing a 2 MB YAML
    # file would only slow the set-up down).
    living.pending_data.append(LivingData(PACK, f"{PACK}/living (generated)", spec))
    layers.set(label, "applied by the living world's start-up")


async def add_quests(engine: Any, spec: WorldSpec, layers: Layers) -> int:
    """Create ``spec.quests`` characters, each accepting one quest. Returns how many."""
    label = "active quests (QuestManager)"
    if spec.quests <= 0:
        layers.set(label, "none asked for")
        return 0
    try:
        from classic_rpg.systems.quests import Quest, QuestManager, QuestObjective
        from maid_stdlib.questgen.vocabulary import ObjectiveType
        from maid_stdlib.world.characters import WorldCharacterFactory
        from maid_stdlib.world.service import WorldService
    except ImportError as exc:
        layers.set(label, f"skipped: does not import yet ({exc})")
        return 0
    manager = engine.services.try_get(QuestManager)
    factory = engine.services.try_get(WorldCharacterFactory)
    if manager is None or factory is None:
        layers.set(label, "skipped: no QuestManager / character factory")
        return 0
    ws = engine.services.get(WorldService)
    rooms = ws.room_keys()
    rng = random.Random(spec.seed)
    made = 0
    async with engine.world_lock:
        for i in range(spec.quests):
            name = "Quester" + _letters(i)
            uid = factory.create_character(name, f"bench-account-{i}")
            ws.move(uid, rooms[rng.randrange(len(rooms))], reason="bench")
            target = rooms[rng.randrange(len(rooms))]
            quest = Quest(
                quest_id=f"bench-{i:04d}",
                title=f"Benchmark quest {i}",
                summary="Clear the road and look around.",
                objectives=[
                    QuestObjective(
                        objective_id="kill",
                        objective_type=ObjectiveType.KILL,
                        description="Kill three bandits.",
                        target_keyword="bandit",
                        target_count=3,
                    ),
                    QuestObjective(
                        objective_id="visit",
                        objective_type=ObjectiveType.VISIT,
                        description="Visit a room.",
                        destination_room_id=target,
                    ),
                ],
                time_limit_seconds=7 * 86400.0 if i % 2 == 0 else None,
            )
            manager.register_quest(quest)
            manager.offer_quest(uid, quest.quest_id)
            await manager.accept_quest(uid, quest.quest_id)
            made += 1
        await engine.dispatch_events()
    layers.set(
        label,
        f"{made} characters with one accepted quest each ({(made + 1) // 2} with a time limit)",
    )
    return made


def start_fights(engine: Any, spec: WorldSpec, layers: Layers) -> int:
    label = "fights (CombatSystem)"
    if spec.fights <= 0:
        layers.set(label, "none asked for")
        return 0
    try:
        from classic_rpg.combat.service import CombatService
        from maid_stdlib.world.service import WorldService
    except ImportError as exc:
        layers.set(label, f"skipped: does not import yet ({exc})")
        return 0
    combat = engine.services.try_get(CombatService)
    if combat is None:
        layers.set(label, "skipped: no CombatService")
        return 0
    ws = engine.services.get(WorldService)
    started = 0
    for key in ws.room_keys():
        if started >= spec.fights:
            break
        npcs = [u for u in ws.npcs_in(key) if combat.can_fight(u)]
        if len(npcs) >= 2:
            combat.engage(npcs[0], npcs[1])
            started += 1
    layers.set(label, f"{started} NPC pairs fighting at the start")
    return started


def _letters(n: int, width: int = 4) -> str:
    out = []
    for _ in range(width):
        n, r = divmod(n, 26)
        out.append(chr(97 + r))
    return "".join(reversed(out))


def component_counts(engine: Any) -> dict[str, int]:
    """How many entities carry the components the systems iterate."""
    wanted = [
        ("maid_stdlib.world.components", "Room"),
        ("maid_stdlib.world.components", "NPC"),
        ("maid_stdlib.world.components", "Position"),
        ("maid_stdlib.living.components", "NeedsComponent"),
        ("maid_stdlib.living.components", "GoalsComponent"),
        ("maid_stdlib.living.components", "Relationships"),
        ("maid_stdlib.living.facts", "Schedule"),
        ("maid_stdlib.living.facts", "SupplyRoutes"),
        ("maid_stdlib.living.gossip", "KnownGossip"),
        ("classic_rpg.components", "Health"),
        ("classic_rpg.combat.components", "Fighting"),
        ("classic_rpg.systems.quests.questlog", "QuestLog"),
    ]
    out: dict[str, int] = {}
    for module_name, cls_name in wanted:
        try:
            cls = getattr(importlib.import_module(module_name), cls_name)
        except (ImportError, AttributeError):
            continue
        out[cls_name] = engine.world.count(cls)
    return out


@dataclass
class BuiltWorld:
    engine: Any
    layers: Layers
    quests: int
    fights: int
    build_s: float
    game_seconds_per_tick: float


@contextlib.asynccontextmanager
async def open_world(
    spec: WorldSpec, log: Callable[[str], Any] = print
) -> AsyncIterator[BuiltWorld]:
    """Build and start the benchmark world; stop it and delete its files afterwards.

    Each tick advances game time by ``time_scale / tick_rate`` game seconds (2.4 s
    with the default settings), as a real server's tick does.
    """
    from maid_engine.clock import GAME_HOUR, ManualClock
    from maid_engine.config import Settings
    from maid_engine.engine import GameEngine

    logging.getLogger("maid").setLevel(logging.WARNING)
    root = Path(tempfile.mkdtemp(prefix="maid-bench-world-"))
    layers = Layers()
    settings = Settings(data_dir=root / "data", random_seed=spec.seed)
    per_tick = settings.time_scale / settings.tick_rate
    try:
        t_build = time.perf_counter()
        pack = make_pack(root / "pack", spec, layers)
        packs: list[Any] = ["stdlib"]
        try:
            importlib.import_module("classic_rpg.pack")
            packs.append("classic_rpg")
            layers.set("classic_rpg pack", "loaded")
        except ImportError as exc:
            layers.set("classic_rpg pack", f"skipped: does not import ({exc})")
        packs.append(pack)
        # 08:50 game time: the schedules' 09:00 entries fall inside a run.
        clock = ManualClock(tick_game_seconds=per_tick, game_time=8 * GAME_HOUR + 50 * 60)
        engine = GameEngine(settings, clock=clock, packs=packs, use_store=False)
        await engine.start()
        try:
            quests = await add_quests(engine, spec, layers)
            fights = start_fights(engine, spec, layers)
            build_s = time.perf_counter() - t_build
            log(
                f"  world built in {build_s:.1f} s: {engine.world.entity_count} entities, "
                f"{len(engine.systems)} systems"
            )
            yield BuiltWorld(engine, layers, quests, fights, build_s, per_tick)
        finally:
            await engine.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
