"""Authentication: hashing parameters, login throttling over real sockets, and no
difference (in work done, hence in time) between an unknown name and a wrong password."""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat

from maid_engine.accounts import AccountService, install_accounts
from maid_engine.accounts.errors import AuthenticationFailed
from maid_engine.accounts.passwords import HASH_BYTES, PasswordHasher, ScryptParams, scrypt_kdf
from maid_engine.app import MaidServer
from maid_engine.config import Settings
from maid_engine.engine import GameEngine

REPO = Path(__file__).resolve().parents[2]
THROTTLED = "Too many failed login attempts; wait a minute and try again."
WRONG = "Wrong name or password."


class CountingKdf:
    """Wraps the real scrypt and records the parameters of every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int, int]] = []

    def __call__(self, password: bytes, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
        self.calls.append((n, r, p, dklen))
        return scrypt_kdf(password, salt, n, r, p, dklen)

    def take(self) -> list[tuple[int, int, int, int]]:
        calls, self.calls = self.calls, []
        return calls


def test_hashing_parameters_are_the_documented_ones() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    params = (settings.scrypt_n, settings.scrypt_r, settings.scrypt_p)
    assert params == (2**14, 8, 1)
    assert PasswordHasher.from_settings(settings).params == ScryptParams(*params)
    doc = flat((REPO / "docs" / "operations.md").read_text())
    for fact in (
        "scrypt",
        "n = 2^14 (16384)",
        "r = 8",
        "p = 1",
        "16-byte salt",
        f"{HASH_BYTES}-byte",
        "MAID_SCRYPT_N",
        "MAID_LOGIN_ATTEMPTS_PER_MINUTE",
    ):
        assert fact in doc, f"docs/operations.md does not mention {fact!r}"


async def test_stored_hashes_carry_the_configured_parameters(tmp_path: Path) -> None:
    engine = GameEngine(
        Settings(_env_file=None, data_dir=tmp_path, packs=[], scrypt_n=2048),  # type: ignore[call-arg]
        packs=[],
    )
    service = install_accounts(engine)
    async with engine.lifespan():
        account = await service.create_account("Alice", "secret123")
        scheme, n, r, p, salt, digest = account.password_hash.split("$")
        assert (scheme, n, r, p) == ("scrypt", "2048", "8", "1")
        assert len(digest) > 80
        assert len(salt) > 20
        assert "secret123" not in repr(account)


async def test_unknown_name_and_wrong_password_do_the_same_work(tmp_path: Path) -> None:
    """Structural: each failed login runs exactly one scrypt with the configured
    parameters and output length, whether the name exists or not."""
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path,
        packs=[],
        scrypt_n=4096,  # type: ignore[call-arg]
        login_attempts_per_minute=1000,
    )
    engine = GameEngine(settings, packs=[])
    service = install_accounts(engine)
    kdf = CountingKdf()
    service.hasher = PasswordHasher.from_settings(settings, kdf=kdf)
    expected = [(4096, 8, 1, HASH_BYTES)]
    async with engine.lifespan():
        account = await service.create_account("Alice", "secret123")
        assert kdf.take() == expected
        await service.add_character(account, "Ally")  # found by character name too
        # A record whose stored hash is damaged must not answer faster either.
        await service.create_account("Broken", "secret123")
        broken = await service.get("Broken")
        assert broken is not None
        broken.password_hash = "scrypt$garbage"
        await service.repository.put(broken)
        kdf.take()

        messages = set()
        for name, password, reason in (
            ("Nobody", "secret123", "unknown"),
            ("Alice", "wrong-password", "password"),
            ("Ally", "wrong-password", "password"),
            ("Broken", "secret123", "password"),
            ("x" * 200, "y" * 256, "unknown"),
        ):
            with pytest.raises(AuthenticationFailed) as failed:
                await service.authenticate(name, password, "10.0.0.1")
            assert failed.value.reason == reason
            assert kdf.take() == expected, name
            messages.add(str(failed.value))
        assert messages == {WRONG}


@pytest.mark.slow
async def test_unknown_name_and_wrong_password_take_about_as_long(tmp_path: Path) -> None:
    """Coarse timing check with the real default parameters (~50 ms per scrypt): the
    medians of the two kinds of failure are within a factor of two of each other."""
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path,
        packs=[],  # type: ignore[call-arg]
        login_attempts_per_minute=1000,
    )
    engine = GameEngine(settings, packs=[])
    service = install_accounts(engine)
    async with engine.lifespan():
        await service.create_account("Alice", "secret123")

        async def attempt(name: str) -> float:
            started = time.perf_counter()
            with pytest.raises(AuthenticationFailed):
                await service.authenticate(name, "not-the-password", "10.0.0.2")
            return time.perf_counter() - started

        unknown, wrong = [], []
        for _ in range(5):  # interleaved, so machine load hits both alike
            unknown.append(await attempt("Nobody"))
            wrong.append(await attempt("Alice"))
        ratio = statistics.median(unknown) / statistics.median(wrong)
        assert 0.5 < ratio < 2.0, (unknown, wrong)


async def _make_account(telnet: ClientPool, live: MaidServer, name: str, password: str) -> None:
    client = await telnet.open("127.0.0.1", live.telnet_port)
    await client.create(name, password)
    await client.quit()


def _hasher_of(live: MaidServer) -> CountingKdf:
    service = live.engine.services.get(AccountService)
    kdf = CountingKdf()
    service.hasher.kdf = kdf
    return kdf


async def _fail_login(
    telnet: ClientPool, live: MaidServer, source: str, names: list[str]
) -> list[str]:
    """Failed ``connect`` attempts from ``source`` (new connection every 2 attempts,
    since the login screen hangs up after 3 failures)."""
    answers = []
    for i in range(0, len(names), 2):
        client = await telnet.open("127.0.0.1", live.telnet_port, source=source)
        for name in names[i : i + 2]:
            answers.append(flat(await client.try_login("connect", name, "bad-password")))
        await client.close()
    return answers


async def test_login_throttling_per_account_over_real_sockets(
    live: MaidServer, telnet: ClientPool
) -> None:
    limit = live.settings.login_attempts_per_minute
    port = live.telnet_port
    await _make_account(telnet, live, "Bob", "bobpass1")
    await _make_account(telnet, live, "Carol", "carolpass1")
    kdf = _hasher_of(live)
    # One failure on Bob from each of `limit` different machines...
    for i in range(limit):
        answers = await _fail_login(telnet, live, f"127.0.1.{i + 1}", ["Bob"])
        assert answers == [WRONG + " What is your name?"], answers
    assert len(kdf.take()) == limit
    # ...and Bob is locked, even with the right password from a fresh address,
    # without spending a hash on it.
    fresh = await telnet.open("127.0.0.1", port, source="127.0.1.100")
    assert THROTTLED in flat(await fresh.try_login("connect", "Bob", "bobpass1"))
    assert kdf.take() == []
    # The same fresh address is not blocked for other accounts.
    assert "Welcome, Carol." in await fresh.try_login("connect", "Carol", "carolpass1")


async def test_login_throttling_per_address_over_real_sockets(
    live: MaidServer, telnet: ClientPool
) -> None:
    limit = live.settings.login_attempts_per_minute
    port = live.telnet_port
    await _make_account(telnet, live, "Dave", "davepass1")
    kdf = _hasher_of(live)
    attacker = "127.0.2.1"
    # `limit` failures on different (unknown) names from one address...
    answers = await _fail_login(telnet, live, attacker, [f"Guess{c}" for c in "abcdefgh"[:limit]])
    assert all(a.startswith(WRONG) for a in answers), answers
    assert len(kdf.take()) == limit
    # ...block that address, even for a right password, with no hash computed...
    client = await telnet.open("127.0.0.1", port, source=attacker)
    assert THROTTLED in flat(await client.try_login("connect", "Dave", "davepass1"))
    assert THROTTLED in flat(await client.try_login("connect", "Nobody", "whatever1"))
    assert kdf.take() == []
    # ...but nobody else.
    other = await telnet.open("127.0.0.1", port, source="127.0.2.2")
    assert "Welcome, Dave." in await other.try_login("connect", "Dave", "davepass1")


async def test_failed_logins_look_the_same_over_the_wire(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    await _make_account(telnet, live, "Erin", "erinpass1")
    client = await telnet.open("127.0.0.1", port, source="127.0.3.1")
    unknown = await client.try_login("connect", "Nobody", "erinpass1")
    wrong = await client.try_login("connect", "Erin", "not-erins")
    assert unknown == wrong
    assert re.fullmatch(r"\s*Wrong name or password\.\s+What is your name\?\s*", unknown)
    # Third failure: the connection is closed, again without saying which was wrong.
    last = await client.try_login("connect", "Erin", "still-wrong")
    assert "Too many failed attempts. Goodbye." in flat(last)
    await client.wait_closed()
