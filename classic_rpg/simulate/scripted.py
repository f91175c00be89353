"""``--llm scripted``: a deterministic model for simulations.

:func:`install_scripted_llm` gives the engine's one LLM service (``engine.llm``) a
:class:`~maid_engine.llm.ScriptedProvider` that writes quest prose from the facts
in the prompt. It goes through the service's own limiter, cache, validation and
content filter, like a real model would, so the LLM path of quest generation
(prompts, parsing, fallbacks, token accounting) runs without any network, and the
same seed gives the same prose.
"""

from __future__ import annotations

import json
import re
from typing import Protocol

from maid_engine.llm import LLMRequest, ScriptedProvider
from maid_engine.llm.factory import build_limiter
from maid_engine.ports import ClockPort, LLMPort, MetricsPort, SettingsPort
from maid_stdlib.text import sentence_case

__all__ = ["install_scripted_llm", "scripted_answer"]

_BLOCK = re.compile(r'<[a-z_]+ source="([a-z_]+)">\n(.*?)\n</[a-z_]+>', re.DOTALL)


def _facts(request: LLMRequest) -> dict[str, list[str]]:
    """The isolated world facts of a quest prompt, by source label."""
    text = "\n".join(str(m.get("content", "")) for m in request.messages)
    out: dict[str, list[str]] = {}
    for label, body in _BLOCK.findall(text):
        lines = [ln[2:] if ln.startswith("- ") else ln for ln in body.splitlines()]
        out[label] = [" ".join(ln.split()) for ln in lines if ln.strip()]
    return out


def _first(facts: dict[str, list[str]], key: str, default: str) -> str:
    values = facts.get(key) or []
    return values[0] if values else default


def scripted_answer(request: LLMRequest) -> str:
    """Quest prose made of the prompt's own facts (so grounding checks pass), shaped as
    the quest call asks (narrative and dialogue); anything else gets an empty object."""
    facts = _facts(request)
    giver = _first(facts, "quest_giver", "the quest giver")
    place = _first(facts, "locations", "the village")
    motive = _first(facts, "motivation", "Something must be done.")
    steps = facts.get("objectives") or ["set things right"]
    step = steps[0][:1].lower() + steps[0][1:]
    if request.purpose == "quest_narrative":
        # Like a model told which titles are in use: the first shape not taken.
        taken = {t.casefold() for t in facts.get("recent_titles", [])}
        shapes = [f"{giver}'s Request", f"A Task for {giver}", f"{giver} Asks for Help"]
        shapes += [f"Help for {giver}", f"{giver}'s Errand", f"Word from {giver}"]
        fitting = [" ".join(t.split()[:8])[:60] for t in shapes]
        title = next((t for t in fitting if t.casefold() not in taken), fitting[0])
        return json.dumps(
            {
                "title": sentence_case(title),
                "summary": sentence_case(f"{giver} asks for help near {place}.")[:300],
                "description": sentence_case(
                    f"{motive} The first step: {step}. It all turns on {place}."
                )[:1500],
                "offer": f"I need someone to {step}. Will you help me?"[:500],
                "progress": f"Have you been to {place} yet?"[:500],
                "completion": "You did it. I will not forget what you did for me."[:500],
            }
        )
    return "{}"


class ScriptedHost(ClockPort, SettingsPort, MetricsPort, LLMPort, Protocol):
    """What installing the scripted model uses: the limiter's settings, metrics and
    clock, and the engine's one LLM service."""


def install_scripted_llm(engine: ScriptedHost) -> ScriptedProvider:
    """Make :func:`scripted_answer` the engine's model. Call before ``start()``: the
    quest generator takes the service's provider when its pack registers."""
    limiter = build_limiter(engine.settings, engine.metrics, clock=engine.clock.monotonic)
    provider = ScriptedProvider(
        scripted_answer, model="scripted", limiter=limiter, metrics=engine.metrics
    )
    engine.llm.provider = provider
    return provider
