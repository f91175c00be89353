"""English morphology for generated prose, on top of ``inflect``.

Hand rules for plurals and articles break on the first "wolf", "hour" or
"lump of iron ore"; ``inflect`` knows them. The engine is built on first use,
not at import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from maid_engine.english import english

__all__ = [
    "counted",
    "counted_line",
    "definite",
    "indefinite",
    "is_plural",
    "join",
    "plural",
    "possessive",
    "sentence_case",
    "strip_article",
    "third_singular",
    "verb_for",
]

_ARTICLES = ("a ", "an ", "the ", "some ")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+|\n\s*)([\"'\u201c\u2018(]?)([a-z])")


def strip_article(noun: str) -> str:
    """``noun`` without a leading article ("the bandits" -> "bandits")."""
    text = noun.strip()
    lowered = text.lower()
    for article in _ARTICLES:
        if lowered.startswith(article):
            return text[len(article) :]
    return text


def _has_article(noun: str) -> bool:
    return noun.strip().lower().startswith(_ARTICLES)


def is_proper(noun: str) -> bool:
    """A name ("Kral", "Old Trade Road"): it starts with a capital letter."""
    text = noun.strip()
    return bool(text) and text[0].isupper() and not _has_article(text)


def is_plural(noun: str) -> bool:
    """Whether the head noun is plural ("bandits", "the grey wolves", "men")."""
    head = strip_article(noun).split(" of ")[0].split()
    if not head:
        return False
    return _plural_word(head[-1].strip(".,;:!?").lower())


@lru_cache(maxsize=4096)
def _plural_word(last: str) -> bool:
    # The living world asks about the same few threat names for thousands of NPCs
    # each tick; inflect's rules are tens of microseconds a word.
    if last in _SINGULAR_S:
        return False
    return bool(english().singular_noun(last))


# Words inflect would read as plurals that are singular in prose.
_SINGULAR_S = frozenset({"ss", "news", "gas", "lens", "moss", "pass", "boss", "glass"})


def indefinite(noun: str) -> str:
    """ "a lump of iron ore", "an hour"; a plural or a name stays as it is."""
    text = noun.strip()
    if not text or _has_article(text) or is_proper(text) or is_plural(text):
        return text
    return str(english().a(text))


def definite(noun: str) -> str:
    """ "the lump of iron ore"; a name stays as it is ("Kral")."""
    text = noun.strip()
    if not text or is_proper(text):
        return text
    return "the " + strip_article(text)


def plural(noun: str) -> str:
    """ "bandit scouts", "wolves", "lumps of iron ore" (article dropped)."""
    base = strip_article(noun)
    if not base or is_plural(base):
        return base
    return str(english().plural_noun(base))


def counted(count: int, noun: str) -> str:
    """ "a bandit scout" for one, "3 bandit scouts" for more."""
    if count == 1:
        return indefinite(strip_article(noun))
    return f"{count} {plural(noun)}"


def counted_definite(count: int, noun: str) -> str:
    """ "the lump of iron ore" for one, "the 3 lumps of iron ore" for more: what was
    counted out before, spoken of again."""
    return definite(noun) if count == 1 else f"the {counted(count, noun)}"


#: Third-person verbs inflect reads as plural nouns ("lies" -> "ly").
_PLURAL_VERBS = {"lies": "lie", "dies": "die", "ties": "tie", "vies": "vie"}
#: After the name: an aside between commas ("a plough share, not yet fetched,"),
#: then the verb and the rest.
#: What one says of itself, said of several ("click its mandibles" -> "their").
_THEIR = {"its": "their", "his": "their", "itself": "themselves", "himself": "themselves"}
_OWN = re.compile(r"\b(?:its|his|itself|himself)\b", re.IGNORECASE)
_LINE_VERB = re.compile(r"(,[^,]+,)?\s+([A-Za-z]+)\b(.*)$", re.S)


@lru_cache(maxsize=4096)
def counted_line(line: str, name: str, count: int) -> str | None:
    """A line about one thing said of ``count`` of them: "A grey wolf slinks between
    the hazels." and 3 -> "Three grey wolves slink between the hazels." None when
    the line does not start with the thing's name (its article too) and a verb in
    the third person, which is all it can rewrite."""
    noun = name.strip()
    if not noun or is_proper(noun) or count < 2:
        return None
    head = noun if _has_article(noun) else indefinite(noun)
    text = line.strip()
    if not text.lower().startswith(head.lower()):
        return None
    found = _LINE_VERB.match(text[len(head) :])
    if found is None:
        return None
    aside, verb, tail = found.groups()
    lowered = verb.lower()
    if lowered in _PLURAL_VERBS:
        verb = _PLURAL_VERBS[lowered]
    elif lowered in ("is", "has", "was", "does") or (
        lowered.endswith("s") and not lowered.endswith("ss")
    ):
        verb = str(english().plural_verb(verb))
    else:
        return None
    number = str(english().number_to_words(str(count))) if count <= 12 else str(count)
    tail = _OWN.sub(lambda m: _THEIR[m.group(0).lower()], tail)
    return f"{number[:1].upper()}{number[1:]} {plural(noun)}{aside or ''} {verb}{tail}"


def possessive(name: str) -> str:
    """ "Captain Voss's", "the bandits'"."""
    text = name.strip()
    if text.endswith("s") and is_plural(text) and not is_proper(text):
        return text + "'"
    return text + "'s"


def third_singular(verb: str) -> str:
    """The third person singular of a base-form verb: want -> wants, go -> goes."""
    word = verb.strip()
    irregular = {"be": "is", "am": "is", "are": "is", "have": "has", "do": "does", "go": "goes"}
    lowered = word.lower()
    if lowered in irregular:
        return irregular[lowered]
    if re.search(r"(s|sh|ch|x|z|o)$", lowered):
        return word + "es"
    if re.search(r"[^aeiou]y$", lowered):
        return word[:-1] + "ies"
    return word + "s"


def verb_for(subject: str, verb: str) -> str:
    """``verb`` (base form) agreeing with ``subject``: "Voss wants", "the guards want"."""
    return verb if is_plural(subject) and not is_proper(subject) else third_singular(verb)


def join(items: Iterable[str], conjunction: str = "and") -> str:
    """ "A", "A and B", "A, B and C"."""
    parts = [i for i in items if i]
    if len(parts) <= 1:
        return parts[0] if parts else ""
    return ", ".join(parts[:-1]) + f" {conjunction} " + parts[-1]


def sentence_case(text: str) -> str:
    """Capitalise the first letter of every sentence, and nothing else."""
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2) + m.group(3).upper(), text)
