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

Templates are ``str.format`` strings over a fixed set of placeholders
(:data:`PLACEHOLDERS`); a template using anything else is rejected when it is
registered, so a pack's typo fails at load time, not in the middle of a quest.
:class:`TemplateFallbackGenerator` picks one template per field with the random
source it is given (the engine's seeded ``engine.random``), so a seeded run
produces the same prose every time.
"""

from __future__ import annotations

import logging
import random
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from maid_engine.content import Claims
from maid_stdlib.questgen.narrative.default_templates import GENERIC
from maid_stdlib.questgen.narrative.models import (
    DESCRIPTION_MAX,
    DIALOGUE_MAX,
    SUMMARY_MAX,
    TITLE_MAX_CHARS,
    TITLE_MAX_WORDS,
)
from maid_stdlib.questgen.narrative_context import NarrativeContext, QuestDialogue, QuestNarrative

__all__ = [
    "DIALOGUE_FIELDS",
    "FIELDS",
    "NARRATIVE_FIELDS",
    "PLACEHOLDERS",
    "TemplateFallbackGenerator",
    "TemplateRegistry",
    "register_default_templates",
    "template_values",
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

#: Placeholders a template may use. ``motivation``, ``stakes`` and ``backstory`` are
#: sentences without their final full stop; ``objective`` (the first),
#: ``final_objective`` and ``objectives`` (all, joined) are clauses that read after
#: "Will you ..." ("talk to Guard Captain Voss"); ``location`` is the quest's centre
#: (the first place), ``destination`` the last place, ``area`` the area's name;
#: ``ally`` the first involved NPC other than the giver; ``threat`` what threatens
#: ("bandits"), ``subject`` what an investigation is about. In titles, all-lower-case
#: values are title-cased ("An End to the Bandits").
PLACEHOLDERS = frozenset(
    {
        "npc",
        "location",
        "destination",
        "area",
        "ally",
        "objective",
        "final_objective",
        "objectives",
        "motivation",
        "stakes",
        "backstory",
        "threat",
        "subject",
    }
)

_DEFAULTS = {
    "npc": "Someone",
    "location": "these parts",
    "ally": "the locals",
    "objective": "see the matter through",
    "motivation": "Something is badly wrong, and it cannot wait",
    "stakes": "If nothing is done, things will only get worse",
    "backstory": "The trouble has been building for some time",
    "threat": "an unknown danger",
    "subject": "the unknown",
}
_SMALL_WORDS = frozenset("a an and at but by for in of on or the to with".split())
# Objective descriptions start with an imperative verb ("Talk to Voss"); only those
# are lower-cased to read inside a sentence. A proper noun ("Gundrik must ...") is not.
_VERBS = frozenset(
    """
    talk speak travel go visit defeat kill slay clear destroy collect gather bring deliver
    fetch retrieve find locate search examine investigate question ask learn discover
    escort protect defend guard rescue free return report meet negotiate convince persuade
    choose decide side craft make forge repair build buy sell trade help warn follow track
    hunt explore scout reach recover obtain acquire give take carry lead confront stop
""".split()
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
                check_template(template, f"{archetype_id}.{field_name}")
            checked[field_name] = items
        # All or nothing: a bad template leaves the registry as it was.
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
            unknown = {_ALIASES.get(f, f) for f in fields} - set(DIALOGUE_FIELDS)
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


def check_template(template: str, where: str = "template") -> None:
    """Raise ValueError unless ``template`` only uses known, plain placeholders."""
    if not isinstance(template, str) or not template.strip():
        raise ValueError(f"{where}: a template must be a non-empty string")
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc} in {template!r}") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in PLACEHOLDERS:
            raise ValueError(
                f"{where}: unknown placeholder {{{name}}} in {template!r} "
                f"(known: {', '.join(sorted(PLACEHOLDERS))})"
            )
        if spec or conversion:
            raise ValueError(f"{where}: format specs and conversions are not allowed")


# -- values ---------------------------------------------------------------------------
def _sentence(text: str, default: str) -> str:
    text = " ".join(text.split()).rstrip(_TRAILING)
    if not text:
        return default
    return text[0].upper() + text[1:]


def _clause(text: str) -> str:
    text = " ".join(text.split()).rstrip(_TRAILING)
    first, _, _rest = text.partition(" ")
    if first.lower() in _VERBS:
        return text[0].lower() + text[1:]
    return text


def _join(items: Sequence[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and finally " + items[-1]


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(_TRAILING)


def _context_values(ctx: NarrativeContext) -> dict[str, str]:
    """The values the context really has ("" where it has none)."""
    giver = _one_line(ctx.giver_name)
    places = [p for p in (_one_line(x) for x in ctx.locations) if p]
    others = [n for n in (_one_line(x) for x in ctx.involved_npcs) if n and n != giver]
    steps = [s for s in (_clause(o) for o in ctx.objectives) if s]
    area = _one_line(ctx.area_name)
    return {
        "npc": giver,
        "location": places[0] if places else area,
        "destination": places[-1] if places else area,
        "area": area or (places[0] if places else ""),
        "ally": others[0] if others else "",
        "objective": steps[0] if steps else "",
        "final_objective": steps[-1] if steps else "",
        "objectives": _join(steps),
        "motivation": _sentence(ctx.motivation, ""),
        "stakes": _sentence(ctx.stakes, ""),
        "backstory": _sentence(ctx.backstory, ""),
        "threat": _one_line(ctx.threat),
        "subject": _one_line(ctx.subject),
    }


def template_values(ctx: NarrativeContext) -> dict[str, str]:
    """The placeholder values for ``ctx`` (defaults fill anything missing)."""
    values = _context_values(ctx)
    for name, value in values.items():
        if not value:
            values[name] = _DEFAULTS.get(name) or _DEFAULTS.get(_DEFAULT_OF.get(name, ""), "")
    return values


_DEFAULT_OF = {
    "destination": "location",
    "area": "location",
    "final_objective": "objective",
    "objectives": "objective",
}


def _title_case(value: str) -> str:
    # Small words stay lower-case even first: values sit mid-title ("An End to the
    # Bandits"), so templates must not start with a lower-case value.
    if value != value.lower():
        return value  # already has capitals: a name, keep it as written
    return " ".join(w if w in _SMALL_WORDS else w[:1].upper() + w[1:] for w in value.split())


def _placeholders(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


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
_SPACES = re.compile(r"[ \t]{2,}")


class TemplateFallbackGenerator:
    """Builds a :class:`QuestNarrative` from templates; no model, no I/O, no failure.

    ``rng`` must be the engine's seeded random source (``engine.random``) so that
    simulations and tests are reproducible.
    """

    def __init__(self, registry: TemplateRegistry | None = None, *, rng: random.Random) -> None:
        self.registry = registry if registry is not None else TemplateRegistry()
        self.rng = rng

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
            texts = self._render(ctx)
        except Exception:
            # Registration validates templates, so this is a bug; a quest still
            # gets (plain) prose rather than failing its build.
            log.exception("template narrative failed for archetype %r", ctx.archetype_id)
            texts = _last_resort(ctx)
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
        )

    def _render(self, ctx: NarrativeContext) -> dict[str, str]:
        values = template_values(ctx)
        missing = frozenset(k for k, v in _context_values(ctx).items() if not v)
        title_values = {k: _title_case(v) for k, v in values.items()}
        out: dict[str, str] = {}
        # Exactly one draw per field, always in the same order: the rng advances by
        # the same amount whatever the templates are, so later draws stay stable.
        for field_name in FIELDS:
            candidates = self.registry.templates(ctx.archetype_id, field_name)
            start = self.rng.randrange(len(candidates))
            # From the drawn template on, in a fixed order: prefer one whose
            # placeholders the context really fills (a default reads worse than
            # another template) and, for titles, one that fits 8 words.
            ordered = [candidates[(start + i) % len(candidates)] for i in range(len(candidates))]
            ordered.sort(key=lambda t: bool(_placeholders(t) & missing))
            if field_name == "title":
                out["title"] = _pick_title(ordered, title_values)
            else:
                text = _SPACES.sub(" ", ordered[0].format(**values))
                out[field_name] = _fit(text, _LIMITS[field_name])
        return out


def _pick_title(ordered: Sequence[str], values: dict[str, str]) -> str:
    rendered = [" ".join(t.format(**values).split()) for t in ordered]
    for title in rendered:
        if _fits_title(title):
            return title
    return _fit_title(rendered[0])


def _last_resort(ctx: NarrativeContext) -> dict[str, str]:
    name = " ".join(ctx.giver_name.split())[:40] or "Someone"
    return {
        "title": _fit_title(f"A Request from {name}"),
        "summary": f"{name} has asked for help with a pressing matter.",
        "description": (
            f"{name} has a problem that cannot wait and is looking for someone "
            "capable enough to help. Speak with them to learn what needs to be done."
        ),
        "offer": "I could use some help. Will you hear me out?",
        "progress": "Is there any news? I am counting on you.",
        "completion": "It is done, then. Thank you, truly.",
    }
