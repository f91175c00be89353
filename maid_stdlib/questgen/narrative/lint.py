"""The text lint over generated quests: every text a player reads, in its slot.

:func:`quest_texts` lists a quest's texts with the slot each is read in (the
title; the summary and description, about the giver; the objectives, imperative
steps; the giver's offer, progress and thanks, in the giver's voice).
:func:`lint_quest` runs :func:`maid_stdlib.text.lint_text` over them;
:class:`TitleLog` adds the one check that needs the other quests: a title used
again by the same giver among their recent quests, or twice in one game day.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from maid_stdlib.questgen.quest import GeneratedQuest
from maid_stdlib.text.lint import Defect, Slot, lint_text
from maid_stdlib.text.morph import definite, is_proper

__all__ = ["LintReport", "TitleLog", "lint_quest", "quest_texts"]

#: A giver's title may not repeat among their last this many quests.
GIVER_RECENT = 5
GAME_DAY = 86_400.0


def quest_texts(quest: GeneratedQuest) -> list[tuple[str, Slot, str]]:
    """``(field, slot, text)`` of every text of ``quest`` a player reads."""
    d = quest.quest_giver_dialogue
    out: list[tuple[str, Slot, str]] = [
        ("title", "title", quest.title),
        ("summary", "third", quest.summary),
        ("description", "third", quest.detailed_description),
    ]
    out += [(f"objective {o.order}", "objective", o.description) for o in quest.objectives]
    out += [("offer", "first", d.offer), ("progress", "first", d.progress)]
    out.append(("completion", "first", d.completion))
    return out


def lint_quest(
    quest: GeneratedQuest, names: Iterable[str] = (), giver: str = ""
) -> list[tuple[str, Defect]]:
    """``(field, defect)`` for every defect in ``quest``'s texts; ``giver`` is the
    giver's name as the text shows it (their dialogue never names them)."""
    known = list(names)
    # A nameless giver ("a gate guard") is "the gate guard" in the text.
    shown = giver if not giver or is_proper(giver) else definite(giver)
    return [
        (where, defect)
        for where, slot, text in quest_texts(quest)
        for defect in lint_text(text, slot, known, speaker=shown if slot != "objective" else "")
    ]


@dataclass
class TitleLog:
    """Titles seen so far, to flag a repeated one."""

    by_giver: dict[str, deque[str]] = field(default_factory=dict)
    by_time: list[tuple[float, str]] = field(default_factory=list)

    def check(self, giver: str, title: str, at: float) -> Defect | None:
        mine = self.by_giver.setdefault(giver, deque(maxlen=GIVER_RECENT))
        same_day = any(t == title and at - when < GAME_DAY for when, t in self.by_time)
        repeated = title in mine or same_day
        mine.append(title)
        self.by_time.append((at, title))
        return Defect("repeated_title", title) if repeated else None


@dataclass
class LintReport:
    """Defects over many quests, for a report."""

    quests: int = 0
    texts: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    titles: TitleLog = field(default_factory=TitleLog)
    MAX_EXAMPLES = 20

    def add(self, quest: GeneratedQuest, giver: str, at: float, names: Iterable[str]) -> None:
        self.quests += 1
        self.texts += len(quest_texts(quest))
        found = lint_quest(quest, names, giver)
        # Another quest's title in this one's prose: a title pasted as a topic
        # ("the dispute over Selena or Captain Voss").
        for where, slot, text in quest_texts(quest):
            if slot == "title":
                continue
            for _, other in self.titles.by_time:
                if len(other.split()) > 1 and other != quest.title and other in text:
                    found.append((where, Defect("title_in_prose", other)))
        repeated = self.titles.check(giver, quest.title, at)
        if repeated is not None:
            found.append(("title", repeated))
        for where, defect in found:
            self.by_kind[defect.kind] += 1
            if len(self.examples) < self.MAX_EXAMPLES:
                self.examples.append(f"{quest.id} {where}: {defect}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "quests": self.quests,
            "texts": self.texts,
            "defects": sum(self.by_kind.values()),
            "by_kind": dict(sorted(self.by_kind.items())),
            "examples": list(self.examples),
        }
