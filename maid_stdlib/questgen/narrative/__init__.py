"""Quest narrative: LLM prose with a template fallback that always works.

    registry = TemplateRegistry()
    register_default_templates(registry, texts)     # a game layer's archetypes (packs win)
    fallback = TemplateFallbackGenerator(registry, rng=engine.random)
    generator = QuestNarrativeGenerator(provider, fallback, cache=cache, timeout=30.0)
    narrative = await generator.generate(ctx)       # never raises
    narrative = await generator.generate(ctx, template_only=True)   # backpressure

``narrative.source`` is "llm" or "template"; ``narrative.fallback_reason`` (a
:class:`FallbackReason` value) says why templates were used. See
docs/quest-narrative.md.
"""

from maid_stdlib.questgen.narrative.generator import (
    DEFAULT_TIMEOUT,
    FallbackReason,
    QuestNarrativeGenerator,
    fallback_reason_for,
)
from maid_stdlib.questgen.narrative.models import (
    QuestDialogueModel,
    QuestNarrativeModel,
    QuestTextModel,
)
from maid_stdlib.questgen.narrative.prompts import (
    NARRATIVE_PURPOSE,
    build_narrative_prompt,
    public_memory_texts,
)
from maid_stdlib.questgen.narrative.reputation import (
    ReputationLabel,
    describe_reputation,
    reputation_label,
)
from maid_stdlib.questgen.narrative.templates import (
    PLACEHOLDERS,
    TemplateFallbackGenerator,
    TemplateRegistry,
    register_default_templates,
)

#: Request purposes of quest prose (metrics labels; cache scoping): the one call.
QUEST_PURPOSES = frozenset({NARRATIVE_PURPOSE})

__all__ = [
    "DEFAULT_TIMEOUT",
    "NARRATIVE_PURPOSE",
    "PLACEHOLDERS",
    "QUEST_PURPOSES",
    "FallbackReason",
    "QuestDialogueModel",
    "QuestNarrativeGenerator",
    "QuestNarrativeModel",
    "QuestTextModel",
    "ReputationLabel",
    "TemplateFallbackGenerator",
    "TemplateRegistry",
    "build_narrative_prompt",
    "describe_reputation",
    "fallback_reason_for",
    "public_memory_texts",
    "register_default_templates",
    "reputation_label",
]
