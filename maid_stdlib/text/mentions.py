"""Named mentions in prose, and which of them a list of facts backs.

A model is told to use only the names it is given. To check that it did, the
named entities of its answer are read off the text: runs of capitalised words
("Captain Voss", "the Old Trade Road"), joined by "of"/"the" ("Lord of the
Vale"). A capitalised word that only opens a sentence or a line is a name only
when it is not an ordinary word (an article, a pronoun, a verb, a word the facts
use in lower case). A mention is backed when its words appear, in order, in
the known names or fact texts ("Voss" backs on "Captain Voss").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from maid_stdlib.text.lint import IMPERATIVE_VERBS

__all__ = ["named_mentions", "unmatched_mentions"]

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*|[.!?:;\"\u201c\u201d\n]")
_JOINERS = frozenset({"of", "the"})
#: Words that open sentences without being names.
_COMMON = frozenset(
    """
    a an the i it we you he she they this that these those there then now but and so or
    if when what who whom whose which where why how will would could can shall should may
    might must please thank thanks yes no not never always only even just still also yet
    my our your his her their its me us him them as at in on for with without after
    before since while until from to by into over under about against between through
    first finally once soon here every each all some any nobody someone something nothing
    everyone anyone one two three many much more most few good well very too back be is
    are was were been have has had do does did let come keep stay look listen hurry
    perhaps maybe aye oh ah alas nay sir madam friend stranger traveller adventurer
    i'll i'm i've i'd you'll you're we'll we're it's that's there's don't can't won't
    """.split()
)
#: Words a name is often given with ("Miller Hollin", "Captain Voss").
_TITLES = frozenset(
    """
    captain warden miller smith master mistress lord lady sir dame old young brother
    sister father mother elder guard sergeant merchant farmer innkeeper
    """.split()
)


def named_mentions(text: str, common: Iterable[str] = ()) -> list[str]:
    """The named entities of ``text``, in order (duplicates kept: each is a mention)."""
    ordinary = _COMMON | IMPERATIVE_VERBS | {w.lower() for w in common}
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    run: list[str] = []
    start = True  # the next word opens a sentence

    def flush() -> None:
        while run and run[-1].lower() in _JOINERS:
            run.pop()
        if run:
            out.append(" ".join(run))
        run.clear()

    for i, tok in enumerate(tokens):
        if not tok[0].isalpha():
            flush()
            start = True
            continue
        opening, start = start, False
        if tok[0].isupper():
            if opening and not run and tok.lower() in ordinary:
                continue
            if tok.lower() in ("the",) and not run:
                continue
            run.append(tok)
        elif tok in _JOINERS and run and _capital_after(tokens, i + 1):
            run.append(tok)
        else:
            flush()
    flush()
    return [m for m in out if m.lower() not in ordinary]


def _capital_after(tokens: list[str], i: int) -> bool:
    """Whether the next word after any joiners is capitalised ("Lord of the Vale")."""
    while i < len(tokens) and tokens[i] in _JOINERS:
        i += 1
    return i < len(tokens) and tokens[i][:1].isupper()


def _words(text: str) -> list[str]:
    return [w.lower().removesuffix("'s") for w in re.findall(r"[A-Za-z][A-Za-z'\-]*", text)]


def unmatched_mentions(mentions: Iterable[str], known: Iterable[str]) -> list[str]:
    """The ``mentions`` whose words do not appear, in order, in any of ``known``."""
    # "the" is left out on both sides: a mention drops it, so a name with one inside
    # ("the Chapel of the Deep Lamp") must drop it too to be found.
    haystacks = [" " + " ".join(w for w in _words(k) if w != "the") + " " for k in known if k]
    missing = []
    for mention in mentions:
        words = [w for w in _words(mention) if w != "the"]
        if not words:
            continue
        while len(words) > 1 and words[0] in _TITLES:
            words = words[1:]
        needle = " " + " ".join(words) + " "
        if not any(needle in h for h in haystacks):
            missing.append(mention)
    return missing
