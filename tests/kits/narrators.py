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
        # Like a model told which titles are in use: the first one not taken.
        taken = {t.casefold() for t in ctx.recent_titles}
        g = ctx.giver_name
        titles = [
            f"{g}'s Plea",
            f"{g}'s Second Plea",
            f"{g}'s Third Plea",
            f"Another Plea from {g}",
        ]
        title = next((t for t in titles if t.casefold() not in taken), titles[0])
        return QuestNarrative(
            title=title,
            summary=f"{ctx.giver_name} needs help at {where}.",
            description=f"{ctx.giver_name} speaks: {ctx.motivation} {ctx.backstory} {ctx.stakes}",
            dialogue=QuestDialogue(
                offer=f"{ctx.motivation} Will you help?",
                progress="Any news?",
                completion="You have my thanks.",
            ),
        )
