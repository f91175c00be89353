"""Cleaning text on its way in and out, so only our own renderer ever emits escapes.

Output text from the game may contain anything a player once typed; a stray ESC or C1
byte could recolour, retitle or (on some terminals) reprogram the client. Input lines may
carry arrow keys, editing keys or garbage. Both directions go through here.

Someone's words (what a player types for others, what the model writes) are also kept
from rearranging or hiding what is shown: :func:`clean_authored` removes the characters
that show nothing themselves but change how the text around them is shown (bidi
controls, zero-width characters) and the line and paragraph separators some clients
break lines at. The same set is what the LLM content filter (maid_engine.llm.safety)
ignores when matching and removes from generated text; it is defined once, here.
"""

from __future__ import annotations

import re

# ESC-introduced sequences, removed whole so no "[31m" debris is left behind.
_ESCAPE_SEQ = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?            # CSI ... final byte (or cut off)
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC ... BEL / ST
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?       # DCS / SOS / PM / APC strings
  | \x1b[ -/]*[0-~]?                    # two-byte and nF escapes, or a lone ESC
  | \x9b[0-?]*[ -/]*[@-~]?              # 8-bit CSI
  | \x9d[^\x07\x9c]*[\x07\x9c]?         # 8-bit OSC
  | [\x90\x98\x9e\x9f][^\x9c]*\x9c?     # 8-bit DCS / SOS / PM / APC
    """,
    re.VERBOSE,
)
#: Bidi embeddings, overrides (U+202A-202E) and isolates (U+2066-2069): U+202E makes
#: the rest of a line read right to left, so "evil.exe" can be shown as "exe.live".
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
#: Everything invisible that can split, join or reorder text (a regex class body): the
#: bidi controls and marks (U+061C, U+200E, U+200F), zero-width space, non-joiner and
#: joiner (U+200B-200D), the word joiner and invisible operators (U+2060-2064), the
#: zero-width no-break space / BOM (U+FEFF), the soft hyphen (U+00AD) and the Mongolian
#: vowel separator (U+180E).
INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff" + BIDI_CONTROLS
#: Line and paragraph separators (U+2028, U+2029): a line break to some clients.
LINE_SEPARATORS = "\u2028\u2029"

_INVISIBLE = re.compile(f"[{INVISIBLE}]")
_SEPARATORS = re.compile(f"[{LINE_SEPARATORS}]")
# Every C0 control except TAB and LF, DEL, every C1 control, and the invisible
# characters and separators above (no client needs them from us).
_CONTROL_OUT = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}{LINE_SEPARATORS}]")
_CONTROL_IN = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ERASE = "\b\x7f"


def needs_sanitizing(text: str) -> bool:
    """Whether :func:`sanitize_output` would change ``text``."""
    return _CONTROL_OUT.search(text) is not None


def sanitize_output(text: str) -> str:
    """Game text -> text with only TAB and LF left as controls (CR/CRLF become LF),
    without invisible characters, and with line/paragraph separators made spaces."""
    if not _CONTROL_OUT.search(text):
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ESCAPE_SEQ.sub("", text)
    text = _SEPARATORS.sub(" ", text)
    return _CONTROL_OUT.sub("", text)


def strip_invisible(text: str) -> str:
    """``text`` without the :data:`INVISIBLE` characters."""
    return _INVISIBLE.sub("", text)


def clean_authored(text: str, *, line_break: str = " ") -> str:
    """Someone's words (a player's or the model's) as others may be shown them: the
    :data:`INVISIBLE` characters removed, each line or paragraph separator replaced by
    ``line_break`` (a space for one line of player text; a newline for prose)."""
    if text.isascii():
        return text
    return _SEPARATORS.sub(line_break, _INVISIBLE.sub("", text))


def decode_input(raw: bytes, utf8_client: bool) -> str:
    """Bytes of one input line -> text. Invalid UTF-8 never raises.

    A client that never claimed UTF-8 and sends invalid UTF-8 is most likely using
    Latin-1, so that is tried before falling back to replacement characters.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        if utf8_client:
            return raw.decode("utf-8", errors="replace")
        return raw.decode("latin-1")


def clean_input_line(text: str) -> str:
    """Apply backspace/DEL editing, drop escape sequences and controls, trim blanks."""
    if not _CONTROL_IN.search(text):
        return text.strip()
    text = _ESCAPE_SEQ.sub("", text)
    if "\b" in text or "\x7f" in text:
        kept: list[str] = []
        for ch in text:
            if ch in _ERASE:
                if kept:
                    kept.pop()
            else:
                kept.append(ch)
        text = "".join(kept)
    text = text.replace("\t", " ")
    return _CONTROL_IN.sub("", text).strip()
