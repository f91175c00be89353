"""Cleaning text on its way in and out, so only our own renderer ever emits escapes.

Output text from the game may contain anything a player once typed; a stray ESC or C1
byte could recolour, retitle or (on some terminals) reprogram the client. Input lines may
carry arrow keys, editing keys or garbage. Both directions go through here.
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
# Every C0 control except TAB and LF, DEL, and every C1 control.
_CONTROL_OUT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_IN = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ERASE = "\b\x7f"


def needs_sanitizing(text: str) -> bool:
    """Whether :func:`sanitize_output` would change ``text``."""
    return _CONTROL_OUT.search(text) is not None


def sanitize_output(text: str) -> str:
    """Game text -> text with only TAB and LF left as controls (CR/CRLF become LF)."""
    if not _CONTROL_OUT.search(text):
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _ESCAPE_SEQ.sub("", text)
    return _CONTROL_OUT.sub("", text)


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
