"""Short handles players type for a quest: its number in ``quests`` or a word of its title.

Ids such as ``gen-threat_elimination-6c09f8f3`` are for admins; a player reads
"accept 2" or "accept smithy". A handle word is a word of the title that no other
quest in the player's list shares, so typing it picks exactly that quest; a word
several quests share lists them instead of guessing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["HandleMatch", "handle_word", "match_handle", "title_words"]

# Words that say nothing about which quest is meant.
_STOPWORDS = frozenset(
    "a an the of to at in on for and or with from by into over under about "
    "its his her their our your my some this that these those".split()
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def title_words(title: str) -> list[str]:
    """The title's significant words, lower case, possessives cut ("Gundrik's" -> gundrik)."""
    out: list[str] = []
    for raw in _WORD.findall(title.casefold()):
        word = raw[:-2] if raw.endswith("'s") else raw
        if len(word) >= 3 and word not in _STOPWORDS and not word.isdigit() and word not in out:
            out.append(word)
    return out


def handle_word(title: str, others: Sequence[str]) -> str | None:
    """A word of ``title`` that none of the ``others`` titles has (the last such
    word: a title's head noun tends to come last, "Trouble at the Smithy"), or None."""
    taken = {w for other in others for w in title_words(other)}
    free = [w for w in title_words(title) if w not in taken]
    return free[-1] if free else None


@dataclass(frozen=True)
class HandleMatch:
    """The positions (0-based) in the list that ``what`` may mean."""

    positions: tuple[int, ...]

    @property
    def unique(self) -> int | None:
        return self.positions[0] if len(self.positions) == 1 else None


def match_handle(titles: Sequence[str], what: str) -> HandleMatch:
    """Which of ``titles`` the typed words mean: the exact title, else titles
    starting with them, else titles with a word starting with each typed word."""
    low = " ".join(what.casefold().split())
    if not low:
        return HandleMatch(())
    exact = tuple(i for i, t in enumerate(titles) if t.casefold() == low)
    if exact:
        return HandleMatch(exact)
    prefix = tuple(i for i, t in enumerate(titles) if t.casefold().startswith(low))
    if prefix:
        return HandleMatch(prefix)
    typed = title_words(low) or low.split()
    found = tuple(
        i
        for i, t in enumerate(titles)
        if all(any(w.startswith(x) for w in title_words(t)) for x in typed)
    )
    return HandleMatch(found)
