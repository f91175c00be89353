"""Plugins: groups expand to their feature plugins, each plugin registers once,
requirements are guaranteed, and extension registries name the pack of a bad entry."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import (
    ContentPack,
    PackContext,
    PackError,
    PluginGroup,
    collect_packs,
)
from maid_engine.engine import GameEngine
from maid_stdlib.living.register import LivingPlugin
from maid_stdlib.questgen import QuestArchetype, QuestGen, SignalContract
from maid_stdlib.story.detectors import Detector, StoryDetectors
from maid_stdlib.world.plugin import WorldPlugin

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"

STDLIB = [
    "stdlib.options",
    "stdlib.world",
    "stdlib.help",
    "stdlib.reports",
    "stdlib.living",
    "stdlib.building",
    "stdlib.story",
    "stdlib.questgen",
    "stdlib.quest_generation",
    "stdlib.consequences",
    "stdlib.grounding",
    "stdlib.narration",
    "stdlib.navigation",
    "stdlib.talk",
]
CLASSIC_RPG = [
    "classic_rpg.rules",
    "classic_rpg.quests",
    "classic_rpg.groups",
    "classic_rpg.questgen",
    "classic_rpg.quest_delivery",
    "classic_rpg.consequences",
    "classic_rpg.living",
    "classic_rpg.navigation",
    "classic_rpg.narration",
    "classic_rpg.shops",
    "classic_rpg.crafting_requests",
]


def names(refs: list[Any]) -> list[str]:
    return [p.name for p in collect_packs(refs)]


def test_the_default_groups_expand_to_their_feature_plugins() -> None:
    assert names(["stdlib"]) == [*STDLIB, "stdlib"]
    assert names(["classic_rpg"]) == [*STDLIB, "stdlib", *CLASSIC_RPG, "classic_rpg"]


def test_the_documented_plugin_table_is_the_real_one() -> None:
    """docs/architecture.md lists every plugin of the default groups in load order."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Plugins", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z_.]+)` \|", section, flags=re.MULTILINE)
    assert rows == [*STDLIB, *CLASSIC_RPG]


def test_a_plugin_pulls_in_the_plugins_it_requires_by_class() -> None:
    assert names([LivingPlugin]) == ["stdlib.world", "stdlib.living"]


def plugin(name: str, *, requires: tuple[Any, ...] = (), log: list[str] | None = None) -> type:
    def register(self: ContentPack, ctx: PackContext) -> None:
        if log is not None:
            log.append(name)

    return type(
        f"P_{name.replace('.', '_')}",
        (ContentPack,),
        {"name": name, "requires": requires, "register": register},
    )


def test_a_plugin_added_twice_is_an_error_naming_both_adders() -> None:
    feature = plugin("feature")
    group_a = type("GroupA", (PluginGroup,), {"name": "group_a", "plugins": (feature,)})
    group_b = type("GroupB", (PluginGroup,), {"name": "group_b", "plugins": (feature,)})
    with pytest.raises(PackError) as caught:
        collect_packs([group_a, group_b], available={})
    message = str(caught.value)
    assert "content pack 'feature': added twice" in message
    assert "group 'group_a'" in message
    assert "group 'group_b'" in message


def test_the_same_plugin_in_the_pack_list_twice_is_an_error() -> None:
    with pytest.raises(PackError, match=r"'stdlib.world': added twice.*WorldPlugin"):
        collect_packs([WorldPlugin, "stdlib"])


def test_two_classes_under_one_name_are_an_error_naming_both() -> None:
    one, other = plugin("twin"), plugin("twin")
    other.__qualname__ = "OtherTwin"
    with pytest.raises(PackError) as caught:
        collect_packs([one, other], available={})
    assert "P_twin" in str(caught.value)
    assert "OtherTwin" in str(caught.value)


def test_a_required_plugin_only_referred_to_is_added_once() -> None:
    log: list[str] = []
    base = plugin("base", log=log)
    top_a = plugin("top_a", requires=(base,), log=log)
    top_b = plugin("top_b", requires=("base",), log=log)
    assert [p.name for p in collect_packs([top_a, top_b], available={})] == [
        "base",
        "top_a",
        "top_b",
    ]


def test_a_missing_requirement_names_the_plugin_and_the_requirement() -> None:
    lonely = plugin("lonely", requires=("nowhere",))
    with pytest.raises(PackError, match=r"content pack 'lonely': requires 'nowhere'"):
        collect_packs([lonely], available={})


def engine(*packs: Any) -> GameEngine:
    return GameEngine(Settings(), clock=ManualClock(), packs=list(packs), use_store=False)


async def start_fails(*packs: Any) -> str:
    eng = engine(*packs)
    with pytest.raises(PackError) as caught:
        await eng.start()
    await eng.stop()
    return str(caught.value)


class Promises(ContentPack):
    name = "promises"
    provides = (QuestGen,)

    def register(self, ctx: PackContext) -> None:
        """Provides nothing, though it says it does."""


async def test_a_declared_service_not_provided_stops_start_up() -> None:
    message = await start_fails(Promises)
    assert "content pack 'promises': declares but did not provide: QuestGen" in message


ARCHETYPE = QuestArchetype(
    archetype_id="threat_elimination",
    name="Again",
    objective_pattern="clear",
    compatible_seed_types=["threat_response"],
)


class SecondThreat(ContentPack):
    """Adds an archetype the classic_rpg.questgen plugin added already."""

    name = "second_threat"
    requires = ("classic_rpg",)

    def register(self, ctx: PackContext) -> None:
        ctx.service(QuestGen).add_archetype(ctx.pack.name, ARCHETYPE)


async def test_a_duplicate_archetype_names_both_packs() -> None:
    message = await start_fails(SecondThreat)
    assert "content pack 'second_threat'" in message
    assert "archetype 'threat_elimination' is already added by pack 'classic_rpg.questgen'" in (
        message
    )


class SeedTwice(ContentPack):
    name = "seed_twice"
    requires = ("stdlib",)

    def register(self, ctx: PackContext) -> None:
        qg = ctx.service(QuestGen)
        qg.add_seed_type(ctx.pack.name, "heist_opportunity", "A target")
        qg.add_seed_type(ctx.pack.name, "heist_opportunity", "A target")


class BuiltinSeed(ContentPack):
    name = "builtin_seed"
    requires = ("stdlib",)

    def register(self, ctx: PackContext) -> None:
        ctx.service(QuestGen).add_seed_type(ctx.pack.name, "rescue", "Someone is in danger")


async def test_a_duplicate_seed_type_is_an_error_naming_the_pack() -> None:
    message = await start_fails(SeedTwice)
    assert (
        "content pack 'seed_twice': seed type 'heist_opportunity' is already added by pack "
        "'seed_twice'"
    ) in message
    message = await start_fails(BuiltinSeed)
    assert "content pack 'builtin_seed': seed type 'rescue' is built in" in message


class HeistAgain(ContentPack):
    """A second pack adding the heist pack's seed type."""

    name = "heist_again"
    requires = ("heist",)

    def register(self, ctx: PackContext) -> None:
        ctx.service(QuestGen).add_seed_type(ctx.pack.name, "heist_opportunity", "Again")


async def test_a_seed_type_of_another_pack_names_both(tmp_path: Path) -> None:
    eng = GameEngine(
        Settings(data_dir=tmp_path), clock=ManualClock(), packs=[HeistAgain], use_store=False
    )
    with pytest.raises(PackError) as caught:
        await eng.start()
    await eng.stop()
    assert (
        "content pack 'heist_again': seed type 'heist_opportunity' is already added by pack 'heist'"
    ) in str(caught.value)


class UnbuildableArchetype(ContentPack):
    """An archetype whose pattern nobody registered: caught once every pack registered."""

    name = "unbuildable"
    requires = ("stdlib",)

    def register(self, ctx: PackContext) -> None:
        qg = ctx.service(QuestGen)
        qg.add_archetype(
            ctx.pack.name,
            QuestArchetype(
                archetype_id="tunnel",
                name="Tunnel",
                objective_pattern="dig",
                compatible_seed_types=["treasure_map"],
            ),
        )
        qg.add_contract(
            ctx.pack.name,
            SignalContract("TUNNEL_FOUND", ("treasure_map",), (), lambda _s, _f: None),
        )


async def test_a_bad_entry_is_a_start_up_error_naming_the_pack() -> None:
    message = await start_fails(UnbuildableArchetype)
    assert "content pack 'unbuildable': archetype 'tunnel': no builder for objective pattern" in (
        message
    )
    assert "and 2 more" in message  # its unknown seed type, the contract's too


class LateDetector(ContentPack):
    name = "late_detector"
    requires = ("stdlib",)

    def register(self, ctx: PackContext) -> None:
        detectors = ctx.service(StoryDetectors)
        taken = detectors.names()[0]
        detectors.add_from(ctx.pack.name, Detector(taken, "CRISIS", lambda _ctx: []))


async def test_a_detector_under_a_taken_name_is_an_error() -> None:
    message = await start_fails(LateDetector)
    assert "content pack 'late_detector': story detector" in message
    assert "built in" in message
