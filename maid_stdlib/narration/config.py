"""How narrated turns are timed and sized (:class:`NarrationConfig`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NarrationConfig"]


@dataclass
class NarrationConfig:
    """Timing and size of turns. Tests use small values."""

    #: Seconds before the room is told the story is unfolding.
    unfolding_after: float = 2.0
    #: Seconds a turn's LLM call may take in all; None: ``settings.llm_timeout``.
    timeout: float | None = None
    #: Past turns replayed to the model.
    history_turns: int = 8
    max_tokens: int = 600
    temperature: float = 0.8
    #: Longest free-form action accepted, in characters.
    max_action_length: int = 500
    #: Jobs one character may have waiting at once: every turn costs a model call, so
    #: a player typing ahead must not queue up a bill (or the room's patience).
    max_pending_per_actor: int = 1
    #: Categories of the commands whose refusal, in a narrated room, turns the line
    #: into an action: "look for a spare key among the sacks" is a story move, not a
    #: failed ``look``. Talking, quests, settings and help keep their own errors.
    story_categories: tuple[str, ...] = ("general", "items", "combat", "movement")
