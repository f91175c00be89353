"""A lint for generated English: the defects players noticed in generated quests.

:func:`lint_text` checks one text in its slot: ``"third"`` (a narrator talking
about someone: a summary, a description), ``"first"`` (someone speaking: dialogue),
``"objective"`` (an imperative step: "Bring the ore to the smith"), ``"title"``.
``names`` are the proper names the text may contain (people, places): they are
never mistaken for verbs or sentence errors. The checks are deliberately about
the common patterns, so that a clean text really has no defect a reader would
stop at; each returns the offending excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from maid_stdlib.text.morph import is_plural
from maid_stdlib.text.place import with_article
from maid_stdlib.text.voice import is_first_person

__all__ = ["IMPERATIVE_VERBS", "Defect", "Slot", "lint_text"]

Slot = Literal["third", "first", "objective", "title"]


@dataclass(frozen=True)
class Defect:
    """One problem: its kind (a fixed set, to count by) and where it is."""

    kind: str
    excerpt: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.excerpt!r}"


#: Imperative verbs of quest steps; capitalised in mid-sentence, they were pasted in.
IMPERATIVE_VERBS = frozenset(
    """
    talk speak travel go visit defeat kill slay clear destroy collect gather bring deliver
    fetch retrieve find locate search examine investigate question ask learn discover
    escort protect defend guard rescue free return report meet negotiate convince persuade
    choose decide side craft make forge repair build buy sell trade help warn follow track
    hunt explore scout reach recover obtain acquire give take carry lead confront stop hear
    tell settle back steal
    """.split()
)
#: Verbs whose object is a thing: a singular count noun right after them needs a determiner.
_OBJECT_VERBS = frozenset(
    "bring obtain fetch deliver carry take give collect retrieve recover find steal buy".split()
)
_DETERMINERS = frozenset(
    """
    a an the some any this that these those my your his her their our its every each all
    both no one two three four five six seven eight nine ten several many few enough more
    another what whatever which
    """.split()
)
#: Words after such a verb that need no article (pronouns, particles, mass nouns).
_NO_ARTICLE = frozenset(
    """
    them him her it me us you back out up down word news help peace justice food water ore
    iron gold silver coal stone timber wood grain bread ale wine meat supplies evidence
    information proof aid home everyone everything someone something anyone anything nothing
    together safely along away care heart place part time note action aim cover charge
    hold advantage sides shelter
    """.split()
)
_SENTENCE = re.compile(r"(?:^|(?<=[.!?])\s+|\n+)([\"'\u201c\u2018(]*)([^\s])")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")
_SNAKE = re.compile(r"\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b")
_ID = re.compile(
    r"\bgen-[a-z0-9_-]+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}\b|\b[a-z][a-z0-9_]*:[a-z0-9_]+\b"
)
_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,40}\}|\[[^\]\n]{0,30}\]|<[a-z_ ]{1,30}>|\bNone\b")
_RAW_PLACE = re.compile(r"\b[A-Z][\w']*(?: [A-Z][\w']*)*, The [A-Z][\w']*")
_WHAT_WANT = re.compile(
    r"\bwhat ((?:[A-Z][\w']*)(?: [A-Z][\w']*)*) (want|need|know|think|say|mean|feel|fear)\b"
)
_PRONOUN_AGREEMENT = re.compile(
    r"\b(?:he|she|it) (?:want|need|know|have|do|are|were|don't)\b"
    r"|\bthey (?:wants|needs|knows|has|does|is|was|doesn't)\b",
    re.IGNORECASE,
)


def _sentence_starts(text: str) -> list[tuple[int, str]]:
    return [(m.start(2), m.group(2)) for m in _SENTENCE.finditer(text)]


def _name_spans(text: str, names: Iterable[str]) -> list[tuple[int, int]]:
    spans = []
    for name in names:
        if name:
            spans += [(m.start(), m.end()) for m in re.finditer(re.escape(name), text)]
    return spans


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


_GONE = re.compile(r"\b(?:the )?([a-z][a-z ]{2,30}?) (?:are|is) (?:gone|no longer)\b", re.I)
_PRESENT = re.compile(
    r"\b(?:the )?([a-z][a-z ]{2,30}?) (?:threatens?|are near|is near|are on|is on|are at|is at|"
    r"have been seen|has been seen)\b",
    re.I,
)
#: Verbs that, after a name, make what follows a preposition a whole clause
#: ("help with Selena blames the guard..."): a sentence pasted where a topic goes.
_CLAUSE_VERBS = (
    "blames wants needs says thinks fears hates owes refuses accuses claims threatens "
    "stands believes knows demands insists swears"
)
_CLAUSE_ALT = "|".join(_CLAUSE_VERBS.split())
_PASTED = re.compile(
    rf"\b(?:with|over|about|of) ((?:[A-Z][\w']*)(?: [A-Z][\w']*)*) (?:{_CLAUSE_ALT})\b"
)
_PLACE_AFTER = re.compile(
    r"\b(?:on|at|in|from|near|to|around|along|off|past) ((?:[A-Z][\w']*)(?: (?:[A-Z][\w']*|of))*)"
)
_CAPITAL_THE = re.compile(r"\b([a-z][a-z']*) (The [A-Z][\w']*)")


def _sentences_of(text: str) -> list[tuple[int, str]]:
    """``(start, sentence)`` of each sentence of ``text``."""
    out = []
    for m in re.finditer(r"[^.!?\n]+[.!?]*", text):
        if m.group(0).strip():
            out.append((m.start(), m.group(0)))
    return out


def _outside(text: str, name: str, names: list[str]) -> list[int]:
    """Where ``name`` occurs in ``text`` other than inside a longer known name
    ("Gundrik" in "Gundrik's Smithy")."""
    longer = [n for n in names if n != name and name in n]
    spans = _name_spans(text, longer)
    return [m.start() for m in re.finditer(re.escape(name), text) if not _inside(m.start(), spans)]


def lint_text(
    text: str, slot: Slot = "third", names: Iterable[str] = (), speaker: str = ""
) -> list[Defect]:
    """The defects of ``text`` in ``slot`` (empty: it reads well). ``speaker`` is
    whose text it is (the quest's giver): in their own voice they never name
    themselves, and a sentence about them names them once."""
    found: list[Defect] = []
    names = [n for n in names if n]
    if speaker:
        found += _speaker_defects(text, slot, speaker, names)
    gone = {m.group(1).lower() for m in _GONE.finditer(text)}
    for m in _PRESENT.finditer(text):
        if m.group(1).lower() in gone:
            found.append(Defect("contradiction", f"{m.group(0)} / {m.group(1)} are gone"))
    for m in _PASTED.finditer(text):
        found.append(Defect("pasted_clause", m.group(0)))
    for m in _CAPITAL_THE.finditer(text):
        if not _inside(m.start(2), _name_spans(text, names)):
            found.append(Defect("capitalised_article_mid_sentence", m.group(0)))
    if slot != "title":
        for m in _PLACE_AFTER.finditer(text):
            place = m.group(1).removesuffix(" of")
            if with_article(place) != place and not place.startswith("The "):
                found.append(Defect("missing_article", m.group(0)))
    if slot != "title" and re.search(r"[\"\u201c\u201d]", text):
        found.append(Defect("quoted_text", text[:60]))
    spans = _name_spans(text, names)
    starts = {pos for pos, _ in _sentence_starts(text)}
    for pos, char in _sentence_starts(text):
        if char.isalpha() and char.islower():
            found.append(Defect("lowercase_sentence_start", text[pos : pos + 30]))
    for m in _SNAKE.finditer(text):
        found.append(Defect("internal_id", m.group(0)))
    for m in _ID.finditer(text):
        found.append(Defect("internal_id", m.group(0)))
    for m in _PLACEHOLDER.finditer(text):
        if m.group(0) == "None" and m.start() in starts:
            continue  # the English word ("None since."), not a missing value
        found.append(Defect("unfilled_placeholder", m.group(0)))
    for m in _RAW_PLACE.finditer(text):
        if slot != "title":
            found.append(Defect("raw_place_name", m.group(0)))
    if slot == "third" and is_first_person(text):
        found.append(Defect("first_person_in_third_person_slot", text[:60]))
    if slot == "title":
        return found
    words = list(_WORDS.finditer(text))
    for i, m in enumerate(words):
        word = m.group(0)
        if i == 0 or m.start() in starts or _inside(m.start(), spans):
            continue
        before = text[words[i - 1].end() : m.start()]
        previous = words[i - 1].group(0)
        if (
            word[0].isupper()
            and word.lower() in IMPERATIVE_VERBS
            and previous[0].islower()
            and previous.lower() not in _DETERMINERS
            and not re.search(r"[.!?:;\"\u201c]", before)
        ):
            found.append(Defect("capitalised_verb_mid_sentence", f"{previous} {word}"))
    for i, m in enumerate(words[:-1]):
        if m.group(0).lower() not in _OBJECT_VERBS or _inside(m.start(), spans):
            continue
        nxt = words[i + 1]
        noun = nxt.group(0)
        if noun[0].isupper() or noun.lower() in _DETERMINERS or noun.lower() in _NO_ARTICLE:
            continue
        if text[m.end() : nxt.start()] != " ":
            continue
        if not is_plural(_head(text[nxt.start() :])):
            found.append(Defect("missing_article", f"{m.group(0)} {_head(text[nxt.start() :])}"))
    for m in _WHAT_WANT.finditer(text):
        subject = m.group(1)
        if not is_plural(subject) or subject in names:
            found.append(Defect("subject_verb_agreement", m.group(0)))
    for m in _PRONOUN_AGREEMENT.finditer(text):
        found.append(Defect("subject_verb_agreement", m.group(0)))
    return found


def _speaker_defects(text: str, slot: Slot, speaker: str, names: list[str]) -> list[Defect]:
    if slot == "first":
        if _outside(text, speaker, names):
            return [Defect("speaker_names_self", speaker)]
        return []
    if slot != "third":
        return []
    found = []
    for _start, sentence in _sentences_of(text):
        at = _outside(sentence, speaker, names)
        opens = sentence.lstrip().startswith(speaker) or sentence.lstrip().lower().startswith(
            f"the {speaker.lower()}"
        )
        if opens and len(at) > 1:
            found.append(Defect("speaker_named_again", sentence.strip()[:80]))
    return found


def _head(phrase: str) -> str:
    """The noun phrase at the start of ``phrase`` up to "to"/"for"/"from" or punctuation."""
    words = []
    for word in re.split(r"\s+", phrase):
        bare = word.strip(".,;:!?")
        if bare.lower() in {"to", "for", "from", "so", "and", "at", "in", "on", "with", "back"}:
            break
        words.append(bare)
        if bare != word:
            break
    return " ".join(words)
