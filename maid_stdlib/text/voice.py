"""A first-person memory retold in the third person.

NPC memories are written in the NPC's own voice ("I learned that bandits are on
the road"). The giver's dialogue can quote them as they are; a description that
talks *about* the giver needs "Selena learned that bandits are on the road".
The first "I" of a sentence becomes the name, later ones the person's pronoun
("they" unless told "he" or "she"); the verb after it agrees. "Mine" becomes
"Selena's" (or "hers"), never the bare name. A memory about a group ("we",
"our") cannot be retold faithfully without knowing the group, so
:func:`third_person` gives None for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from maid_stdlib.text.morph import third_singular
from maid_stdlib.text.pronouns import DEFAULT_PRONOUNS, Pronouns

__all__ = ["in_own_voice", "is_first_person", "third_person"]

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


#: Words before "mine" that make it the place ores come from, not "my own".
_MINE_NOUN_BEFORE = frozenset(
    "the a an this that his her their its our your every old deep iron".split()
)


def _is_the_mine(previous: str, after: str) -> bool:
    """Whether "mine" (after the word ``previous``, followed by ``after``) names a
    mine: "the mine's wage chest", "the old mine"; "it is mine" speaks as "I"."""
    return previous.lower() in _MINE_NOUN_BEFORE or after.startswith("'s")


def is_first_person(text: str) -> bool:
    """Whether ``text`` speaks as "I" or "we"."""
    for m in _FIRST_SINGULAR.finditer(text):
        if m.group(0) != "mine":
            return True
        before = re.findall(r"[A-Za-z']+", text[: m.start()])
        if not _is_the_mine(before[-1] if before else "", text[m.end() :]):
            return True
    return _plural_first(text)


def _plural_first(text: str) -> bool:
    return any(m.group(0) != "US" for m in _FIRST_PLURAL.finditer(text))


def _verb(word: str, singular: bool) -> str:
    """The verb after the subject: a name or "he" (``singular``), or "they"."""
    lowered = word.lower()
    if lowered in _BE_HAVE:
        return _BE_HAVE[lowered][0 if singular else 1]
    if lowered in _DONT:
        return _DONT[lowered][0 if singular else 1]
    if lowered in _INVARIANT or lowered.endswith(("ed", "n't")) or not singular:
        return word
    return third_singular(word)


def third_person(text: str, name: str, pronouns: Pronouns = DEFAULT_PRONOUNS) -> str | None:
    """``text`` about ``name`` instead of by them; None when it speaks for a group.

    ``pronouns`` are the person's, for the second and later mentions."""
    if _plural_first(text):
        return None
    out: list[str] = []
    named = False  # the name was used in this sentence already
    tokens = _WORD.findall(text)
    first_word = name.split()[0] if name.split() else ""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok[0].isalpha():
            out.append(tok)
            if re.search(r"[.!?]", tok):
                named = False
            i += 1
            continue
        if first_word and tok == first_word and "".join(tokens[i:]).startswith(name):
            # The memory names its owner already ("A stranger helped Selena when I
            # ..."): the "I" after it is "they", never the name a second time.
            named = True
        if tok == "I" or tok in _CONTRACTIONS:
            subject = pronouns.subject if named else name
            singular = not named or not pronouns.plural_verbs
            if tok in _CONTRACTIONS:
                out.append(f"{subject} {_CONTRACTIONS[tok][0 if singular else 1]}")
            else:
                out.append(subject)
                # the verb: skip the space, then agree it
                if i + 2 < len(tokens) and tokens[i + 1] == " " and tokens[i + 2][0].isalpha():
                    out.append(" ")
                    out.append(_verb(tokens[i + 2], singular))
                    i += 2
            named = True
            i += 1
            continue
        if tok == "my":
            out.append(pronouns.determiner if named else f"{name}'s")
            named = True
        elif tok == "mine" and _is_the_mine(_previous_word(tokens, i), ""):
            out.append(tok)
        elif tok == "mine":  # "the pick is mine": the owner's, not the owner
            out.append(pronouns.possessive if named else f"{name}'s")
            named = True
        elif tok in ("me", "myself"):
            reflexive = tok == "myself"
            out.append((pronouns.reflexive if reflexive else pronouns.object) if named else name)
            named = True
        else:
            out.append(tok)
        i += 1
    return "".join(out)


#: Verbs that change after "I" (the rest read the same: "will", "can", "said").
_AFTER_I = {"is": "am", "was": "was", "has": "have", "does": "do", "doesn't": "don't"}
_AUX = frozenset(
    """
    will would can could shall should may might must is was has had does did cannot wants
    needs knows means fears hopes thinks asks stands
    """.split()
)


def in_own_voice(text: str, name: str, keep: Iterable[str] = ()) -> str:
    """``text`` as ``name`` says it: their name becomes "I", "me" or "my".

    Used for the giver's dialogue, where a step written for the quest log ("Tell
    the gate guard that Captain Voss will stand with them") must not have the
    speaker talk about themselves by name. A name inside a longer name in
    ``keep`` ("Gundrik's Smithy") is left alone.
    """
    if not name or name not in text:
        return text
    protected = [
        (m.start(), m.end())
        for k in keep
        if k and k != name and name in k
        for m in re.finditer(re.escape(k), text)
    ]
    pattern = re.compile(rf"(?<![\w'])(?:the )?{re.escape(name)}(?:'s\b)?(?:\s+([A-Za-z']+))?")
    out: list[str] = []
    last = 0
    for m in pattern.finditer(text):
        if any(a <= m.start() < b for a, b in protected):
            continue
        before = text[: m.start()]
        starts = not before.strip() or bool(re.search(r"[.!?]\s*[\"\u201c]?$", before))
        matched = m.group(0)
        nxt = m.group(1) or ""
        core = matched[: len(matched) - len(nxt)].rstrip() if nxt else matched
        if core.endswith("'s"):
            word = "My" if starts else "my"
            rest = matched[len(core) :]
        elif nxt and nxt.lower() in _AUX:
            word = "I"
            verb = _AFTER_I.get(
                nxt,
                nxt[:-1] if nxt.endswith("s") and nxt not in {"is", "was", "has", "does"} else nxt,
            )
            rest = matched[len(core) : len(matched) - len(nxt)] + verb
        else:
            word = "I" if starts else "me"
            rest = matched[len(core) :]
        out.append(text[last : m.start()] + word + rest)
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def _previous_word(tokens: list[str], i: int) -> str:
    for tok in reversed(tokens[:i]):
        if tok[0].isalpha():
            return tok
    return ""
