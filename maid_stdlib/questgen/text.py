"""Small text helpers shared by the pipeline: topic tokens, slugs, joining names."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["is_prose", "join_names", "mentions", "slugify", "topic_tokens"]

_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    """the a an and or of on in at to for from with by about into onto over under
    his her their its our your my this that these those some any all been being was
    were are is be has have had not but who whom which what when where why how
    there here near around road way""".split()
)


def _stem(word: str) -> str:
    # Enough to make "bandits" meet "bandit" and "thieves" meet "thief"; this is
    # for matching topics, not linguistics.
    if word.endswith("ves") and len(word) > 4:
        return word[:-3] + "f"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def topic_tokens(*texts: str | None) -> set[str]:
    """Significant, stemmed words of ``texts`` (stop words and short words dropped)."""
    out: set[str] = set()
    for text in texts:
        if text:
            out |= _tokens(text)
    return out


@lru_cache(maxsize=8192)
def _tokens(text: str) -> frozenset[str]:
    # The same names, sources and memories are matched over and over (every
    # threat of an area against a quest's source, each time a seed is built).
    out = set()
    for word in _WORD.findall(text.lower().replace("_", " ")):
        word = word.strip("'")
        if len(word) < 3 or word in _STOP:
            continue
        out.add(_stem(word))
    return frozenset(out)


def mentions(text: str, *topics: str | None) -> bool:
    """Whether ``text`` shares a significant word with any of ``topics``."""
    wanted = topic_tokens(*topics)
    return bool(wanted) and bool(wanted & topic_tokens(text))


def slugify(text: str, limit: int = 50) -> str:
    """A QuestManager-valid id fragment: lower-case letters, digits, '-', '_'."""
    slug = re.sub(r"[^a-z0-9_\-]+", "-", text.lower()).strip("-_")
    return (slug or "x")[:limit].rstrip("-_") or "x"


def join_names(names: Iterable[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    items = [n for n in names if n]
    if len(items) <= 1:
        return items[0] if items else ""
    return ", ".join(items[:-1]) + " and " + items[-1]


_INTERNAL = re.compile(r"_|\b[a-z0-9]+:[a-z0-9]")


def is_prose(text: str | None) -> bool:
    """Whether ``text`` may be shown to a player as it is: words ("the stolen
    caravan"), not a key ("follow_up", "pack:item")."""
    value = (text or "").strip()
    return bool(value) and not _INTERNAL.search(value)
