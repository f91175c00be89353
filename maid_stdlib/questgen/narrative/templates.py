"""Template narratives: the path that always works.

:class:`TemplateRegistry` holds title, summary, description and dialogue templates
per archetype in three layers, looked up in this order per field:

1. templates registered by packs (``add_from(pack, templates)`` from a pack's
   ``register``; ``register``, ``register_templates``,
   ``register_dialogue_templates`` without an owner): the last registration of a
   field wins. The templates of one archetype come from one pack: a second pack's
   are a start-up error naming both. Once the engine has started the registry of
   the engine's ``TemplateRegistry`` service is locked;
2. defaults (``register_default_templates``: a game layer's own archetypes, e.g. the RPG's six);
3. the built-in generic set, so an unknown archetype still gets prose.

Packs therefore win over the defaults whatever order the packs load in.

Templates are small grammars rendered by :mod:`maid_stdlib.text.realiser`: plain
English with slots over typed facts (:data:`PLACEHOLDERS`, with forms such as
``{threat.the}`` or ``{npc.poss}``), sentence by sentence; a sentence whose fact
the world does not hold is left out, and every sentence records the facts it
used. A template using an unknown slot, or a sentence with no slot that is not
on the reviewed flavour list, is rejected when it is registered, so a pack's
typo fails at load time, not in the middle of a quest.
:class:`TemplateFallbackGenerator` picks one template per field with the random
source it is given (the engine's seeded ``engine.random``), so a seeded run
produces the same prose every time.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Literal

from maid_engine.content import Claims
from maid_stdlib.questgen.narrative.default_templates import GENERIC
from maid_stdlib.questgen.narrative.models import (
    DESCRIPTION_MAX,
    DESCRIPTION_MIN,
    DIALOGUE_MAX,
    DIALOGUE_MIN,
    SUMMARY_MAX,
    TITLE_MAX_CHARS,
    TITLE_MAX_WORDS,
)
from maid_stdlib.questgen.narrative_context import (
    NarrativeContext,
    QuestDialogue,
    QuestNarrative,
    TracedSentence,
)
from maid_stdlib.text.place import place_phrase, with_article
from maid_stdlib.text.realiser import (
    FLAVOUR,
    Phrase,
    Rendered,
    Sentence,
    clause,
    clauses,
    person,
    place,
    render,
    statement,
    thing,
)
from maid_stdlib.text.realiser import check_template as realiser_check
from maid_stdlib.text.voice import is_first_person

__all__ = [
    "DIALOGUE_FIELDS",
    "FIELDS",
    "NARRATIVE_FIELDS",
    "PLACEHOLDERS",
    "TemplateFallbackGenerator",
    "TemplateRegistry",
    "check_template",
    "phrases_of",
    "register_default_templates",
]

log = logging.getLogger("maid.questgen.narrative")

NARRATIVE_FIELDS = ("title", "summary", "description")
DIALOGUE_FIELDS = ("offer", "progress", "completion")
FIELDS = NARRATIVE_FIELDS + DIALOGUE_FIELDS
_ALIASES = {
    "complete": "completion",
    "titles": "title",
    "summaries": "summary",
    "descriptions": "description",
}
Layer = Literal["pack", "default"]

#: Slots a template may use (each also with forms, ``{threat.the}``; see
#: ``maid_stdlib.text.realiser``). People: ``npc`` (the giver), ``ally`` (the first
#: other NPC involved), ``party_a``/``party_b`` (two sides; when the giver is one
#: of them, only ``rival``, the other side, is set), ``others`` (everyone
#: else caught up in it); places: ``location`` (the quest's centre), ``home`` (the
#: giver's room), ``destination`` (the last place), ``area``; why: ``goal`` (a
#: clause, "source quality iron"), ``blocker``, ``need`` and ``stake`` (statements,
#: ``.first`` in the giver's voice), ``rift`` (the two sides, when they distrust
#: each other); what: ``threat``, ``subject``, ``item``; what happened:
#: ``memory``, ``memory2``, ``event``, ``event2`` (``.first`` in the giver's voice);
#: steps: ``objective``, ``final_objective``, ``objectives`` (clauses, "talk to
#: Voss"); and the composites ``motivation``, ``stakes``, ``backstory``.
PLACEHOLDERS = frozenset(
    {
        "npc",
        "ally",
        "party_a",
        "party_b",
        "rival",
        "others",
        "location",
        "home",
        "destination",
        "area",
        "goal",
        "blocker",
        "need",
        "stake",
        "rift",
        "threat",
        "subject",
        "item",
        "memory",
        "memory2",
        "event",
        "event2",
        "objective",
        "final_objective",
        "objectives",
        "motivation",
        "stakes",
        "backstory",
    }
)
_TRAILING = ".!?;:,\u2026 "


class TemplateRegistry:
    """Narrative and dialogue templates per archetype id (see the module docstring)."""

    #: Register templates under this id to replace the built-in generic set.
    GENERIC = "_generic"

    def __init__(self) -> None:
        self._layers: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
            "pack": {},
            "default": {},
            "builtin": {},
        }
        #: Lines without a fact that templates may use (reviewed; packs add theirs
        #: with a ``flavour`` list among an archetype's fields).
        self.flavour: set[str] = set(FLAVOUR)
        for field_name, templates in GENERIC.items():
            self._layers["builtin"].setdefault(self.GENERIC, {})[field_name] = tuple(templates)
        #: Which pack added the templates of which archetype.
        self.claims = Claims("narrative template set", keys=self._archetype_ids)

    def _archetype_ids(self) -> list[str]:
        ids = [*self._layers["builtin"], *self._layers["default"], *self._layers["pack"]]
        return list(dict.fromkeys(ids))

    def add_from(self, pack: str, templates: Mapping[str, Mapping[str, Sequence[str]]]) -> None:
        """A pack's templates (from its ``register``): archetype -> fields, as
        ``register_templates`` takes them, all of an archetype's fields at once.
        Templates of an archetype another pack added templates for are a start-up
        error naming both; the defaults of an archetype are overridden."""
        for archetype_id in templates:
            self.claims.claim(pack, archetype_id)
        self.register_templates(templates)

    # -- registration ---------------------------------------------------------------
    def register(
        self,
        archetype_id: str,
        *,
        layer: Layer = "pack",
        **templates: Iterable[str],
    ) -> None:
        """Set the templates of some fields of one archetype (others keep theirs).

        ``register("heist", title=["The {location} Job"], offer=[...])``. Raises
        ValueError for an unknown field, an empty list or a bad template.
        """
        if not archetype_id or not isinstance(archetype_id, str):
            raise ValueError("archetype_id must be a non-empty string")
        self.claims.check_open(archetype_id)
        if layer not in ("pack", "default"):
            raise ValueError(f"unknown template layer {layer!r}")
        checked: dict[str, tuple[str, ...]] = {}
        templates = dict(templates)
        extra = templates.pop("flavour", ())
        flavour = self.flavour | set([extra] if isinstance(extra, str) else extra)
        for raw_field, values in templates.items():
            field_name = _ALIASES.get(raw_field, raw_field)
            if field_name not in FIELDS:
                raise ValueError(
                    f"unknown template field {raw_field!r} for {archetype_id!r} "
                    f"(expected one of {', '.join(FIELDS)})"
                )
            if isinstance(values, str):
                values = [values]
            items = tuple(values)
            if not items:
                raise ValueError(f"no {field_name} templates given for {archetype_id!r}")
            for template in items:
                check_template(template, f"{archetype_id}.{field_name}", flavour)
            checked[field_name] = items
        # All or nothing: a bad template leaves the registry as it was.
        self.flavour = flavour
        self._layers[layer].setdefault(archetype_id, {}).update(checked)

    def register_templates(
        self, templates: Mapping[str, Mapping[str, Sequence[str]]], *, layer: Layer = "pack"
    ) -> None:
        """Register many at once: archetype -> {"title": [...],
        "summary": [...], "description": [...]} (dialogue fields are accepted too)."""
        for archetype_id, fields in templates.items():
            self.register(archetype_id, layer=layer, **fields)

    def register_dialogue_templates(
        self, templates: Mapping[str, Mapping[str, Sequence[str]]], *, layer: Layer = "pack"
    ) -> None:
        """Register dialogue only: archetype ->
        {"offer": [...], "progress": [...], "completion": [...]}."""
        for archetype_id, fields in templates.items():
            unknown = {_ALIASES.get(f, f) for f in fields} - {*DIALOGUE_FIELDS, "flavour"}
            if unknown:
                raise ValueError(
                    f"dialogue templates for {archetype_id!r} have non-dialogue fields "
                    f"{sorted(unknown)}"
                )
            self.register(archetype_id, layer=layer, **fields)

    # -- lookup -----------------------------------------------------------------------
    def templates(self, archetype_id: str, field_name: str) -> tuple[str, ...]:
        """The templates used for ``field_name`` of ``archetype_id`` (never empty)."""
        field_name = _ALIASES.get(field_name, field_name)
        if field_name not in FIELDS:
            raise ValueError(f"unknown template field {field_name!r}")
        for archetype in (archetype_id, self.GENERIC):
            for layer in ("pack", "default", "builtin"):
                found = self._layers[layer].get(archetype, {}).get(field_name)
                if found:
                    return found
        raise AssertionError("the built-in generic templates cover every field")

    def has_templates(self, archetype_id: str) -> bool:
        """True when packs or defaults registered anything for ``archetype_id``."""
        return any(archetype_id in self._layers[layer] for layer in ("pack", "default"))

    @property
    def archetypes(self) -> frozenset[str]:
        return frozenset(self._layers["pack"]) | frozenset(self._layers["default"])


def register_default_templates(
    registry: TemplateRegistry, templates: Mapping[str, Mapping[str, Sequence[str]]]
) -> None:
    """Install a game layer's archetype templates as defaults (packs still win)."""
    registry.register_templates(templates, layer="default")


def check_template(
    template: str, where: str = "template", flavour: Iterable[str] = FLAVOUR
) -> None:
    """Raise ValueError unless ``template`` only uses known slots, and each of its
    sentences has a slot or is a reviewed flavour line."""
    realiser_check(template, PLACEHOLDERS, flavour, where)


def phrases_of(ctx: NarrativeContext) -> dict[str, Phrase]:
    """The slot values of ``ctx``: the builder's typed ones, or (for a context
    made of text fields only) values derived from those fields."""
    if ctx.phrases:
        return dict(ctx.phrases)
    out: dict[str, Phrase] = {}
    giver = _one_line(ctx.giver_name)
    if giver:
        out["npc"] = person(giver, "giver")
    places = [p for p in (_one_line(x) for x in ctx.locations) if p]
    area = _one_line(ctx.area_name)
    if places:
        out["location"] = place(place_phrase(places[0], area), "place")
        out["home"] = out["location"]
        out["destination"] = place(place_phrase(places[-1], area), "destination")
    if area:
        out["area"] = place(with_article(area), "area")
    others = [n for n in (_one_line(x) for x in ctx.involved_npcs) if n and n != giver]
    if others:
        out["ally"] = person(others[0], "ally")
    known = [giver, *others]
    steps = [
        clause(o, f"objective:{i}", names=known)
        for i, o in enumerate(ctx.objectives, 1)
        if o.strip()
    ]
    if steps:
        out["objective"], out["final_objective"] = steps[0], steps[-1]
        out["objectives"] = clauses(steps)
    for key in ("motivation", "stakes", "backstory"):
        text = _one_line(getattr(ctx, key))
        if text:
            first = text if is_first_person(text) else None
            third = None if first else text
            out[key] = statement(third, first, key)
    for key in ("threat", "subject"):
        text = _one_line(getattr(ctx, key))
        if text:
            out[key] = thing(text, key)
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(_TRAILING)


def _fit(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, at a sentence end if one is near."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "), cut.rfind(".\n"))
    if end >= limit // 2:
        return cut[: end + 1].rstrip()
    space = cut[: limit - 1].rfind(" ")
    return cut[: space if space > 0 else limit - 1].rstrip(_TRAILING) + "\u2026"


def _fits_title(title: str) -> bool:
    return 0 < len(title) <= TITLE_MAX_CHARS and len(title.split()) <= TITLE_MAX_WORDS


def _fit_title(title: str) -> str:
    words = title.split()[:TITLE_MAX_WORDS]
    while words and len(" ".join(words)) > TITLE_MAX_CHARS:
        words.pop()
    return " ".join(words) or title[:TITLE_MAX_CHARS]


_LIMITS = {
    "summary": SUMMARY_MAX,
    "description": DESCRIPTION_MAX,
    "offer": DIALOGUE_MAX,
    "progress": DIALOGUE_MAX,
    "completion": DIALOGUE_MAX,
}


class TemplateFallbackGenerator:
    """Builds a :class:`QuestNarrative` from templates; no model, no I/O, no failure.

    ``rng`` must be the engine's seeded random source (``engine.random``) so that
    simulations and tests are reproducible.
    """

    def __init__(self, registry: TemplateRegistry | None = None, *, rng: random.Random) -> None:
        self.registry = registry if registry is not None else TemplateRegistry()
        self.rng = rng
        # Titles written lately, world-wide and per giver: a title another quest
        # still carries is avoided while any other template fits.
        self._recent: deque[str] = deque(maxlen=RECENT_TITLES)
        self._recent_by_giver: dict[str, deque[str]] = {}

    # Packs may call these on the fallback generator itself, as on the registry.
    def register_templates(self, templates: Mapping[str, Mapping[str, Sequence[str]]]) -> None:
        self.registry.register_templates(templates)

    def register_dialogue_templates(
        self, templates: Mapping[str, Mapping[str, Sequence[str]]]
    ) -> None:
        self.registry.register_dialogue_templates(templates)

    def generate(
        self,
        ctx: NarrativeContext,
        *,
        reason: str | None = None,
        tokens_used: int = 0,
    ) -> QuestNarrative:
        """The template narrative for ``ctx``. ``reason`` is recorded as
        ``fallback_reason``; ``tokens_used`` carries tokens a failed LLM attempt
        already spent, so the budget accounting stays honest."""
        try:
            texts, trace = self._render(ctx)
        except Exception:
            # Registration validates templates, so this is a bug; a quest still
            # gets (plain) prose rather than failing its build.
            log.exception("template narrative failed for archetype %r", ctx.archetype_id)
            texts = _last_resort(ctx)
            trace = [TracedSentence(k, v, ("giver",)) for k, v in texts.items()]
        return QuestNarrative(
            title=texts["title"],
            summary=texts["summary"],
            description=texts["description"],
            dialogue=QuestDialogue(
                offer=texts["offer"], progress=texts["progress"], completion=texts["completion"]
            ),
            source="template",
            tokens_used=max(0, tokens_used),
            fallback_reason=reason,
            trace=tuple(trace),
        )

    def _render(self, ctx: NarrativeContext) -> tuple[dict[str, str], list[TracedSentence]]:
        values = phrases_of(ctx)
        out: dict[str, str] = {}
        trace: list[TracedSentence] = []
        # Exactly one draw per field, always in the same order, and always the same
        # size: randrange(n) takes more or fewer bits as n changes, so adding a
        # template to any archetype would reshape every later draw of the seeded
        # world. random() always takes the same amount.
        for field_name in FIELDS:
            candidates = self.registry.templates(ctx.archetype_id, field_name)
            start = int(self.rng.random() * len(candidates)) % len(candidates)
            ordered = [candidates[(start + i) % len(candidates)] for i in range(len(candidates))]
            mine = self._recent_by_giver.setdefault(ctx.giver_name, deque(maxlen=RECENT_TITLES))
            avoid = set(self._recent) | set(mine) | set(ctx.recent_titles)
            if field_name != "title":
                avoid = set()
            voice = _voice(values) if field_name in DIALOGUE_FIELDS else None
            best = _best(ordered, values, title=field_name == "title", avoid=avoid, voice=voice)
            if best is not None and best.text in avoid:
                # Every title of the archetype is in use: a generic one, if one is free.
                generic = self.registry.templates(self.registry.GENERIC, field_name)
                other = _best(list(generic), values, title=True, avoid=avoid)
                best = other if other is not None and other.text not in avoid else best
            if best is None:
                best = _best(
                    list(self.registry.templates(self.registry.GENERIC, field_name)),
                    values,
                    title=field_name == "title",
                    voice=voice,
                )
            if best is None:
                text, sentences = (
                    _LAST_RESORT[field_name],
                    [Sentence(_LAST_RESORT[field_name], ("flavour",))],
                )
            else:
                text, sentences = best.text, best.sentences
            if field_name == "title":
                text = text if _fits_title(text) else _fit_title(text)
                self._recent.append(text)
                mine.append(text)
            else:
                if field_name == "description" and len(text) < DESCRIPTION_MIN:
                    # Few facts: the summary opens the description, so it is never a stub.
                    text = f"{out.get('summary', '')}\n\n{text}".strip()
                if field_name == "description" and len(text) < DESCRIPTION_MIN:
                    text = f"{text} {_LAST_RESORT['description']}".strip()
                if field_name in DIALOGUE_FIELDS and len(text) < DIALOGUE_MIN:
                    text = _LAST_RESORT[field_name]
                    sentences = [Sentence(text, ("flavour",))]
                text = _fit(text, _LIMITS[field_name])
            out[field_name] = text
            trace += [TracedSentence(field_name, s.text, s.facts) for s in sentences]
        return out, trace


def _best(
    ordered: Sequence[str],
    values: dict[str, Phrase],
    *,
    title: bool,
    avoid: Collection[str] = (),
    voice: tuple[str, list[str]] | None = None,
) -> Rendered | None:
    """The first template (in the drawn order) that says everything it meant to;
    else the one that lost the fewest sentences. A title must fit, and is not one
    of ``avoid`` unless every title is."""
    best: Rendered | None = None
    repeated: Rendered | None = None
    for template in ordered:
        speaker, keep = voice or ("", [])
        rendered = render(template, values, title=title, speaker=speaker, keep=keep)
        if not rendered.text or (title and not _fits_title(rendered.text)):
            continue
        if title and rendered.dropped:
            continue
        if title and rendered.text in avoid:
            repeated = repeated or rendered
            continue
        if rendered.dropped == 0:
            return rendered
        if best is None or rendered.dropped < best.dropped:
            best = rendered
    return best or repeated


def _voice(values: dict[str, Phrase]) -> tuple[str, list[str]] | None:
    """The giver as the speaker of the dialogue, and the names that contain theirs
    (places such as "Gundrik's Smithy") to leave alone."""
    giver = values.get("npc")
    name = giver.forms.get("", "") if giver is not None else ""
    if not name:
        return None
    keep = [
        text
        for key in ("location", "home", "destination", "area", "item", "threat")
        if key in values
        for text in values[key].forms.values()
        if text and name in text and text != name
    ]
    return name, keep


#: How many recent titles (world-wide, and per giver) a new title avoids.
RECENT_TITLES = 8

_LAST_RESORT = {
    "title": "A Request",
    "summary": "Someone needs help.",
    "description": "Someone needs help, and is looking for a capable hand. Will you hear me out?",
    "offer": "I could use some help. Will you hear me out?",
    "progress": "Is there any news? I am still counting on you.",
    "completion": "It is done, then. Thank you, truly.",
}


def _last_resort(ctx: NarrativeContext) -> dict[str, str]:
    name = " ".join(ctx.giver_name.split())[:40] or "Someone"
    giver = ctx.phrases.get("npc")
    them = (giver.form("them") if giver is not None else None) or "them"
    return {
        "title": _fit_title(f"A Request from {name}"),
        "summary": f"{name} has asked for help with a pressing matter.",
        "description": (
            f"{name} has a problem that cannot wait and is looking for someone "
            f"capable enough to help. Speak with {them} to learn what needs to be done."
        ),
        "offer": "I could use some help. Will you hear me out?",
        "progress": "Is there any news? I am counting on you.",
        "completion": "It is done, then. Thank you, truly.",
    }
