"""Typed errors of the account layer.

Every error's ``str()`` is a sentence that can be shown to the player as is, so the
login flow and the commands never have to translate them.
"""

from __future__ import annotations


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
    """Too many failed attempts from this address or on this account."""

    def __init__(self) -> None:
        super().__init__("Too many failed login attempts; wait a minute and try again.")


class AccountNotFound(AccountError):
    def __init__(self, name: str) -> None:
        super().__init__(f"There is no account named {name}.")
        self.name = name


class TooManyCharacters(AccountError):
    def __init__(self, limit: int) -> None:
        super().__init__(f"An account can have at most {limit} characters.")
        self.limit = limit
