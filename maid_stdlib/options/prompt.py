"""Player prompt formats: ``%h`` and friends replaced by what layers provide.

:class:`PromptTokens` is the registry (a rules layer adds health, mana, gold...);
:class:`PromptFormatter` is installed as the session manager's prompt provider once
every pack registered, wrapping whatever provider a layer set: a character without
a format of their own keeps the game's prompt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from maid_engine.net.sanitize import clean_authored
from maid_engine.ports import SessionsPort, WorldPort
from maid_engine.sessions import Session
from maid_stdlib.options.components import PlayerOptions

#: Longest prompt format a player may set.
MAX_PROMPT = 120
#: What a token shows when its layer has no value for the character.
UNKNOWN = "?"
_TOKEN = re.compile(r"%(.)")

#: ``provider(character) -> text`` (None: unknown, shown as "?").
TokenProvider = Callable[[UUID], "str | int | None"]


@dataclass(frozen=True)
class PromptToken:
    letter: str
    description: str
    provider: TokenProvider


class PromptTokens:
    """The ``%x`` tokens a prompt format may use."""

    def __init__(self) -> None:
        self._tokens: dict[str, PromptToken] = {}

    def add(self, letter: str, description: str, provider: TokenProvider) -> None:
        """Add (or replace) the token ``%<letter>``."""
        if len(letter) != 1 or letter == "%":
            raise ValueError(f"a prompt token is one character other than %, not {letter!r}")
        self._tokens[letter] = PromptToken(letter, description, provider)

    def all(self) -> list[PromptToken]:
        return sorted(self._tokens.values(), key=lambda t: (t.letter.lower(), t.letter))

    def render(self, fmt: str, character: UUID) -> str:
        def one(match: re.Match[str]) -> str:
            letter = match.group(1)
            if letter == "%":
                return "%"
            token = self._tokens.get(letter)
            if token is None:
                return match.group(0)
            value = token.provider(character)
            return UNKNOWN if value is None else str(value)

        return _TOKEN.sub(one, fmt)


def clean_format(text: str) -> str:
    """A prompt format as a player typed it, made safe and ending in one space."""
    fmt = clean_authored(text).strip()
    return fmt + " "


class FormatterHost(WorldPort, SessionsPort, Protocol):
    """What the formatter reads: the character's options; it wraps the sessions'
    prompt provider."""


class PromptFormatter:
    def __init__(self, engine: FormatterHost, tokens: PromptTokens) -> None:
        self.engine = engine
        self.tokens = tokens
        self.fallback: Callable[[Session], str] | None = None

    def install(self) -> None:
        """Become the prompt provider, keeping the current one for everyone else."""
        sessions = self.engine.sessions
        if sessions.prompt_provider is self:
            return
        self.fallback = sessions.prompt_provider
        sessions.prompt_provider = self

    def game_prompt(self, session: Session) -> str:
        return self.fallback(session) if self.fallback is not None else "> "

    def __call__(self, session: Session) -> str:
        uid = session.character_id
        options = self.engine.world.try_component(uid, PlayerOptions) if uid else None
        if uid is None or options is None or not options.prompt:
            return self.game_prompt(session)
        return self.tokens.render(options.prompt, uid)
