"""What is asked of a model and what comes back: :class:`LLMRequest`, :class:`LLMResult`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_ROLES = frozenset({"system", "user", "assistant", "tool", "developer"})

# Who a request is for, which decides what it may spend (docs/llm.md, "Quotas"):
#: A player is waiting for it (narration): charged to the character's and the
#: account's quotas, queued fairly by account, and never given the quest reserve.
KIND_PLAYER = "player"
#: Quest generation: the only kind that may spend the reserved share of the budget.
KIND_QUEST = "quest"
#: Anything else the server asks on its own behalf.
KIND_SYSTEM = "system"
KINDS = frozenset({KIND_PLAYER, KIND_QUEST, KIND_SYSTEM})


@dataclass(frozen=True)
class LLMRequest:
    """One chat completion request.

    ``purpose`` labels metrics and logs ("quest_narrative", "narration", ...).
    ``kind`` says who the request is for (``KIND_PLAYER``, ``KIND_QUEST``,
    ``KIND_SYSTEM``); a player's request names its ``account`` and ``character``
    (ids as strings), whose quotas it is charged to.
    ``timeout`` overrides the provider's default; ``json_mode`` asks the model for
    a JSON object where the backend supports it (callers still parse defensively).
    """

    messages: list[dict[str, Any]]
    purpose: str = "general"
    max_tokens: int = 500
    temperature: float = 0.7
    timeout: float | None = None
    json_mode: bool = False
    kind: str = KIND_SYSTEM
    account: str | None = None
    character: str | None = None

    def __post_init__(self) -> None:
        # A malformed request is a programming error, not an LLM failure: raise
        # ValueError so it is not silently swallowed by a template fallback.
        if not self.messages:
            raise ValueError("an LLMRequest needs at least one message")
        for message in self.messages:
            if not isinstance(message, dict) or message.get("role") not in _ROLES:
                raise ValueError(f"invalid chat message {message!r}")
            if not isinstance(message.get("content"), str):
                raise ValueError("chat message content must be a string")
        if self.max_tokens <= 0:
            raise ValueError("max_tokens must be positive")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError("temperature must be between 0 and 2")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if not self.purpose:
            raise ValueError("purpose must be a non-empty string")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}, not {self.kind!r}")
        if self.kind == KIND_PLAYER and not (self.account or self.character):
            # A player's request without a name to charge would escape every quota.
            raise ValueError("a player's request needs an account or a character")

    @classmethod
    def from_prompt(cls, prompt: str, *, system: str | None = None, **kwargs: Any) -> LLMRequest:
        """A request with an optional system message and one user message."""
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": prompt})
        return cls(messages=messages, **kwargs)

    def estimated_prompt_tokens(self) -> int:
        """A cheap upper-ish estimate (4 characters per token plus framing)."""
        chars = sum(len(str(m.get("content", ""))) for m in self.messages)
        return chars // 4 + 4 * len(self.messages) + 3

    def estimated_tokens(self) -> int:
        """What this request may cost at most, roughly: prompt plus ``max_tokens``."""
        return self.estimated_prompt_tokens() + self.max_tokens


@dataclass(frozen=True)
class LLMResult:
    """A completion. ``latency`` is wall seconds; ``cached`` results cost 0 tokens."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    latency: float = 0.0
    cached: bool = False
    #: The router deployment that served it (``model_info.id``); "" without a router.
    deployment: str = ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "finish_reason": self.finish_reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "model": self.model,
            "latency": self.latency,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LLMResult:
        return cls(
            text=str(data["text"]),
            finish_reason=str(data.get("finish_reason", "stop")),
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            model=str(data.get("model", "")),
            latency=float(data.get("latency", 0.0)),
        )
