"""SeedTypeRegistry, the string identifiers, and QuestSeed / seed expiry (10.1)."""

from __future__ import annotations

import dataclasses

import pytest

from maid_engine.clock import GAME_HOUR
from maid_stdlib.questgen import (
    DifficultyTier,
    NarrativeArcs,
    ObjectivePatterns,
    QuestSeed,
    QuestSeedTypes,
    SeedTypeRegistry,
    seed_expiry,
)
from maid_stdlib.questgen.types import builtin_constants


def test_builtin_seed_types_are_registered_as_plain_strings() -> None:
    registry = SeedTypeRegistry()
    builtins = builtin_constants(QuestSeedTypes)
    assert len(builtins) == 17
    for value in builtins:
        assert type(value) is str
        assert registry.is_registered(value)
    assert registry.is_registered("threat_response")
    assert not registry.is_registered("heist_opportunity")


def test_content_pack_registers_a_custom_seed_type() -> None:
    registry = SeedTypeRegistry()
    registry.register("heist_opportunity", "A valuable target is poorly guarded")
    assert registry.is_registered("heist_opportunity")
    assert registry.description("heist_opportunity") == "A valuable target is poorly guarded"
    registry.register("heist_opportunity", "A valuable target is poorly guarded")  # idempotent
    with pytest.raises(ValueError, match="already registered"):
        registry.register("heist_opportunity", "something else")
    with pytest.raises(ValueError, match="non-empty string"):
        registry.register("  ", "blank")


def test_patterns_and_arcs_are_plain_strings() -> None:
    assert ObjectivePatterns.CLEAR == "clear"
    assert type(ObjectivePatterns.CLEAR) is str
    assert NarrativeArcs.DILEMMA == "dilemma"
    assert len(builtin_constants(ObjectivePatterns)) == 10


@pytest.mark.parametrize(
    ("urgency", "hours"), [(0.0, 24.0), (0.5, 14.4), (1.0, 4.8), (-1.0, 24.0), (2.0, 4.8)]
)
def test_seed_expiry_formula_in_game_hours(urgency: float, hours: float) -> None:
    assert seed_expiry(1000.0, urgency) == pytest.approx(1000.0 + hours * GAME_HOUR)


def _seed(**kw: object) -> QuestSeed:
    import uuid

    fields: dict[str, object] = dict(
        seed_type=QuestSeedTypes.THREAT_RESPONSE,
        importance=0.5,
        urgency=0.0,
        primary_npc=uuid.uuid4(),
        primary_npc_motivation="m",
        location="x:y",
        backstory="b",
        tension="t",
        stakes="s",
        estimated_difficulty=DifficultyTier.EASY,
        estimated_duration_minutes=30,
        created_at=0.0,
        expires_at=seed_expiry(0.0, 0.0),
    )
    fields.update(kw)
    return QuestSeed(**fields)  # type: ignore[arg-type]


def test_quest_seed_is_a_valid_keyword_dataclass_with_typed_fields_only() -> None:
    seed = _seed()
    names = {f.name for f in dataclasses.fields(QuestSeed)}
    # No free-form context dict to fall back on: every value is a typed field.
    assert "context" not in names
    assert {"threat_source", "evidence_location", "subject", "mood"} <= names
    assert seed.all_seed_types == ["threat_response"]
    with pytest.raises(TypeError):
        QuestSeed("threat_response")  # type: ignore[call-arg,arg-type]


def test_high_urgency_seeds_expire_before_low_urgency_ones_on_game_time() -> None:
    urgent = _seed(urgency=1.0, expires_at=seed_expiry(0.0, 1.0))
    calm = _seed(urgency=0.0, expires_at=seed_expiry(0.0, 0.0))
    five_hours = 5 * GAME_HOUR
    assert urgent.is_expired(five_hours)
    assert not calm.is_expired(five_hours)
    assert calm.is_expired(25 * GAME_HOUR)


def test_difficulty_tiers_are_an_ordinal_without_character_levels() -> None:
    assert [t.rank for t in DifficultyTier] == [0, 1, 2, 3, 4]
    # What makes a character ready for a tier is the rules layer's.
    assert not hasattr(DifficultyTier.MODERATE, "recommended_level")
    assert not hasattr(DifficultyTier, "for_level")
