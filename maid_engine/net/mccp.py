"""MCCP2 (telnet option 86): the server-to-client zlib stream.

Every byte a connection writes, telnetlib3's negotiation and our own output alike,
goes through :class:`WireTransport`, so switching compression on and off there keeps
the order on the wire whatever wrote it. The protocol sends ``IAC SB COMPRESS2 IAC SE``
uncompressed and turns compression on in the same step: every byte after the marker
is part of the zlib stream, and ending it (``Z_FINISH``) returns to plain bytes.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from typing import Any

log = logging.getLogger("maid.net")

__all__ = ["COMPRESS2", "START_MARKER", "WireTransport"]

#: The telnet option byte of MCCP version 2.
COMPRESS2 = bytes([86])
#: What the server sends, uncompressed, right before the compressed stream starts.
START_MARKER = b"\xff\xfa" + COMPRESS2 + b"\xff\xf0"

# zlib's default effort; a 4 KiB window and memLevel 5 keep a stream's state near
# 32 KiB (the defaults take 256 KiB, which for thousands of players adds up) while
# a prompt, a room and its exits repeat within that window anyway.
_LEVEL = 6
_WINDOW_BITS = 12
_MEM_LEVEL = 5


class WireTransport(asyncio.Transport):
    """A connection's transport with an optional MCCP2 compressor in its write path.

    :attr:`wire_bytes` counts what went on the wire, :attr:`plain_bytes` what was
    written before compression. A compressor that fails aborts the connection: a zlib
    stream cannot be left half-way, and the client cannot be told in band.
    """

    def __init__(self, inner: asyncio.Transport) -> None:
        super().__init__()
        self._inner = inner
        self._deflate: Any = None  # zlib's compressor object (its type is private)
        #: Bytes written to the socket (after compression).
        self.wire_bytes = 0
        #: Bytes given to write (before compression).
        self.plain_bytes = 0

    @property
    def inner(self) -> asyncio.Transport:
        return self._inner

    # -- compression ----------------------------------------------------------------------

    @property
    def compressing(self) -> bool:
        return self._deflate is not None

    def start_compression(self) -> None:
        """Write the start marker (uncompressed); everything after it is compressed."""
        if self._deflate is not None:
            return
        self.write(START_MARKER)
        self._deflate = zlib.compressobj(_LEVEL, zlib.DEFLATED, _WINDOW_BITS, _MEM_LEVEL)

    def end_compression(self) -> None:
        """Finish the zlib stream; what is written afterwards goes out plain."""
        deflate, self._deflate = self._deflate, None
        if deflate is None:
            return
        try:
            tail = deflate.flush(zlib.Z_FINISH)
        except zlib.error:
            log.warning("MCCP2: could not finish the stream; closing the connection")
            self._inner.abort()
            return
        self._send(tail)

    # -- asyncio.Transport ----------------------------------------------------------------

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self.plain_bytes += len(data)
        deflate = self._deflate
        if deflate is None:
            self._send(bytes(data))
            return
        try:
            # A sync flush per write: what was written reaches the client now, as the
            # protocol writes once per prompt or event-loop turn, not per byte.
            out = deflate.compress(data) + deflate.flush(zlib.Z_SYNC_FLUSH)
        except zlib.error:
            log.warning("MCCP2: compression failed; closing the connection", exc_info=True)
            self._deflate = None
            self._inner.abort()
            return
        self._send(out)

    def _send(self, data: bytes) -> None:
        if not data or self._inner.is_closing():
            return
        self.wire_bytes += len(data)
        self._inner.write(data)

    def writelines(self, list_of_data: Any) -> None:
        self.write(b"".join(list_of_data))

    def write_eof(self) -> None:
        self.end_compression()
        self._inner.write_eof()

    def can_write_eof(self) -> bool:
        return self._inner.can_write_eof()

    def close(self) -> None:
        # The client's inflater sees the stream end cleanly before the socket does.
        self.end_compression()
        self._inner.close()

    def abort(self) -> None:
        self._deflate = None
        self._inner.abort()

    def is_closing(self) -> bool:
        return self._inner.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._inner.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._inner.pause_reading()

    def resume_reading(self) -> None:
        self._inner.resume_reading()

    def is_reading(self) -> bool:
        return self._inner.is_reading()

    def get_write_buffer_size(self) -> int:
        return self._inner.get_write_buffer_size()

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._inner.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._inner.set_write_buffer_limits(high, low)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._inner.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._inner.get_protocol()
