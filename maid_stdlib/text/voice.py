"""A first-person memory retold in the third person.

NPC memories are written in the NPC's own voice ("I learned that bandits are on
the road"). The giver's dialogue can quote them as they are; a description that
talks *about* the giver needs "Selena learned that bandits are on the road".
The first "I" of a sentence becomes the name, later ones "they"; the verb after
it agrees. A memory about a group ("we", "our") cannot be retold faithfully
without knowing the group, so :func:`third_person` gives None for it.
"""

from __future__ import annotations

import re

from maid_stdlib.text.morph import third_singular

__all__ = ["is_first_person", "third_person"]

_FIRST_SINGULAR = re.compile(r"\b(I|I'm|I've|I'd|I'll|me|my|mine|myself)\b")
_FIRST_PLURAL = re.compile(r"\b(we|us|our|ours|ourselves|we're|we've)\b", re.IGNORECASE)
_FIRST_PLURAL_SAFE = re.compile(r"\bUS\b")
_WORD = re.compile(r"[A-Za-z']+|[^A-Za-z']+")

# Verbs that read the same after any subject: modals and common past forms.
_INVARIANT = frozenset(
    """
    can cannot could will would shall should may might must was were had did said saw heard
    found lost knew thought told got met went came took gave made left kept felt fought sold
    bought caught ran won tried hoped wanted needed learned learnt watched never still
    also only once always often already just
    """.split()
)
_CONTRACTIONS = {"I'm": ("is", "are"), "I've": ("has", "have"), "I'd": ("would", "would")}
_CONTRACTIONS["I'll"] = ("will", "will")
_BE_HAVE = {"am": ("is", "are"), "have": ("has", "have"), "do": ("does", "do")}
_DONT = {"don't": ("doesn't", "don't"), "haven't": ("hasn't", "haven't")}
_OBJECT = {"me": "them", "myself": "themselves", "mine": "theirs"}


def is_first_person(text: str) -> bool:
    """Whether ``text`` speaks as "I" or "we"."""
    return bool(_FIRST_SINGULAR.search(text) or _plural_first(text))


def _plural_first(text: str) -> bool:
    return any(m.group(0) != "US" for m in _FIRST_PLURAL.finditer(text))


def _verb(word: str, named: bool) -> str:
    """The verb after the subject, for a name (``named``) or for "they"."""
    lowered = word.lower()
    if lowered in _BE_HAVE:
        return _BE_HAVE[lowered][0 if named else 1]
    if lowered in _DONT:
        return _DONT[lowered][0 if named else 1]
    if lowered in _INVARIANT or lowered.endswith(("ed", "n't")) or not named:
        return word
    return third_singular(word)


def third_person(text: str, name: str) -> str | None:
    """``text`` about ``name`` instead of by them; None when it speaks for a group."""
    if _plural_first(text):
        return None
    out: list[str] = []
    named = False  # the name was used in this sentence already
    tokens = _WORD.findall(text)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok[0].isalpha():
            out.append(tok)
            if re.search(r"[.!?]", tok):
                named = False
            i += 1
            continue
        if tok == "I" or tok in _CONTRACTIONS:
            subject = "they" if named else name
            if tok in _CONTRACTIONS:
                out.append(f"{subject} {_CONTRACTIONS[tok][0 if not named else 1]}")
            else:
                out.append(subject)
                # the verb: skip the space, then agree it
                if i + 2 < len(tokens) and tokens[i + 1] == " " and tokens[i + 2][0].isalpha():
                    out.append(" ")
                    out.append(_verb(tokens[i + 2], not named))
                    i += 2
            named = True
            i += 1
            continue
        if tok == "my":
            out.append("their" if named else f"{name}'s")
            named = True
        elif tok in _OBJECT:
            out.append(_OBJECT[tok] if named else name)
            named = True
        else:
            out.append(tok)
        i += 1
    return "".join(out)
