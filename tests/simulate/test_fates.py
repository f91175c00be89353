"""Bots do not finish everything: each proper attempt draws a fate from the bot's
own deck, shuffled by its seeded source (settle for part of the job, come too
late, be too weak for the fight, or play it through), so outcomes vary and a run
reproduces."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

from classic_rpg.simulate.bots import DECK, STYLES
from classic_rpg.simulate.coordinator import (
    LATE_WITHIN,
    Attempt,
    Coordinator,
    QuestInfo,
)
from classic_rpg.simulate.report import FATED_RESULTS
from maid_stdlib.questgen.vocabulary import ObjectiveType


class _Manager:
    def __init__(
        self, required: int, kills: bool, limit: float | None = None, first: int = 0
    ) -> None:
        """``required`` objectives, the ``first`` of them talks, then kills (or
        talks only)."""
        self.required = [
            SimpleNamespace(
                objective_type=ObjectiveType.KILL if kills and n >= first else ObjectiveType.TALK,
                order=n,
            )
            for n in range(required)
        ]
        self.limit = limit

    def get_quest(self, quest_id: str) -> Any:
        return SimpleNamespace(required=self.required, time_limit_seconds=self.limit)


class _Generation:
    def __init__(self, expiry: float, depth: int = 0) -> None:
        self.expiry = expiry
        self.depth = depth

    def open_quest(self, quest_id: str) -> Any:
        return SimpleNamespace(quest=SimpleNamespace(expiry=self.expiry, chain_depth=self.depth))


def fates(
    seed: int,
    required: int = 3,
    expiry: float = 3600.0,
    n: int = 400,
    depth: int = 0,
    kills: bool = True,
    level: int = 3,
    first: int = 0,
) -> list[str]:
    # Only what ``_fate`` reads: the quest's required objectives, its expiry, its
    # chain depth, and the bot's level and deck.
    coordinator = object.__new__(Coordinator)
    coordinator.manager = _Manager(required, kills, first=first)  # type: ignore[assignment]
    coordinator.generation = _Generation(expiry, depth)  # type: ignore[assignment]
    vars(coordinator)["level_of"] = lambda bot: level
    bot = SimpleNamespace(fate_rng=random.Random(seed), deck=[])
    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ())
    return [coordinator._fate(bot, info, 0.0) for _ in range(n)]  # type: ignore[arg-type]


def test_fates_come_from_the_bots_seeded_deck() -> None:
    drawn = fates(11)
    assert drawn == fates(11)  # reproducible
    assert drawn != fates(12)
    # Every deck holds each fate once: a bot settles, comes late and is too weak
    # once in every deck's worth of attempts that fit, whatever the seed.
    for start in range(0, len(drawn) - len(DECK) + 1, len(DECK)):
        deck = drawn[start : start + len(DECK)]
        assert sorted(deck) == sorted(DECK)


def test_a_card_that_does_not_fit_waits_for_a_quest_it_fits() -> None:
    assert "settles" not in fates(11, required=1)
    assert "late" not in fates(11, expiry=LATE_WITHIN + 1.0)
    # Too weak only for a fight that comes before half the job is done.
    assert "weak" not in fates(11, kills=False)
    assert "weak" in fates(11)
    assert "weak" in fates(11, required=3, first=1)
    assert "weak" not in fates(11, required=4, first=2)
    # The waiting card is not lost: the first quest it fits gets it.
    coordinator = object.__new__(Coordinator)
    coordinator.manager = _Manager(3, kills=False)  # type: ignore[assignment]
    coordinator.generation = _Generation(3600.0)  # type: ignore[assignment]
    vars(coordinator)["level_of"] = lambda bot: 3
    bot: Any = SimpleNamespace(fate_rng=random.Random(1), deck=["weak", ""])
    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ())
    assert coordinator._fate(bot, info, 0.0) == ""
    assert bot.deck == ["weak"]
    coordinator.manager = _Manager(3, kills=True)  # type: ignore[assignment]
    assert coordinator._fate(bot, info, 0.0) == "weak"


def test_too_late_for_a_near_deadline_of_its_own_or_of_the_opportunity() -> None:
    coordinator = object.__new__(Coordinator)
    coordinator.manager = _Manager(3, kills=False, limit=LATE_WITHIN)  # type: ignore[assignment]
    coordinator.generation = _Generation(expiry=10 * LATE_WITHIN)  # type: ignore[assignment]
    bot: Any = SimpleNamespace(fate_rng=random.Random(1), deck=["late"])
    info = QuestInfo("q", "threat_elimination", "threat_response", 0.0, 4, 3, ())
    assert coordinator._fate(bot, info, 0.0) == "late"  # its time limit runs out soon


def test_after_a_fated_failure_the_quest_goes_back_to_the_others() -> None:
    """Too weak or too late, a bot fails on purpose; the quest stays open and another
    bot may take it on (a settled or played-through attempt was the proper one)."""
    coordinator = object.__new__(Coordinator)
    failed = Attempt("gen-q", "Talker1", "talker", 3, 0.0, fate="weak", result="failed")
    vars(coordinator).update(
        attempts=[failed],
        manager=SimpleNamespace(is_open=lambda quest_id: True),
        level_of=lambda bot: 4,
    )
    info = QuestInfo("gen-q", "threat_elimination", "threat_response", 0, 4, 3, ())
    explorer: Any = SimpleNamespace(name="Explorer1")
    assert not coordinator.never_for(explorer, info)
    assert coordinator.never_for(SimpleNamespace(name="Talker1"), info)  # type: ignore[arg-type]
    failed.fate = ""  # played through and failed: that was its proper attempt
    assert coordinator.never_for(explorer, info)


def test_a_chains_follow_up_is_played_through() -> None:
    assert set(fates(11, depth=1)) == {""}


def _finished(fate: str) -> Attempt:
    """``Coordinator.finish`` on one attempt still going, of ``fate``."""
    uid = uuid4()
    attempt = Attempt("q", "Talker1", "talker", 3, 0.0, fate=fate, doing="in no hurry")
    coordinator = object.__new__(Coordinator)
    # Only what ``finish`` and ``_end`` read.
    vars(coordinator).update(
        _current={uid: attempt},
        _by_uid={uid: SimpleNamespace(quest_id="q", idle_since=0.0)},
        _claims={"q": uid},
        engine=SimpleNamespace(clock=SimpleNamespace(game_time=10.0)),
    )
    coordinator.finish()
    return attempt


def test_a_bot_still_waiting_out_its_quest_at_the_end_counts_as_fated() -> None:
    late = _finished("late")
    assert late.result == "waiting_out"
    assert late.result in FATED_RESULTS
    assert "came too late on purpose" in late.reason
    played = _finished("")
    assert played.result == "unfinished"
    assert played.result not in FATED_RESULTS


def _holding(*offers: str, fitting: bool) -> Coordinator:
    """A coordinator that knows one generated quest, ``gen-q``, which may be any
    bot's or none's, and a bot holding ``offers`` unanswered."""
    coordinator = object.__new__(Coordinator)
    vars(coordinator).update(
        quests={"gen-q": QuestInfo("gen-q", "threat_elimination", "threat_response", 0, 4, 3, ())},
        _offered=lambda bot: list(offers),
        never_for=lambda bot, info: not fitting,
    )
    return coordinator


def test_every_bot_turns_down_a_hand_written_offer_it_will_not_play() -> None:
    # Two held unanswered would fill the offer cap and keep every generated offer away.
    for style in STYLES.values():
        bot: Any = SimpleNamespace(style=style, quest_id=None)
        assert _holding("gen-q", "road-scouts", fitting=True).unwanted_offer(bot) == "road-scouts"
        assert _holding("gen-q", fitting=True).unwanted_offer(bot) is None
        expected = "gen-q" if style.declines else None
        assert _holding("gen-q", fitting=False).unwanted_offer(bot) == expected


def test_a_bot_with_its_offers_full_makes_room_before_asking_for_its_quest() -> None:
    """Even a completionist (who keeps offers) turns one down it will not take when
    every slot is taken: the giver it walks to would offer it nothing."""
    completionist: Any = SimpleNamespace(style=STYLES["completionist"], quest_id="gen-mine")
    holding = _holding("gen-mine", "gen-q", fitting=False)
    assert holding.unwanted_offer(completionist) is None
    assert holding.unwanted_offer(completionist, making_room=True) == "gen-q"
    # the quest it is after is never the one it turns down
    assert _holding("gen-mine", fitting=False).unwanted_offer(completionist, True) is None


def test_an_offer_someone_merely_holds_is_kept_for_when_it_comes_back() -> None:
    """Turned down, an offer is never made again; the quitter's hold on a quest does
    not count, and the quest comes back when it gives up."""
    coordinator = object.__new__(Coordinator)
    quitter = Attempt("gen-q", "Quitter1", "quitter", 3, 0.0, counts=False)
    vars(coordinator).update(
        quests={"gen-q": QuestInfo("gen-q", "threat_elimination", "threat_response", 0, 4, 3, ())},
        _offered=lambda bot: ["gen-q"],
        _claims={"gen-q": uuid4()},
        attempts=[quitter],
        manager=SimpleNamespace(is_open=lambda quest_id: True),
        level_of=lambda bot: 4,
    )
    talker: Any = SimpleNamespace(style=STYLES["talker"], quest_id=None, name="Talker1")
    assert not coordinator.fits(talker, coordinator.quests["gen-q"])
    assert coordinator.unwanted_offer(talker, making_room=True) is None
    quitter.counts = True  # a proper attempt: the quest will not be the talker's
    assert coordinator.unwanted_offer(talker) == "gen-q"


def test_after_the_run_only_the_runs_own_quests_are_taken_on() -> None:
    """The world runs on after the last day so that quests generated late can be
    finished: a quest of the run is still taken on (a bot busy until the end would
    otherwise leave it to expire), one generated after the end is not."""
    coordinator = object.__new__(Coordinator)
    vars(coordinator).update(
        attempts=[],
        manager=SimpleNamespace(is_open=lambda quest_id: True),
        level_of=lambda bot: 3,
        claims_until=100.0,
        _claims={},
    )
    talker: Any = SimpleNamespace(name="Talker1")
    late = QuestInfo("gen-late", "threat_elimination", "threat_response", 99.0, 2, 1, ())
    after = QuestInfo("gen-after", "threat_elimination", "threat_response", 101.0, 2, 1, ())
    assert coordinator.fits(talker, late)
    assert not coordinator.fits(talker, after)
    coordinator._claims["gen-late"] = talker
    assert not coordinator.fits(talker, late)
