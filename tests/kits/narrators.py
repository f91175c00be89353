"""Narrative providers that need no LLM."""

from __future__ import annotations

from maid_stdlib.questgen import NarrativeContext, QuestDialogue, QuestNarrative


class EchoNarrator:
    """A NarrativeProvider whose prose is made only of the context's facts; it keeps
    every context it was given (``contexts``) for tests to inspect."""

    def __init__(self) -> None:
        self.contexts: list[NarrativeContext] = []

    async def generate(self, ctx: NarrativeContext) -> QuestNarrative:
        self.contexts.append(ctx)
        where = ctx.area_name or (ctx.locations[0] if ctx.locations else "the village")
        return QuestNarrative(
            title=f"{ctx.giver_name}'s Plea",
            summary=f"{ctx.giver_name} needs help at {where}.",
            description=f"{ctx.giver_name} speaks: {ctx.motivation} {ctx.backstory} {ctx.stakes}",
            dialogue=QuestDialogue(
                offer=f"{ctx.motivation} Will you help?",
                progress="Any news?",
                completion="You have my thanks.",
            ),
        )
