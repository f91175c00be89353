"""A local OpenAI-compatible chat server for tests (no network, no real model).

    async with FakeOpenAIServer() as srv:
        srv.ok("Hello", prompt_tokens=12, completion_tokens=3)
        srv.status(500)
        srv.hang()
        provider = LiteLLMProvider("openai/test-model", api_base=srv.url, api_key="sk-test")
        ...
        assert srv.requests[0]["messages"][0]["content"] == "..."

It also works from synchronous code (``with FakeOpenAIServer() as srv:``), e.g. for
a test that starts the MUD server in a subprocess.

The server runs its own event loop in a background thread. That makes it
independent of pytest-asyncio's loop scopes (a server bound to one loop and called
from another deadlocks) and keeps answering while the test's loop is blocked,
which is exactly what a test of "the event loop never blocks" must not depend on.

Behaviours are consumed one per ``POST .../chat/completions`` request, in order.
When the queue is empty the ``default`` behaviour answers (an ``ok`` reply unless
changed with :meth:`set_default` or :meth:`respond_with`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

__all__ = ["Behaviour", "FakeOpenAIServer"]

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass(frozen=True)
class Behaviour:
    """One scripted answer.

    kind: "ok" (a chat completion), "status" (an error status with ``body``),
    "garbage" (200 with ``body`` that is not a completion), "hang" (never answer
    until the server closes). ``delay`` seconds pass before any answer.
    """

    kind: str
    text: str = ""
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = field(default=())


Responder = Callable[[dict[str, Any]], Behaviour]


def _count_tokens(text: str) -> int:
    # A rough word count is enough: tests assert on the numbers they script, and
    # unscripted usage only has to be positive and stable.
    return max(1, len(text.split()))


class FakeOpenAIServer:
    """Scripted ``POST /v1/chat/completions`` on 127.0.0.1 (ephemeral port)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, model: str = "test-model") -> None:
        self.host = host
        self.port = port
        self.model = model
        #: JSON bodies of every chat completion request received, in order.
        self.requests: list[dict[str, Any]] = []
        #: (method, path) of every HTTP request received, including unknown paths.
        self.request_lines: list[tuple[str, str]] = []
        self._queue: deque[Behaviour] = deque()
        self._responder: Responder | None = None
        self._default = Behaviour("ok", text="This is a fake completion.")
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._closing: asyncio.Event | None = None
        self._ready = threading.Event()
        self._start_error: BaseException | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._received = threading.Condition(self._lock)

    # -- scripting ------------------------------------------------------------------
    def push(self, behaviour: Behaviour) -> FakeOpenAIServer:
        with self._lock:
            self._queue.append(behaviour)
        return self

    def ok(
        self,
        text: str = "This is a fake completion.",
        *,
        finish_reason: str = "stop",
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        usage: dict[str, int] | None = None,
        delay: float = 0.0,
    ) -> FakeOpenAIServer:
        """Queue a successful completion. Unset token counts are word counts."""
        if usage is not None:
            prompt_tokens = usage.get("prompt_tokens", prompt_tokens)
            completion_tokens = usage.get("completion_tokens", completion_tokens)
        return self.push(
            Behaviour(
                "ok",
                text=text,
                finish_reason=finish_reason,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                delay=delay,
            )
        )

    def truncated(self, text: str = "The story was cut", **kw: Any) -> FakeOpenAIServer:
        """Queue a completion stopped by the token limit (finish_reason "length")."""
        return self.ok(text, finish_reason="length", **kw)

    def delay(self, seconds: float, text: str = "Slow but fine.", **kw: Any) -> FakeOpenAIServer:
        """Queue a successful completion sent after ``seconds``."""
        return self.ok(text, delay=seconds, **kw)

    def status(
        self,
        code: int,
        body: str | bytes | dict[str, Any] | None = None,
        *,
        headers: dict[str, str] | None = None,
    ) -> FakeOpenAIServer:
        """Queue an HTTP error (500, 429, 401, ...) with an OpenAI-style error body."""
        if body is None:
            body = {
                "error": {
                    "message": f"fake error {code}",
                    "type": "server_error" if code >= 500 else "invalid_request_error",
                    "code": code,
                }
            }
        raw = json.dumps(body).encode() if isinstance(body, dict) else _as_bytes(body)
        return self.push(
            Behaviour("status", status=code, body=raw, headers=tuple((headers or {}).items()))
        )

    def garbage(self, body: str | bytes = b"<html>definitely not json") -> FakeOpenAIServer:
        """Queue a 200 answer whose body is not a chat completion."""
        return self.push(Behaviour("garbage", body=_as_bytes(body)))

    def hang(self) -> FakeOpenAIServer:
        """Queue a request that is never answered (until the server closes)."""
        return self.push(Behaviour("hang"))

    def set_default(self, behaviour: Behaviour) -> None:
        """What to answer when the queue is empty."""
        with self._lock:
            self._default = behaviour

    def respond_with(self, responder: Responder | None) -> None:
        """Compute answers from the request body when the queue is empty."""
        with self._lock:
            self._responder = responder

    @property
    def pending(self) -> int:
        """Queued behaviours not consumed yet."""
        with self._lock:
            return len(self._queue)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def last_request(self) -> dict[str, Any]:
        with self._lock:
            if not self.requests:
                raise LookupError("no request received")
            return self.requests[-1]

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        """Block (thread-safe) until ``count`` requests arrived; False on timeout."""
        with self._received:
            return self._received.wait_for(lambda: len(self.requests) >= count, timeout)

    # -- lifecycle ------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The ``api_base`` to give an OpenAI-compatible client."""
        if self._server is None:
            raise RuntimeError("the server is not started")
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="fake-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("fake OpenAI server did not start")
        if self._start_error is not None:
            raise RuntimeError("fake OpenAI server failed to start") from self._start_error

    def close(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if self._closing is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._closing.set)
        thread.join(10)
        self._thread = None
        self._loop = None
        self._server = None

    def __enter__(self) -> FakeOpenAIServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> FakeOpenAIServer:
        await asyncio.to_thread(self.start)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    # -- the server thread ------------------------------------------------------------
    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _serve(self) -> None:
        self._closing = asyncio.Event()
        try:
            self._server = await asyncio.start_server(self._handle, self.host, self.port)
        except BaseException as exc:
            self._start_error = exc
            self._ready.set()
            return
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._closing.wait()
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            # Clients keep connections alive: serve requests until the peer closes.
            while True:
                request = await _read_request(reader)
                if request is None:
                    break
                method, path, body = request
                keep_alive = await self._answer(method, path, body, writer)
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _next_behaviour(self, body: dict[str, Any]) -> Behaviour:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            responder, default = self._responder, self._default
        return responder(body) if responder is not None else default

    async def _answer(
        self, method: str, path: str, raw: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        with self._lock:
            self.request_lines.append((method, path))
        route = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            data = {"object": "list", "data": [{"id": self.model, "object": "model"}]}
            await _send(writer, 200, json.dumps(data).encode())
            return True
        if method != "POST" or not route.endswith("/chat/completions"):
            await _send(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("body is not an object")
        except ValueError:
            await _send(writer, 400, b'{"error": {"message": "invalid JSON body"}}')
            return True
        with self._received:
            self.requests.append(body)
            self._received.notify_all()
        behaviour = self._next_behaviour(body)
        if behaviour.delay > 0:
            await asyncio.sleep(behaviour.delay)
        if behaviour.kind == "hang":
            assert self._closing is not None
            await self._closing.wait()
            return False
        if behaviour.kind == "status":
            await _send(writer, behaviour.status, behaviour.body, behaviour.headers)
            return True
        if behaviour.kind == "garbage":
            await _send(writer, 200, behaviour.body)
            return True
        if body.get("stream"):
            await _send(writer, 400, b'{"error": {"message": "streaming is not supported"}}')
            return True
        await _send(writer, 200, json.dumps(self._completion(body, behaviour)).encode())
        return True

    def _completion(self, body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
        prompt_text = " ".join(
            str(m.get("content", "")) for m in body.get("messages", []) if isinstance(m, dict)
        )
        prompt_tokens = (
            behaviour.prompt_tokens
            if behaviour.prompt_tokens is not None
            else _count_tokens(prompt_text)
        )
        completion_tokens = (
            behaviour.completion_tokens
            if behaviour.completion_tokens is not None
            else _count_tokens(behaviour.text)
        )
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", self.model)),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": behaviour.text},
                    "finish_reason": behaviour.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _as_bytes(value: str | bytes) -> bytes:
    return value.encode() if isinstance(value, str) else value


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split()
    if len(parts) < 2:
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
    return parts[0].upper(), parts[1], body


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            # Trailers end with an empty line.
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)


async def _send(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    headers: tuple[tuple[str, str], ...] = (),
) -> None:
    reason = _REASONS.get(status, "Status")
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"{extra}"
        "Connection: keep-alive\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + body)
    await writer.drain()
