"""MCCP2 against the real game: a raw client that inflates the stream creates a
character and plays, and it costs far fewer bytes than the same session uncompressed."""

from __future__ import annotations

from pathlib import Path

from e2e.client import ClientPool, flat
from e2e.fixtures import served, telnet

__all__ = ["telnet"]


async def test_a_compressed_client_plays_and_sends_fewer_bytes(
    tmp_path: Path, telnet: ClientPool
) -> None:
    async with served(tmp_path / "data") as server:
        squeezed = await telnet.open("127.0.0.1", server.telnet_port, mccp=True)
        plain = await telnet.open("127.0.0.1", server.telnet_port)
        for client, name in ((squeezed, "Zipper"), (plain, "Plainer")):
            await client.read_until_prompt()
            await client.create(name, f"{name.lower()}-pass-42")
            assert "Exits:" in await client.command("look")
            assert "Watch Street" in flat(await client.command("north"))
            offer = await client.command("north")
            assert "The Guard Post" in flat(offer)
            talk = await client.command("talk voss")
            assert "Scouts on the Road" in flat(talk)
        assert squeezed.inflate is not None  # still inside the compressed stream
        assert plain.inflate is None
        # The same screens, a fraction of the bytes (the first screens are text seen
        # once: the ratio of a repeated command is far better still).
        assert squeezed.plain_bytes > 2 * squeezed.wire_bytes
        assert plain.plain_bytes == plain.wire_bytes
        await squeezed.quit()
        assert squeezed.inflate is None  # the stream ended cleanly before the socket
        assert "Goodbye" in squeezed.transcript
