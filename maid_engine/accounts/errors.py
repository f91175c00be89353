"""Typed errors of the account layer.

Every error's ``str()`` is a sentence that can be shown to the player as is, so the
login flow and the commands never have to translate them.
"""

from __future__ import annotations

import math


class AccountError(ValueError):
    """Base class; the message is safe to show to the user.

    A ValueError, so callers that already treat bad input as ValueError (the
    ``maid create-admin`` command) report these without knowing this module.
    """


class InvalidName(AccountError):
    """The name breaks a naming rule (the message says which)."""


class NameTaken(AccountError):
    """Another account or character already uses the name (case-insensitively)."""


class InvalidPassword(AccountError):
    """A new password breaks the password policy (the message says which rule)."""


class AuthenticationFailed(AccountError):
    """Unknown name or wrong password.

    Both cases deliberately share one message so that the reply does not reveal
    whether an account exists. ``reason`` ("unknown" or "password") is for logs and
    tests only.
    """

    def __init__(self, reason: str = "password") -> None:
        super().__init__("Wrong name or password.")
        self.reason = reason


class LoginThrottled(AccountError):
    """Too many failed attempts from this address (on this account or on any)."""

    def __init__(self, retry_after: float = 60.0) -> None:
        super().__init__(f"Too many failed login attempts; try again in {_duration(retry_after)}.")
        self.retry_after = retry_after


def _duration(seconds: float) -> str:
    whole = max(1, math.ceil(seconds))
    if whole < 120:
        return f"{whole} s"
    return f"{math.ceil(whole / 60)} min"


class RoleChangeRefused(AccountError):
    """The acting account's role does not allow this role change."""


class AccountNotFound(AccountError):
    def __init__(self, name: str) -> None:
        super().__init__(f"There is no account named {name}.")
        self.name = name


class TooManyCharacters(AccountError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"An account can have at most {limit} characters.")
        self.limit = limit
