"""Accounts, characters and the login flow.

Wire it into an engine with :func:`install_accounts` (before ``engine.start()``).
"""

from maid_engine.accounts.components import CharacterFactory, PlayerCharacter
from maid_engine.accounts.errors import (
    AccountError,
    AccountNotFound,
    AuthenticationFailed,
    InvalidName,
    InvalidPassword,
    LoginThrottled,
    NameTaken,
    RoleChangeRefused,
    TooManyCharacters,
)
from maid_engine.accounts.install import install_accounts
from maid_engine.accounts.login import LoginFlow
from maid_engine.accounts.model import ACCOUNTS_COLLECTION, Account, CharacterRef
from maid_engine.accounts.names import RESERVED_NAMES, validate_name
from maid_engine.accounts.passwords import PasswordHasher, ScryptParams
from maid_engine.accounts.service import AccountService
from maid_engine.accounts.throttle import LoginThrottle, ThrottlePolicy

__all__ = [
    "ACCOUNTS_COLLECTION",
    "RESERVED_NAMES",
    "Account",
    "AccountError",
    "AccountNotFound",
    "AccountService",
    "AuthenticationFailed",
    "CharacterFactory",
    "CharacterRef",
    "InvalidName",
    "InvalidPassword",
    "LoginFlow",
    "LoginThrottle",
    "LoginThrottled",
    "NameTaken",
    "PasswordHasher",
    "PlayerCharacter",
    "RoleChangeRefused",
    "ScryptParams",
    "ThrottlePolicy",
    "TooManyCharacters",
    "install_accounts",
    "validate_name",
]
