"""How long the open telnet subnegotiation is, known before telnetlib3 sees the bytes.

telnetlib3 keeps the body of an ``IAC SB ...`` in a deque with one entry per byte (about
8.7 MB for its own 1 MiB ceiling), so a client that opens a subnegotiation and never
closes it costs megabytes per connection. :class:`SubnegotiationGuard` follows the same
state machine as ``TelnetWriter.feed_byte`` (only as far as subnegotiations are
concerned) over each received chunk *before* it is interpreted, so the connection can
be dropped as soon as a subnegotiation would grow past our own, much smaller, limit.
"""

from __future__ import annotations

_IAC = 255
_SB = 250
# Commands that take a further byte after IAC <cmd> (DO, DONT, WILL, WONT, SB).
_MULTIBYTE = frozenset((250, 251, 252, 253, 254))
# What telnetlib3 holds in ``cmd_received`` after a complete IAC DO/WILL... <option>:
# something that is not a multi-byte command, so the next byte clears it.
_DONE = -1


class SubnegotiationGuard:
    """Tracks the length of the subnegotiation telnetlib3 is buffering.

    ``feed(data)`` returns the longest the buffer becomes while ``data`` is interpreted;
    the caller refuses the data when that is over its limit. The model mirrors
    telnetlib3 5.x: ``IAC IAC`` inside a subnegotiation is one buffered byte, any
    ``IAC <cmd>`` inside it ends it (``IAC SE`` normally, anything else aborts it, and
    ``IAC SB`` starts a new one at once), and a lone ``IAC`` outside one is data.
    """

    __slots__ = ("_cmd", "_iac", "length")

    def __init__(self) -> None:
        self._iac = False  # telnetlib3's iac_received
        self._cmd: int | None = None  # telnetlib3's cmd_received (None: False)
        #: Bytes buffered by the subnegotiation that is open now (0 when none is).
        self.length = 0

    @property
    def open(self) -> bool:
        return self._cmd == _SB

    def feed(self, data: bytes) -> int:
        """Advance over ``data``; the largest subnegotiation length reached meanwhile."""
        longest = self.length
        i, n = 0, len(data)
        while i < n:
            iac, cmd = self._iac, self._cmd
            if not iac and cmd is None:
                # In-band data: nothing to follow until the next IAC.
                i = data.find(_IAC, i)
                if i < 0:
                    break
            elif not iac and cmd == _SB:
                # Inside a subnegotiation every byte up to the next IAC is buffered.
                j = data.find(_IAC, i)
                end = n if j < 0 else j
                self.length += end - i
                longest = max(longest, self.length)
                if j < 0:
                    break
                i = j
            self._step(data[i])
            longest = max(longest, self.length)
            i += 1
        return longest

    def _step(self, byte: int) -> None:
        """One byte, exactly as ``TelnetWriter.feed_byte`` moves its state."""
        if self._cmd is not None and self._cmd not in _MULTIBYTE:
            self._cmd = None
        if byte == _IAC:
            self._iac = not self._iac
            if not self._iac and self._cmd == _SB:
                self.length += 1  # IAC IAC: an escaped 255 in the body
        elif self._iac and self._cmd is None:
            self._cmd = byte
            self._iac = False
            if byte == _SB:
                self.length = 0
        elif self._iac and self._cmd == _SB:
            # IAC SE completes it; any other command aborts it; either way the buffer is
            # emptied, and IAC SB goes straight on into a new one.
            self._cmd = byte
            self._iac = False
            self.length = 0
        elif self._cmd == _SB:
            self.length += 1
        elif self._cmd is not None:
            # The option byte of IAC DO/DONT/WILL/WONT.
            self._cmd = _DONE
            self._iac = False
