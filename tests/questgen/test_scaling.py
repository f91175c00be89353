"""Per-character difficulty in the stdlib: bounds, counts, time limits, rewards, record."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

from maid_stdlib.questgen import (
    ArchetypeRegistry,
    DifficultyTier,
    GeneratedQuest,
    ObjectivePatterns,
    ObjectiveType,
    QuestArchetype,
    QuestDialogue,
    QuestHistory,
    QuestObjective,
    QuestRewards,
    TierDistance,
    TierFit,
    TierMatch,
)
from maid_stdlib.questgen.challenge import NEUTRAL_CHALLENGE
from maid_stdlib.questgen.scaling import (
    DEFAULT_SCALING,
    NO_SCALING,
    ScalingBounds,
    fit_quest,
    plan_adjustment,
    rate_effort,
)


def _quest(*, wolves: int = 4, named: int = 0, hours: float | None = 2.0) -> GeneratedQuest:
    return GeneratedQuest(
        id="gen-clear_out-1",
        seed_id=uuid4(),
        seed_type="threat_response",
        archetype_id="clear_out",
        importance=0.5,
        title="Wolves",
        summary="s",
        detailed_description="d",
        objectives=[
            QuestObjective(
                id="o1-talk", objective_type=ObjectiveType.TALK, description="Talk", target="x"
            ),
            QuestObjective(
                id="o2-kill",
                objective_type=ObjectiveType.KILL,
                description="Kill wolves",
                target="wolf",
                quantity=wolves,
                target_entity_ids=[uuid4() for _ in range(named)],
            ),
            QuestObjective(
                id="o3-timed",
                objective_type=ObjectiveType.TIMED,
                description="Hold out",
                target="x",
                time_limit_seconds=600.0,
            ),
        ],
        quest_giver_id=uuid4(),
        quest_giver_motivation="m",
        quest_giver_dialogue=QuestDialogue("o", "p", "c"),
        rewards=QuestRewards(gold=40),
        difficulty=DifficultyTier.MODERATE,
        time_limit=hours,
        expiry=1000.0,
    )


def test_bounds_must_hold_one() -> None:
    with pytest.raises(ValueError, match="scaling bounds"):
        ScalingBounds(min_factor=1.2)
    with pytest.raises(ValueError, match="scaling bounds"):
        ScalingBounds(max_factor=0.9)
    with pytest.raises(ValueError, match="scaling bounds"):
        ScalingBounds(min_factor=0.0)
    assert DEFAULT_SCALING.clamp(0.1) == 0.5
    assert DEFAULT_SCALING.clamp(9.0) == 1.5
    assert DEFAULT_SCALING.clamp(1.2) == 1.2


@pytest.mark.parametrize(
    ("effort", "count", "limit_hours", "reward"),
    [
        (1.0, 4, 2.0, 1.0),
        (0.75, 3, 2.0 / 0.75, 0.75),
        (0.1, 2, 4.0, 0.5),  # bounded at 0.5: time doubles, work halves
        (1.25, 5, 2.0 / 1.25, 1.25),
        (3.0, 6, 2.0 / 1.5, 1.5),  # bounded at 1.5
    ],
)
def test_counts_times_and_rewards_follow_the_bounded_factor(
    effort: float, count: int, limit_hours: float, reward: float
) -> None:
    who = [uuid4()]
    adj = plan_adjustment(_quest(), who, effort, "why")
    assert adj.characters == who
    assert adj.wanted == effort
    assert adj.factor == pytest.approx(DEFAULT_SCALING.clamp(effort))
    assert adj.counts.get("o2-kill", 4) == count
    # A single target stays single; the TALK objective is never counted work.
    assert "o1-talk" not in adj.counts
    assert adj.time_limit == (None if effort == 1.0 else pytest.approx(limit_hours))
    if effort != 1.0:
        assert adj.objective_time_limits["o3-timed"] == pytest.approx(
            600.0 / DEFAULT_SCALING.clamp(effort)
        )
    assert adj.reward_factor == pytest.approx(reward)
    assert adj.changed is (effort != 1.0)
    if effort < 0.5 or effort > 1.5:
        [term] = [t for t in adj.terms if t.what == "count of o2-kill"]
        assert term.note == "bounded by the archetype"


def test_counts_stay_at_least_one_and_rewards_follow_the_rounded_work() -> None:
    adj = plan_adjustment(_quest(wolves=2), [uuid4()], 0.5, "why")
    assert adj.counts == {"o2-kill": 1}
    assert adj.reward_factor == pytest.approx(0.5)
    # 2 x 0.8 rounds back to 2: no less work, so no less pay.
    adj = plan_adjustment(_quest(wolves=2), [uuid4()], 0.8, "why")
    assert adj.counts == {}
    assert adj.reward_factor == pytest.approx(1.0)


def test_a_grounded_count_never_asks_for_foes_that_do_not_exist() -> None:
    adj = plan_adjustment(_quest(wolves=3, named=3), [uuid4()], 1.5, "why")
    assert "o2-kill" not in adj.counts
    [term] = [t for t in adj.terms if t.what == "count of o2-kill"]
    assert (term.before, term.after, term.note) == (3, 3, "capped: only 3 exist")
    # Rewards follow the work actually asked (unchanged), not the factor.
    assert adj.reward_factor == pytest.approx(1.0)
    # Shrinking it is always possible.
    # 1.5 wolves: a tie goes the factor's way, here down.
    assert plan_adjustment(_quest(wolves=3, named=3), [uuid4()], 0.5, "why").counts == {
        "o2-kill": 1
    }


def test_an_archetype_can_switch_time_or_everything_off() -> None:
    adj = plan_adjustment(_quest(), [uuid4()], 0.5, "why", ScalingBounds(time=False))
    assert adj.counts == {"o2-kill": 2}
    assert adj.time_limit is None
    assert adj.objective_time_limits == {}
    adj = plan_adjustment(_quest(), [uuid4()], 0.5, "why", NO_SCALING)
    assert (adj.counts, adj.time_limit, adj.reward_factor) == ({}, None, 1.0)
    assert not adj.changed


def test_the_record_says_what_changed_from_what_to_what() -> None:
    adj = plan_adjustment(_quest(), [uuid4()], 0.5, "level 2 against a moderate quest")
    assert {(t.what, t.before, t.after) for t in adj.terms} == {
        ("count of o2-kill", 4, 2),
        ("time limit (hours)", 2.0, 4.0),
        ("time limit of o3-timed (s)", 600.0, 1200.0),
        ("gold", 40, 20),
    }
    assert adj.summary() == "x0.50 (level 2 against a moderate quest)"


class _Standing:
    def __init__(self, effort: float, rating: str) -> None:
        self.effort, self.rating = effort, rating

    def against(self, tier: DifficultyTier) -> TierMatch:
        return TierMatch(TierFit.FITS, TierDistance.CLOSE, effort=self.effort, rating=self.rating)


class _Rating:
    def __init__(self, efforts: dict[UUID, float]) -> None:
        self.efforts = efforts

    def standing_of(self, character: UUID) -> _Standing:
        return _Standing(self.efforts[character], f"rated {self.efforts[character]}")

    def tier_of_threats(self, threats: object) -> DifficultyTier | None:
        return None


def test_a_group_is_rated_by_its_mean_effort() -> None:
    a, b = uuid4(), uuid4()
    effort, reason = rate_effort(_Rating({a: 0.6, b: 1.0}), [a, b], _quest())
    assert effort == pytest.approx(0.8)
    assert reason == "rated 0.6; rated 1.0"
    assert rate_effort(NEUTRAL_CHALLENGE, [a], _quest()) == (
        1.0,
        "standing against a moderate quest",
    )


def test_fit_quest_uses_the_archetypes_bounds_and_history_records_it() -> None:
    hero = uuid4()
    archetypes = ArchetypeRegistry(
        [
            QuestArchetype(
                archetype_id="clear_out",
                name="Clear",
                objective_pattern=ObjectivePatterns.CLEAR,
                scaling=ScalingBounds(min_factor=0.75),
            )
        ]
    )
    quest = _quest()
    adj = fit_quest(quest, [hero], _Rating({hero: 0.2}), archetypes)
    assert adj.factor == 0.75
    assert adj.counts == {"o2-kill": 3}
    history = QuestHistory()
    history.record(quest, 0.0)
    assert history.work_factor(quest.id, [hero]) == 1.0
    history.record_adjustment(quest.id, adj)
    assert history.adjustment_of(quest.id, hero) == adj
    assert history.work_factor(quest.id, [hero]) == pytest.approx(0.75)
    assert history.work_factor(quest.id, [hero, uuid4()]) == pytest.approx(0.875)
    # It survives the store round trip of the history document.
    reloaded = QuestHistory()
    reloaded.load_documents([history.get(quest.id).document()])  # type: ignore[union-attr]
    assert reloaded.adjustment_of(quest.id, hero) == adj


def test_an_item_count_is_never_scaled_above_what_the_world_held() -> None:
    quest = _quest(wolves=3)
    quest.objectives.append(
        QuestObjective(
            id="o4-collect",
            objective_type=ObjectiveType.COLLECT,
            description="Obtain 3 lumps of iron ore",
            target="lump of iron ore",
            item_template="iron_ore",
            quantity=3,
        )
    )
    # A level 4 character on a quest for level 2 is asked for more foes, not for
    # ore that is not there (seed 12 asked for 5 lumps of the valley's 4).
    adj = plan_adjustment(quest, [uuid4()], 1.5, "why")
    assert adj.counts.get("o2-kill", 3) > 3
    assert "o4-collect" not in adj.counts
    [term] = [t for t in adj.terms if t.what == "count of o4-collect"]
    assert (term.before, term.after, term.note) == (3, 3, "capped: only 3 to be had")
    # A weaker character may still be asked for fewer.
    assert plan_adjustment(quest, [uuid4()], 0.7, "why").counts["o4-collect"] == 2
