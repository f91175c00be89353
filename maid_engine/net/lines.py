"""Turning the in-band byte stream of a connection into bounded input lines."""

from __future__ import annotations

import re

# CR LF, CR NUL (RFC 854's bare CR), a bare CR or a bare LF each end a line.
_EOL = re.compile(rb"\r\n|\r\x00|\r|\n")

#: Marker in :meth:`LineAssembler.feed` results: the current line just overflowed.
OVERFLOW = None


class LineAssembler:
    """Splits bytes into lines, holding at most ``max_bytes`` of an unfinished line.

    A line that grows past the limit is dropped up to the next end of line and reported
    once (as :data:`OVERFLOW`) at the moment it overflows, so a client that never sends a
    newline is told at once and the buffer never grows. Optionally produces the echo a
    character-at-a-time client expects from the server (kludge mode).
    """

    __slots__ = ("_buf", "_cr_pending", "_discarding", "_echo_col", "max_bytes")

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._discarding = False
        self._cr_pending = False  # a chunk ended with CR: a following LF/NUL is its partner
        self._echo_col = 0  # characters echoed on the current line, so BS stops at its start

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes, echo: bool = False) -> tuple[list[bytes | None], bytes]:
        """Consume ``data``; return (complete lines or OVERFLOW markers, bytes to echo)."""
        if (
            data.endswith(b"\r\n")
            and not echo
            and not self._buf
            and not self._cr_pending
            and not self._discarding
        ):
            # The usual read: one whole line, ended by CR LF, nothing held before it.
            line = data[:-2]
            if (
                b"\r" not in line
                and b"\n" not in line
                and (self.max_bytes <= 0 or len(line) <= self.max_bytes)
            ):
                self._echo_col = 0
                return [line], b""
        events: list[bytes | None] = []
        echo_out = bytearray()
        if self._cr_pending and data[:1] in (b"\n", b"\x00"):
            data = data[1:]
        self._cr_pending = False
        pos = 0
        for m in _EOL.finditer(data):
            self._add(data[pos : m.start()], events, echo_out if echo else None)
            if self._discarding:
                self._discarding = False
            else:
                events.append(bytes(self._buf))
            self._buf.clear()
            if echo:
                echo_out += b"\r\n"
            self._echo_col = 0
            pos = m.end()
            if m.group() == b"\r" and pos == len(data):
                self._cr_pending = True
        self._add(data[pos:], events, echo_out if echo else None)
        return events, bytes(echo_out)

    def _add(self, seg: bytes, events: list[bytes | None], echo_out: bytearray | None) -> None:
        if not seg or self._discarding:
            return
        if self.max_bytes > 0 and len(self._buf) + len(seg) > self.max_bytes:
            self._buf.clear()
            self._discarding = True
            events.append(OVERFLOW)
            return
        self._buf += seg
        if echo_out is not None:
            self._echo(seg, echo_out)

    def _echo(self, seg: bytes, out: bytearray) -> None:
        for b in seg:
            if b in (0x08, 0x7F):
                if self._echo_col > 0:
                    out += b"\b \b"
                    self._echo_col -= 1
            elif b < 0x20 or b == 0xFF:
                continue  # never echo controls: the client's own terminal would obey them
            elif 0x80 <= b < 0xC0:
                out.append(b)  # UTF-8 continuation byte: same column
            else:
                out.append(b)
                self._echo_col += 1
