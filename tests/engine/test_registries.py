"""Extension registries: every entry remembers the pack that added it (a duplicate
across packs names both), ``maid registries`` lists who added what, and once the
engine has started every registry is locked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from maid_engine.cli import main
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import (
    Claims,
    ContentPack,
    PackContext,
    PackError,
    Registries,
    RegistryLocked,
    RegistryRow,
    render_registries,
)
from maid_engine.engine import GameEngine
from maid_stdlib.consequences import ChainContext, ConsequenceSystem
from maid_stdlib.living.data import LivingData, parse_living
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.questgen import GeneratedQuest, QuestArchetype, QuestGen, SignalContract
from maid_stdlib.questgen.narrative import TemplateRegistry
from maid_stdlib.story.detectors import Detector, StoryDetectors
from maid_stdlib.story.signals import StorySignal
from maid_stdlib.talk import ChannelSpec, SocialSpec, TalkData
from maid_stdlib.world.extensions import ExtensionContext
from maid_stdlib.world.loader import WorldData


def engine(*packs: Any) -> GameEngine:
    return GameEngine(Settings(), clock=ManualClock(), packs=list(packs), use_store=False)


async def start_fails(*packs: Any) -> str:
    eng = engine(*packs)
    with pytest.raises(PackError) as caught:
        await eng.start()
    await eng.stop()
    return str(caught.value)


# -- chain rules and narrative templates name their pack ----------------------------------
def market_rumour(ctx: ChainContext) -> StorySignal | None:
    return None


def chain_rule_pack(name: str) -> type[ContentPack]:
    def register(self: ContentPack, ctx: PackContext) -> None:
        ctx.service(ConsequenceSystem).chain_rules.add_from(self.name, market_rumour)

    return type(name, (ContentPack,), {"name": name, "requires": ("stdlib",), "register": register})


CARGO = {"cargo": {"title": ["The Missing {subject}"], "offer": ["Find {subject}?"]}}


def template_pack(name: str) -> type[ContentPack]:
    def register(self: ContentPack, ctx: PackContext) -> None:
        ctx.service(TemplateRegistry).add_from(self.name, CARGO)

    return type(name, (ContentPack,), {"name": name, "requires": ("stdlib",), "register": register})


async def test_a_chain_rule_added_by_two_packs_names_both() -> None:
    message = await start_fails(chain_rule_pack("rumours"), chain_rule_pack("gossip"))
    assert (
        "content pack 'gossip': chain rule 'market_rumour' is already added by pack 'rumours'"
        in (message)
    )


async def test_a_chain_rule_under_a_built_in_name_is_an_error() -> None:
    class Shadow(ContentPack):
        name = "shadow"
        requires = ("stdlib",)

        def register(self, ctx: PackContext) -> None:
            ctx.service(ConsequenceSystem).chain_rules.add_from(
                self.name, market_rumour, name="generic_rule"
            )

    message = await start_fails(Shadow)
    assert "content pack 'shadow': chain rule 'generic_rule' is built in" in message


async def test_pack_chain_rules_come_first_and_are_remembered_with_their_pack() -> None:
    eng = engine(chain_rule_pack("rumours"))
    eng.register_packs()
    rules = eng.services.get(ConsequenceSystem).chain_rules
    assert rules.names() == [
        "market_rumour",
        "retaliation_rule",
        "investigation_rule",
        "generic_rule",
    ]
    assert rules.rules[0] is market_rumour
    assert rules.claims.owner("market_rumour") == "rumours"
    assert rules.claims.owner("generic_rule") is None


async def test_templates_of_one_archetype_from_two_packs_name_both() -> None:
    message = await start_fails(template_pack("cargo_a"), template_pack("cargo_b"))
    assert (
        "content pack 'cargo_b': narrative template set 'cargo' is already added by pack 'cargo_a'"
    ) in message


async def test_a_pack_overrides_the_default_templates_of_an_archetype() -> None:
    class Override(ContentPack):
        name = "override"
        requires = ("stdlib",)

        def register(self, ctx: PackContext) -> None:
            ctx.service(TemplateRegistry).add_from(
                self.name, {"threat_elimination": {"title": ["Trouble at {location}"]}}
            )

    eng = engine(Override)
    eng.register_packs()
    templates = eng.services.get(TemplateRegistry)
    assert templates.templates("threat_elimination", "title") == ("Trouble at {location}",)
    assert templates.claims.owner("threat_elimination") == "override"


# -- the listing ------------------------------------------------------------------------------
def test_the_listing_says_who_added_each_entry() -> None:
    eng = engine(chain_rule_pack("rumours"), template_pack("cargo_a"), "classic_rpg")
    eng.register_packs()
    rows = {(r.registry, r.key): r.pack for r in eng.registries.rows()}
    assert rows[("chain rule", "market_rumour")] == "rumours"
    assert rows[("chain rule", "generic_rule")] is None
    assert rows[("narrative template set", "cargo")] == "cargo_a"
    assert rows[("archetype", "threat_elimination")] == "classic_rpg.questgen"
    assert rows[("quest extension", "classic_rpg")] == "classic_rpg.questgen"
    assert rows[("seed type", "rescue")] is None
    assert rows[("world data extension", "npc.stats")] == "classic_rpg.rules"
    assert rows[("world data extension", "room.narrated")] == "stdlib.narration"
    assert {r.registry for r in eng.registries.rows()} >= {
        "seed type",
        "signal contract",
        "objective pattern",
        "story detector",
    }


def test_the_table_marks_built_in_entries() -> None:
    text = render_registries(
        [RegistryRow("chain rule", "generic_rule", None), RegistryRow("chain rule", "x", "p")]
    )
    assert text.splitlines() == [
        "registry    entry         added by",
        "chain rule  generic_rule  (built in)",
        "chain rule  x             p",
    ]


def test_maid_registries_lists_the_packs_entries_without_a_database(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code = main(["registries", "--data-dir", str(data), "--pack", "heist"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = [line.split() for line in out.splitlines()]
    assert lines[0] == ["registry", "entry", "added", "by"]
    assert ["chain", "rule", "heist_follow_up", "heist"] in lines
    assert ["narrative", "template", "set", "heist", "heist"] in lines
    assert ["story", "detector", "heist_opportunity", "heist"] in lines
    assert ["living", "data", "heist/living.yaml", "heist"] in lines
    assert ["story", "detector", "threats", "(built", "in)"] in lines
    assert not data.exists()


def test_maid_registries_reports_a_duplicate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["registries", "--data-dir", str(tmp_path), "--pack", "heist", "--pack",
                 f"{__name__}:HeistRuleAgain"])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 3
    assert "chain rule 'heist_follow_up' is already added by pack 'heist'" in err


class HeistRuleAgain(ContentPack):
    name = "heist_rule_again"
    requires = ("heist",)

    def register(self, ctx: PackContext) -> None:
        ctx.service(ConsequenceSystem).chain_rules.add_from(
            self.name, market_rumour, name="heist_follow_up"
        )


# -- locked once the engine has started ---------------------------------------------------
class Mood(BaseModel):
    mood: str = ""


def _apply_mood(ctx: ExtensionContext, value: Any) -> None:
    """Nothing to apply: the test only registers the section."""


class _Stamp:
    name = "stamp"

    def extend(self, quest: GeneratedQuest) -> dict[str, Any]:
        return {}


def _living(eng: GameEngine) -> None:
    spec, problems = parse_living({}, "late/living.yaml")
    assert spec is not None
    assert not problems
    eng.services.get(LivingWorld).add_data(LivingData("late", "late/living.yaml", spec))


ARCHETYPE = QuestArchetype(
    archetype_id="late", name="Late", objective_pattern="clear", compatible_seed_types=["rescue"]
)
#: One late change per registry kind, and the entry its error names.
LATE: dict[str, tuple[Callable[[GameEngine], object], str]] = {
    "seed type": (lambda e: e.services.get(QuestGen).add_seed_type("p", "late", "Late"), "late"),
    "signal contract": (
        lambda e: e.services.get(QuestGen).add_contract(
            "p", SignalContract("LATE", ("rescue",), (), lambda _s, _f: None)
        ),
        "LATE",
    ),
    "objective pattern": (
        lambda e: e.services.get(QuestGen).add_objective_pattern("p", "late", lambda *a: []),
        "late",
    ),
    "archetype": (lambda e: e.services.get(QuestGen).add_archetype("p", ARCHETYPE), "late"),
    "archetype (no owner)": (
        lambda e: e.services.get(QuestGen).register_archetype(ARCHETYPE),
        "late",
    ),
    "quest extension": (lambda e: e.services.get(QuestGen).add_extension(_Stamp()), "stamp"),
    "story detector": (
        lambda e: e.services.get(StoryDetectors).add_from(
            "p", Detector("late", "CRISIS", lambda _ctx: [])
        ),
        "late",
    ),
    "story detector (removed)": (
        lambda e: e.services.get(StoryDetectors).unregister("threats"),
        "threats",
    ),
    "chain rule": (
        lambda e: e.services.get(ConsequenceSystem).chain_rules.add_from("p", market_rumour),
        "market_rumour",
    ),
    "social": (
        lambda e: e.services.get(TalkData).add_social(
            "p", "late", SocialSpec(actor="Hm.", room="Hm.")
        ),
        "late",
    ),
    "channel": (
        lambda e: e.services.get(TalkData).add_channel(
            "p", "late", ChannelSpec(name="Late", description="Too late.")
        ),
        "late",
    ),
    "narrative template set": (
        lambda e: e.services.get(TemplateRegistry).add_from("p", CARGO),
        "cargo",
    ),
    "narrative template (default layer)": (
        lambda e: e.services.get(TemplateRegistry).register(
            "late", layer="default", title=["Late"]
        ),
        "late",
    ),
    "living data": (_living, "late/living.yaml"),
    "world data extension": (
        lambda e: e.services.get(WorldData).register_extension(
            "npc", "mood", Mood, _apply_mood, owner="p"
        ),
        "npc.mood",
    ),
}


@pytest.mark.parametrize("kind", list(LATE))
async def test_a_registry_is_locked_once_the_engine_has_started(kind: str) -> None:
    change, key = LATE[kind]
    async with engine("stdlib").lifespan() as eng:
        assert eng.registries.locked
        with pytest.raises(RegistryLocked, match="locked once the engine has started") as caught:
            change(eng)
        assert repr(key) in str(caught.value)


@pytest.mark.parametrize("kind", list(LATE))
async def test_before_the_start_the_same_change_is_accepted(kind: str) -> None:
    change, _ = LATE[kind]
    eng = engine("stdlib")
    eng.register_packs()
    change(eng)


async def test_every_declared_registry_is_locked_and_unlock_reopens_them() -> None:
    async with engine("stdlib").lifespan() as eng:
        declared = list(eng.registries)
        assert {c.what for c in declared} == {
            "world data extension",
            "living data",
            "story detector",
            "seed type",
            "signal contract",
            "objective pattern",
            "archetype",
            "quest extension",
            "narrative template set",
            "chain rule",
            "channel",
            "social",
        }
        assert all(c.locked for c in declared)
        # The seam for an online reload: open, change, lock again.
        eng.registries.unlock()
        assert not any(c.locked for c in declared)
        eng.services.get(QuestGen).add_seed_type("reload", "late", "Late")
        eng.registries.lock()
        assert all(c.locked for c in declared)
        with pytest.raises(RegistryLocked):
            eng.services.get(QuestGen).add_seed_type("reload", "later", "Later")
        assert eng.services.get(QuestGen).seed_type_claims.owner("late") == "reload"


def test_a_registry_cannot_be_declared_after_the_lock() -> None:
    registries = Registries()
    first = Claims("thing")
    registries.add(first)
    with pytest.raises(ValueError, match="declared already"):
        registries.add(first)
    registries.lock()
    with pytest.raises(RegistryLocked, match="cannot declare the gadget registry"):
        registries.add(Claims("gadget"))
    with pytest.raises(RegistryLocked, match="cannot add thing 'x'"):
        first.claim("p", "x")


def test_a_registry_not_declared_is_not_locked() -> None:
    """A registry built outside an engine (tests, tools) stays open."""
    registries = Registries()
    registries.lock()
    standalone = TemplateRegistry()
    standalone.add_from("p", CARGO)
    assert standalone.claims.owner("cargo") == "p"
