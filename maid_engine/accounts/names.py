"""Name rules shared by accounts and characters.

Accounts and characters share one namespace (a character is found by name in the
world, and ``connect <name>`` accepts either), so the same rules apply to both.
Only ASCII letters are allowed: Unicode look-alikes (a Cyrillic "A" in "Admin")
would otherwise let one player impersonate another.
"""

from __future__ import annotations

from maid_engine.accounts.errors import InvalidName

MIN_NAME_LENGTH = 3
MAX_NAME_LENGTH = 20

#: Names nobody may take: staff-looking names, login keywords and words that
#: commands or messages would make ambiguous ("tell someone ...").
RESERVED_NAMES = frozenset(
    {
        "admin",
        "administrator",
        "all",
        "anonymous",
        "anybody",
        "anyone",
        "builder",
        "connect",
        "create",
        "everybody",
        "everyone",
        "exit",
        "god",
        "guest",
        "help",
        "here",
        "immortal",
        "imp",
        "login",
        "logout",
        "look",
        "maid",
        "me",
        "mod",
        "moderator",
        "new",
        "nobody",
        "none",
        "null",
        "operator",
        "owner",
        "password",
        "player",
        "quit",
        "root",
        "self",
        "server",
        "somebody",
        "someone",
        "staff",
        "sysop",
        "system",
        "undefined",
        "who",
        "wizard",
        "you",
    }
)

_PUNCTUATION = "'-"


def name_key(name: str) -> str:
    """The case-insensitive key a name is stored and compared under."""
    return name.strip().casefold()


def display_name(name: str) -> str:
    """Capitalised form: first letter upper, the rest lower, each hyphenated part
    capitalised ("anne-marie" -> "Anne-Marie", "o'neil" -> "O'neil")."""
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


def _is_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


def validate_name(raw: str) -> str:
    """Check ``raw`` against the naming rules; return the display name.

    Raises :class:`InvalidName` with a message saying exactly what is wrong.
    """
    name = raw.strip()
    if not name:
        raise InvalidName("Please type a name.")
    if any(ch.isspace() for ch in name):
        raise InvalidName("A name is a single word, without spaces.")
    if len(name) < MIN_NAME_LENGTH:
        raise InvalidName(f"Names must be at least {MIN_NAME_LENGTH} letters long.")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidName(f"Names can be at most {MAX_NAME_LENGTH} letters long.")
    if not _is_letter(name[0]):
        raise InvalidName("Names must start with a letter (A-Z).")
    for ch in name:
        if _is_letter(ch) or ch in _PUNCTUATION:
            continue
        if ch.isdigit():
            raise InvalidName("Names cannot contain digits.")
        raise InvalidName(
            f"Names cannot contain {ch!r}: use only the letters A-Z, with at most one "
            "apostrophe or hyphen in the middle (like O'Neil or Anne-Marie)."
        )
    marks = [ch for ch in name if ch in _PUNCTUATION]
    if len(marks) > 1:
        raise InvalidName("Names may contain at most one apostrophe or hyphen.")
    if not _is_letter(name[-1]):
        raise InvalidName("An apostrophe or hyphen must be between two letters.")
    display = display_name(name)
    key = name_key(name)
    # Also compare without the punctuation, so "ad-min" is as reserved as "admin".
    bare = key.replace("'", "").replace("-", "")
    if key in RESERVED_NAMES or bare in RESERVED_NAMES:
        raise InvalidName(f"The name {display} is reserved; please choose another.")
    return display
