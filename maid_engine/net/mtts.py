"""What a client can display, from TTYPE / MTTS replies and NEW-ENVIRON hints.

MTTS (https://tintin.mudhalla.net/protocols/mtts/): the server asks TTYPE three times; the
replies are the client name, the terminal type and ``MTTS <bitvector>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from maid_engine.sessions import ColorMode

MTTS_ANSI = 1
MTTS_VT100 = 2
MTTS_UTF8 = 4
MTTS_256 = 8
MTTS_MOUSE = 16
MTTS_OSC_COLOR = 32
MTTS_SCREEN_READER = 64
MTTS_PROXY = 128
MTTS_TRUECOLOR = 256

_MTTS_RE = re.compile(r"^MTTS (\d{1,10})$", re.IGNORECASE)

#: MUD clients by their first TTYPE reply, with the least colour each of them supports.
KNOWN_CLIENTS: dict[str, ColorMode] = {
    "MUDLET": ColorMode.XTERM256,
    "TINTIN++": ColorMode.XTERM256,
    "TT++": ColorMode.XTERM256,
    "MUSHCLIENT": ColorMode.XTERM256,
    "CMUD": ColorMode.XTERM256,
    "ZMUD": ColorMode.ANSI16,
    "BLOWTORCH": ColorMode.XTERM256,
    "MUDRAMMER": ColorMode.XTERM256,
    "KILDCLIENT": ColorMode.XTERM256,
    "ATLANTIS": ColorMode.XTERM256,
    "BEIP": ColorMode.XTERM256,
    "POTATO": ColorMode.XTERM256,
    "AXMUD": ColorMode.TRUECOLOR,
}

# Terminal names that imply at least 16 colours (prefix match, lower case).
_ANSI_TERMS = (
    "ansi", "xterm", "linux", "screen", "tmux", "rxvt", "putty", "cygwin", "konsole",
    "gnome", "eterm", "kitty", "alacritty", "wezterm", "foot", "st-", "vt220", "vt320",
    "vt525", "scoansi", "pcansi", "cons25", "iterm", "mintty",
)  # fmt: skip


def color_from_terminal(name: str) -> ColorMode:
    """Best guess from one TTYPE/TERM string (unknown names give NONE)."""
    low = name.strip().lower()
    if not low:
        return ColorMode.NONE
    if any(tag in low for tag in ("truecolor", "24bit", "direct")):
        return ColorMode.TRUECOLOR
    if "256" in low:
        return ColorMode.XTERM256
    if low in ("kitty", "alacritty", "wezterm", "xterm-kitty"):
        return ColorMode.TRUECOLOR
    if low.startswith(_ANSI_TERMS):
        return ColorMode.ANSI16
    return ColorMode.NONE


def color_from_mtts(bits: int) -> ColorMode:
    if bits & MTTS_TRUECOLOR:
        return ColorMode.TRUECOLOR
    if bits & MTTS_256:
        return ColorMode.XTERM256
    if bits & MTTS_ANSI:
        return ColorMode.ANSI16
    return ColorMode.NONE


@dataclass
class Detected:
    color: ColorMode = ColorMode.NONE
    utf8: bool = False
    mtts: int = 0
    terminal: str = "unknown"
    client_name: str = ""
    client_version: str = ""


#: Longest TTYPE reply kept, in characters: real terminal and client names are short, and
#: whatever a client sends beyond this is cut off before anything looks at it.
MAX_TTYPE_LENGTH = 64
#: TTYPE replies examined per connection (telnetlib3 asks at most nine times; MTTS needs
#: three). Further replies, asked for or not, are ignored.
MAX_TTYPES = 9


class TerminalDetector:
    """What a client can display, built up one hint at a time.

    Each TTYPE reply is examined once, when it arrives, and what it vouches for is
    remembered; :meth:`result` combines those remembered hints with the NEW-ENVIRON and
    CHARSET ones. A client repeating or flooding TTYPE replies therefore costs one short
    string operation per reply, never a pass over everything it has sent so far.
    """

    __slots__ = ("_mtts", "_name_color", "_names", "_replies", "_utf8_name", "examined")

    def __init__(self) -> None:
        self._names: list[str] = []  # non-MTTS replies, in order, at most MAX_TTYPES
        self._replies = 0
        self._mtts = 0
        self._name_color = ColorMode.NONE  # the richest colour any name vouched for
        self._utf8_name = False
        #: How many replies were actually examined (duplicates and excess are not).
        self.examined = 0

    @property
    def ttypes(self) -> list[str]:
        """The distinct terminal names kept (MTTS replies are folded into the bits)."""
        return list(self._names)

    def add_ttype(self, reply: str) -> bool:
        """Take one TTYPE reply; True when it was new (so the result may have changed)."""
        if self._replies >= MAX_TTYPES:
            return False
        self._replies += 1
        value = reply[:MAX_TTYPE_LENGTH].strip()
        if not value or value in self._names:
            return False
        self.examined += 1
        m = _MTTS_RE.match(value)
        if m:
            mtts = int(m.group(1)) & 0xFFFFFFFF
            changed = mtts != self._mtts
            self._mtts = mtts
            return changed
        self._names.append(value)
        self._name_color = max(self._name_color, color_from_terminal(value))
        if value.lower().endswith(("-utf-8", "-utf8", ".utf-8", ".utf8")):
            self._utf8_name = True
        return True

    def result(
        self, environ: Mapping[str, str] | None = None, charset: str | None = None
    ) -> Detected:
        """Everything known so far; the richest colour mode any hint vouches for wins.

        ``environ`` holds NEW-ENVIRON values (COLORTERM, LANG, TERM and the MNES ones:
        CLIENT_NAME, CLIENT_VERSION, MTTS, TERMINAL_TYPE); ``charset`` is the CHARSET the
        client accepted, if any. Values longer than MAX_TTYPE_LENGTH are cut.
        """
        out = Detected(mtts=self._mtts)
        names = self._names
        hints = [color_from_mtts(out.mtts), self._name_color]
        if names:
            first = names[0]
            client, _, version = first.partition(" ")
            known = KNOWN_CLIENTS.get(client.upper())
            if out.mtts or known is not None:
                # MTTS-speaking (or well-known) client: reply 1 is its name, reply 2 the
                # terminal.
                out.client_name = client
                out.client_version = version.strip()
                out.terminal = names[1] if len(names) > 1 else first
                if known is not None:
                    hints.append(known)
            else:
                out.terminal = first
        env = {key: value[:MAX_TTYPE_LENGTH] for key, value in (environ or {}).items()}
        mnes_mtts = env.get("MTTS", "").strip()
        if mnes_mtts.isdigit() and len(mnes_mtts) <= 10:
            out.mtts |= int(mnes_mtts) & 0xFFFFFFFF
            hints.append(color_from_mtts(out.mtts))
        if env.get("CLIENT_NAME"):
            out.client_name = env["CLIENT_NAME"].strip()
            out.client_version = env.get("CLIENT_VERSION", "").strip()
        if env.get("TERMINAL_TYPE"):
            hints.append(color_from_terminal(env["TERMINAL_TYPE"]))
        colorterm = env.get("COLORTERM", "").lower()
        if colorterm in ("truecolor", "24bit"):
            hints.append(ColorMode.TRUECOLOR)
        if env.get("TERM"):
            hints.append(color_from_terminal(env["TERM"]))
        out.color = max(hints)
        lang = env.get("LANG", "") + " " + env.get("LC_ALL", "") + " " + env.get("CHARSET", "")
        out.utf8 = bool(
            out.mtts & MTTS_UTF8
            or (charset is not None and _is_utf8(charset[:MAX_TTYPE_LENGTH]))
            or any(_is_utf8(part.rpartition(".")[2]) for part in lang.split())
            or self._utf8_name
        )
        return out


def detect(
    ttypes: Iterable[str],
    environ: Mapping[str, str] | None = None,
    charset: str | None = None,
) -> Detected:
    """Combine every hint at once (see :class:`TerminalDetector`, which the server uses).

    ``ttypes`` are the TTYPE replies in order; ``environ`` NEW-ENVIRON values;
    ``charset`` the CHARSET the client accepted, if any.
    """
    detector = TerminalDetector()
    for reply in ttypes:
        if reply:
            detector.add_ttype(reply)
    return detector.result(environ, charset)


def _is_utf8(name: str) -> bool:
    return name.strip().lower().replace("-", "").replace("_", "") == "utf8"
