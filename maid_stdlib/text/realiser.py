"""A small grammar over typed facts: templates rendered sentence by sentence.

A template is plain English with slots, ``"{npc} wants to {goal}."``; a slot may
ask for a form of its value, ``{threat.the}``, ``{npc.poss}``, ``{threat.v_threaten}``
(the verb agreeing with the value). Each value is a :class:`Phrase`: its forms, and
the keys of the facts it stands on. Rendering keeps the template's sentences
apart, drops a sentence whose slot has no value (the world holds no such fact, so
the sentence would be invented), capitalises each sentence's first letter and
nothing else, and records per sentence the facts it used (:class:`Sentence`).

A sentence without slots states nothing the facts back; it is allowed only when
it is in the ``flavour`` set given (a fixed, reviewed list of lines that say
nothing about the world: "Please hurry."). :func:`check_template` refuses any
other at registration time.

Why our own grammar and not a tracery port: the alternatives per field and the
slots are all tracery gives, and what we need on top (per-sentence fact traces,
dropping a sentence whose fact is missing, morphology per slot) would have to be
built around it anyway.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from maid_stdlib.text.morph import (
    definite,
    indefinite,
    is_plural,
    is_proper,
    join,
    plural,
    possessive,
    sentence_case,
    strip_article,
    third_singular,
)
from maid_stdlib.text.pronouns import DEFAULT_PRONOUNS, Pronouns
from maid_stdlib.text.voice import in_own_voice

__all__ = [
    "FLAVOUR",
    "FORMS",
    "Phrase",
    "Rendered",
    "Sentence",
    "check_template",
    "clause",
    "person",
    "place",
    "render",
    "slots",
    "statement",
    "thing",
]

#: Sentences that state nothing about the world, reviewed once. A template may use
#: them without a fact; any other sentence needs a slot backed by a fact.
FLAVOUR = frozenset(
    {
        "Please hurry.",
        "Choose your words carefully.",
        "Will you help?",
        "Will you?",
        "Will you help me?",
        "Will you hear me out?",
        "I could use some help.",
        "I would not ask if there were anyone else.",
        "There is no one else I can ask.",
        "Any news?",
        "Is there any news?",
        "Is it done yet?",
        "Is it done?",
        "Back already?",
        "Take care, and come back as soon as you can.",
        "Keep this between us.",
        "Found anything yet?",
        "Even a small clue would help.",
        "Have you made up your mind?",
        "Take your time, but not too long.",
        "Thank you.",
        "Thank you, truly.",
        "You have my thanks.",
        "I will not forget this.",
        "I will not forget it.",
        "I am glad to know.",
        "It is done, then.",
        "Not everyone will thank you, but it had to be done.",
        "I am still counting on you.",
        "I cannot rest until it is done.",
        "Be careful out there.",
        "This needs a calm head, not a sharp blade.",
        "Both sides will want to be heard.",
        "Whatever you decide, people will remember it.",
        "You have a gift for this.",
        "You came through for me.",
        "You did it.",
        "Here, you have earned this.",
        "Take this, and know you have a friend here.",
        "Please, you have to help me.",
        "You are back, but alone?",
        "I could use a dependable pair of hands.",
        "Still on the road?",
        "I need someone who asks the right questions.",
        "You will hear two sides of this story.",
        "I do not know how to thank you.",
        "It is over?",
        "You found it.",
        "Whatever you need, you have only to ask.",
        "You made your choice and saw it through.",
    }
)


@dataclass(frozen=True)
class Phrase:
    """A slot's value: its forms (``""`` is the plain one) and the facts behind it."""

    forms: Mapping[str, str]
    facts: tuple[str, ...]
    #: For ``v_<verb>`` forms: does the value take a plural verb?
    plural: bool = False

    def form(self, name: str) -> str | None:
        if name.startswith("v_"):
            verb = name[2:]
            if self.plural:
                return "are" if verb == "be" else verb
            return third_singular(verb)
        return self.forms.get(name)


def person(
    name: str, *facts: str, description: str = "", pronouns: Pronouns = DEFAULT_PRONOUNS
) -> Phrase:
    """Someone: the proper name (or a definite description such as "the gate guard"),
    and the pronouns that refer back to them (``{ally.them}``, ``{npc.their}``)."""
    shown = name if is_proper(name) or not name else definite(name)
    return Phrase(
        {
            "": shown,
            "poss": possessive(shown),
            "title": _title(shown),
            "desc": description,
            "they": pronouns.subject,
            "them": pronouns.object,
            "their": pronouns.determiner,
        },
        facts,
    )


def place(prose: str, *facts: str, short: str = "") -> Phrase:
    """A place in its prose form ("the Broken Wagon on the Old Trade Road")."""
    # In a title the place itself, unless it is a landmark on a longer way ("the
    # Broken Wagon on the Old Trade Road"): then its short form.
    landmark = " on " in prose or " in " in prose
    named = (short or prose) if landmark else prose
    return Phrase({"": prose, "short": short or prose, "title": _title(named)}, facts)


def thing(noun: str, *facts: str) -> Phrase:
    """A thing or a group ("bandits", "a lump of iron ore")."""
    bare = strip_article(noun)
    many = is_plural(bare)
    if bare != noun.strip() and noun.strip().lower().startswith("the "):
        # Given with its article ("the missing iron"): it is a known, definite thing.
        text = noun.strip()
        return Phrase(
            {
                "": text,
                "the": text,
                "a": text,
                "plural": plural(bare),
                "bare": bare,
                "title": _title(text),
            },
            facts,
            plural=many,
        )
    return Phrase(
        {
            "": noun if not bare or is_proper(noun) else (bare if many else indefinite(bare)),
            "the": definite(bare),
            "a": indefinite(bare),
            "plural": plural(bare),
            "bare": bare,
            "title": _title(definite(bare) if many else bare),
        },
        facts,
        plural=many,
    )


def clause(text: str, *facts: str, names: Iterable[str] = ()) -> Phrase:
    """An imperative or infinitive clause ("speak with Voss"), lower-cased to sit
    inside a sentence unless it opens with one of ``names``."""
    words = " ".join(text.split()).rstrip(".!?;:, ")
    if any(n and words.startswith(n) for n in names):
        return Phrase({"": words, "title": _title(words)}, facts)
    return Phrase({"": _lower_first(words), "title": _title(words)}, facts)


def clauses(items: Iterable[Phrase], *, finally_: bool = True) -> Phrase:
    """Several clauses joined ("a, b, and finally c")."""
    parts = [p.forms[""] for p in items]
    facts = tuple(f for p in items for f in p.facts)
    if finally_ and len(parts) > 2:
        text = ", ".join(parts[:-1]) + ", and finally " + parts[-1]
    else:
        text = join(parts)
    return Phrase({"": text}, facts)


def statement(third: str | None, first: str | None, *facts: str) -> Phrase:
    """A sentence about someone, in the third person (``""``) and in their own
    voice (``first``); a voice it cannot be said in is left out (its slot is empty)."""
    forms = {}
    if third:
        forms[""] = third.rstrip(".!?; ")
    if first:
        forms["first"] = first.rstrip(".!?; ")
    return Phrase(forms, facts)


_SMALL = frozenset("a an and at but by for in of on or the to with from".split())


def _title(text: str) -> str:
    # Word by word: a name keeps its own capitals ("Get the Dunmere Caravan Through").
    return " ".join(
        w if w in _SMALL or w != w.lower() else w[:1].upper() + w[1:] for w in text.split()
    )


def _lower_first(text: str) -> str:
    if not text:
        return text
    first = text.split()[0]
    if first.isupper() or first in _KEEP_CAPITAL:
        return text
    return text[0].lower() + text[1:]


# "I" stays "I"; other capitalised first words of a clause are names only when the
# caller says so (see ``clause``): quest steps open with a verb.
_KEEP_CAPITAL = frozenset({"I"})


# -- templates ------------------------------------------------------------------------
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z{\"\u201c])")


def slots(template: str) -> list[tuple[str, str]]:
    """``(name, form)`` of every slot in ``template``."""
    out = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            key, _, form = name.partition(".")
            out.append((key, form))
    return out


def _sentences(template: str) -> list[list[str]]:
    return [
        [s.strip() for s in _SENTENCE_END.split(p.strip()) if s.strip()]
        for p in _PARAGRAPH.split(template.strip())
        if p.strip()
    ]


def check_template(
    template: str, known: Iterable[str], flavour: Iterable[str] = FLAVOUR, where: str = "template"
) -> None:
    """ValueError unless every slot is known (plain or ``name.form``) and every
    sentence either has a slot or is reviewed flavour."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError(f"{where}: a template must be a non-empty string")
    names = set(known)
    reviewed = set(flavour)
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc} in {template!r}") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        key, _, form = name.partition(".")
        if key not in names or "." in form or "[" in name or not _known_form(form):
            raise ValueError(
                f"{where}: unknown placeholder {{{name}}} in {template!r} "
                f"(known: {', '.join(sorted(names))})"
            )
        if spec or conversion:
            raise ValueError(f"{where}: format specs and conversions are not allowed")
    for paragraph in _sentences(template):
        for sentence in paragraph:
            if not slots(sentence) and sentence not in reviewed and not _is_title_like(template):
                raise ValueError(
                    f"{where}: the sentence {sentence!r} has no fact behind it; use a slot, "
                    "or a line of the reviewed flavour list"
                )


#: The forms a slot may ask for (``v_<verb>``: the verb agreeing with the value).
FORMS = frozenset(
    {"", "poss", "title", "desc", "short", "the", "a", "plural", "bare", "first"}
    | {"they", "them", "their"}
)


def _known_form(form: str) -> bool:
    return form in FORMS or bool(re.fullmatch(r"v_[a-z]+", form))


def _is_title_like(template: str) -> bool:
    # A title is a name for the quest, not a statement: no full stop, one line.
    return "\n" not in template and not re.search(r"[.!?]$", template.strip())


@dataclass(frozen=True)
class Sentence:
    """One rendered sentence and the facts it used (``("flavour",)`` for flavour)."""

    text: str
    facts: tuple[str, ...]


@dataclass
class Rendered:
    """A rendered field: its text, its sentences, and how many were dropped."""

    text: str
    sentences: list[Sentence] = field(default_factory=list)
    dropped: int = 0


def render(
    template: str,
    values: Mapping[str, Phrase],
    *,
    title: bool = False,
    speaker: str = "",
    keep: Iterable[str] = (),
) -> Rendered:
    """``template`` over ``values``: sentences whose slots have no value are dropped.

    With ``speaker`` the text is that person's own words: wherever a value names
    them (a step written for the quest log, "report back to Selena"), it reads
    "I", "me" or "my" instead; names in ``keep`` that contain theirs ("Gundrik's
    Smithy") stay as they are."""
    kept_names = list(keep)
    out: list[Sentence] = []
    paragraphs: list[str] = []
    dropped = 0
    for paragraph in _sentences(template):
        kept: list[str] = []
        for sentence in paragraph:
            result = _render_sentence(sentence, values, title)
            if result is None:
                dropped += 1
                continue
            text, used = result
            if speaker:
                text = in_own_voice(text, speaker, kept_names)
            text = sentence_case(text)
            kept.append(text)
            out.append(Sentence(text, used or ("flavour",)))
        if kept:
            paragraphs.append(" ".join(kept))
    return Rendered("\n\n".join(paragraphs), out, dropped)


def _render_sentence(
    sentence: str, values: Mapping[str, Phrase], title: bool
) -> tuple[str, tuple[str, ...]] | None:
    pieces: list[str] = []
    used: list[str] = []
    for literal, name, _, _ in string.Formatter().parse(sentence):
        pieces.append(literal)
        if name is None:
            continue
        key, _, form = name.partition(".")
        phrase = values.get(key)
        if phrase is None:
            return None
        text = phrase.form("title" if title and not form else form)
        if not text:
            return None
        if title:
            text = _title(text)
        pieces.append(text)
        used += [f for f in phrase.facts if f not in used]
    text = " ".join("".join(pieces).split(" "))
    text = re.sub(r"[ \t]{2,}", " ", text).replace(" .", ".").replace(" ,", ",")
    return text.strip(), tuple(used)
