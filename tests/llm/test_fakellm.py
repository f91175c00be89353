"""The FakeOpenAIServer test double itself, spoken to over raw HTTP (no LiteLLM)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from fakellm import Behaviour, FakeOpenAIServer


async def post(
    srv: FakeOpenAIServer,
    body: dict[str, Any] | bytes,
    path: str = "/v1/chat/completions",
    *,
    wait: float = 5.0,
) -> tuple[int, bytes]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    reader, writer = await asyncio.open_connection(srv.host, srv.port)
    try:
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(raw)}\r\n\r\n".encode()
            + raw
        )
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait)
        status = int(head.split()[1])
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        return status, await reader.readexactly(length)
    finally:
        writer.close()


CHAT = {"model": "test-model", "messages": [{"role": "user", "content": "hello there"}]}


async def test_scripted_behaviours_in_order() -> None:
    async with FakeOpenAIServer() as srv:
        assert srv.url == f"http://127.0.0.1:{srv.port}/v1"
        srv.ok("Hi!", prompt_tokens=9, completion_tokens=2).status(500).garbage(b"nope")
        srv.truncated("cut")

        status, body = await post(srv, CHAT)
        data = json.loads(body)
        assert status == 200
        assert data["choices"][0]["message"]["content"] == "Hi!"
        assert data["usage"] == {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}

        status, body = await post(srv, CHAT)
        assert status == 500
        assert json.loads(body)["error"]["code"] == 500
        assert await post(srv, CHAT) == (200, b"nope")
        status, body = await post(srv, CHAT)
        assert json.loads(body)["choices"][0]["finish_reason"] == "length"

        status, body = await post(srv, CHAT)  # queue empty: the default answer
        assert status == 200
        assert json.loads(body)["usage"]["prompt_tokens"] == 2
        assert srv.request_count == 5
        assert srv.pending == 0
        assert srv.last_request == CHAT


async def test_delay_and_hang() -> None:
    async with FakeOpenAIServer() as srv:
        srv.delay(0.3, "late")
        started = time.perf_counter()
        status, _ = await post(srv, CHAT)
        assert status == 200
        assert time.perf_counter() - started >= 0.3
        srv.hang()
        with pytest.raises(TimeoutError):
            await post(srv, CHAT, wait=0.3)
    # Closing the server released the hanging handler (no stuck thread).


async def test_default_and_responder() -> None:
    async with FakeOpenAIServer() as srv:
        srv.set_default(Behaviour("status", status=503, body=b"{}"))
        assert (await post(srv, CHAT))[0] == 503
        srv.respond_with(lambda body: Behaviour("ok", text=body["messages"][0]["content"][::-1]))
        _, body = await post(srv, CHAT)
        assert json.loads(body)["choices"][0]["message"]["content"] == "ereht olleh"


async def test_bad_requests_and_unknown_paths() -> None:
    async with FakeOpenAIServer() as srv:
        assert (await post(srv, b"{not json"))[0] == 400
        assert (await post(srv, CHAT, path="/v1/embeddings"))[0] == 404
        assert srv.request_count == 0
        assert ("POST", "/v1/embeddings") in srv.request_lines


def test_usable_from_synchronous_code() -> None:
    with FakeOpenAIServer() as srv:
        srv.status(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})
        status, body = asyncio.run(post(srv, CHAT))
        assert status == 429
        assert b"slow down" in body
        assert srv.wait_for_requests(1, timeout=1)
    with pytest.raises(RuntimeError):
        _ = srv.url
