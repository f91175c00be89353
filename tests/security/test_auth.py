"""Authentication: hashing parameters, login throttling over real sockets (nobody can
lock another player out; guessing and spraying from one address back off), common
passwords refused, and no difference (in work done, hence in time) between an unknown
name and a wrong password."""

from __future__ import annotations

import io
import re
import statistics
import time
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat

from maid_engine.accounts import AccountService, LoginThrottle, ThrottlePolicy, install_accounts
from maid_engine.accounts.errors import AuthenticationFailed
from maid_engine.accounts.passwords import HASH_BYTES, PasswordHasher, ScryptParams, scrypt_kdf
from maid_engine.app import MaidServer
from maid_engine.cli import main
from maid_engine.config import Settings
from maid_engine.engine import GameEngine

REPO = Path(__file__).resolve().parents[2]
THROTTLED = "Too many failed login attempts; try again in"
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
        "MAID_LOGIN_FAILURES_PER_ADDRESS",
        "MAID_LOGIN_BACKOFF_BASE",
        "MAID_LOGIN_BACKOFF_MAX",
        "MAID_LOGIN_FAILURES_FORGET",
        "19,640 most common passwords",
    ):
        assert fact in doc, f"docs/operations.md does not mention {fact!r}"


async def test_stored_hashes_carry_the_configured_parameters(tmp_path: Path) -> None:
    engine = GameEngine(
        Settings(_env_file=None, data_dir=tmp_path, packs=[], scrypt_n=2048),  # type: ignore[call-arg]
        packs=[],
    )
    service = install_accounts(engine)
    async with engine.lifespan():
        account = await service.create_account("Alice", "secret-lantern-9")
        scheme, n, r, p, salt, digest = account.password_hash.split("$")
        assert (scheme, n, r, p) == ("scrypt", "2048", "8", "1")
        assert len(digest) > 80
        assert len(salt) > 20
        assert "secret-lantern-9" not in repr(account)


async def test_unknown_name_and_wrong_password_do_the_same_work(tmp_path: Path) -> None:
    """Structural: each failed login runs exactly one scrypt with the configured
    parameters and output length, whether the name exists or not."""
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path,
        packs=[],
        scrypt_n=4096,  # type: ignore[call-arg]
        login_attempts_per_minute=1000,
        login_failures_per_address=1000,
    )
    engine = GameEngine(settings, packs=[])
    service = install_accounts(engine)
    kdf = CountingKdf()
    service.hasher = PasswordHasher.from_settings(settings, kdf=kdf)
    expected = [(4096, 8, 1, HASH_BYTES)]
    async with engine.lifespan():
        account = await service.create_account("Alice", "secret-lantern-9")
        assert kdf.take() == expected
        await service.add_character(account, "Ally")  # found by character name too
        # A record whose stored hash is damaged must not answer faster either.
        await service.create_account("Broken", "secret-lantern-9")
        broken = await service.get("Broken")
        assert broken is not None
        broken.password_hash = "scrypt$garbage"
        await service.repository.put(broken)
        kdf.take()

        messages = set()
        for name, password, reason in (
            ("Nobody", "secret-lantern-9", "unknown"),
            ("Alice", "wrong-password", "password"),
            ("Ally", "wrong-password", "password"),
            ("Broken", "secret-lantern-9", "password"),
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
        login_failures_per_address=1000,
    )
    engine = GameEngine(settings, packs=[])
    service = install_accounts(engine)
    async with engine.lifespan():
        await service.create_account("Alice", "secret-lantern-9")

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


class SteppedClock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _stepped_clock(live: MaidServer) -> SteppedClock:
    clock = SteppedClock()
    live.engine.services.get(AccountService).throttle.clock = clock
    return clock


async def test_nobody_can_lock_the_owner_out(live: MaidServer, telnet: ClientPool) -> None:
    """The attack of the issue: an attacker fails on Bob again and again (from one
    address, then from many); Bob, from an address that has not failed, logs in at
    the first try, and the attacker's addresses keep being refused."""
    port = live.telnet_port
    limit = live.settings.login_attempts_per_minute
    await _make_account(telnet, live, "Bob", "bobpass1")
    clock = _stepped_clock(live)
    kdf = _hasher_of(live)
    attacker = "127.0.1.1"
    answers = await _fail_login(telnet, live, attacker, ["Bob"] * (3 * limit))
    assert answers[:limit] == [WRONG + " What is your name?"] * limit, answers
    assert all(THROTTLED in a for a in answers[limit:]), answers
    assert len(kdf.take()) == limit  # refused attempts cost no hash
    # A botnet: `limit` failures on Bob from each of 20 more addresses.
    for i in range(20):
        await _fail_login(telnet, live, f"127.0.1.{i + 10}", ["Bob"] * limit)
    assert len(kdf.take()) == 20 * limit
    owner = await telnet.open("127.0.0.1", port, source="127.0.1.200")
    assert "Welcome, Bob." in await owner.try_login("connect", "Bob", "bobpass1")
    assert len(kdf.take()) == 1
    await owner.quit()
    # The attacker is still refused on Bob, even with the right password, until a
    # minute after its failures.
    again = await telnet.open("127.0.0.1", port, source=attacker)
    assert THROTTLED in flat(await again.try_login("connect", "Bob", "bobpass1"))
    clock.now += 60
    assert "Welcome, Bob." in await again.try_login("connect", "Bob", "bobpass1")


async def test_spraying_many_accounts_from_one_address_backs_off(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    free = live.settings.login_failures_per_address
    base = live.settings.login_backoff_base
    names = [f"Victim{chr(ord('a') + i)}" for i in range(free + 6)]
    for name in names:
        await _make_account(telnet, live, name, f"{name.lower()}-pass")
    clock = _stepped_clock(live)
    kdf = _hasher_of(live)
    sprayer = "127.0.2.1"
    # One wrong guess per account: no account is tried twice, yet after `free`
    # failures the address is refused for every account, right password included.
    answers = await _fail_login(telnet, live, sprayer, names[:free])
    assert all(a.startswith(WRONG) for a in answers), answers
    assert len(kdf.take()) == free
    client = await telnet.open("127.0.0.1", port, source=sprayer)
    refused = flat(await client.try_login("connect", names[free], f"{names[free].lower()}-pass"))
    assert f"{THROTTLED} {base:.0f} s." in refused
    assert THROTTLED in flat(await client.try_login("connect", "Nobody", "whatever1"))
    assert kdf.take() == []
    # Everybody else gets in.
    other = await telnet.open("127.0.0.1", port, source="127.0.2.2")
    assert "Welcome, Victima." in await other.try_login("connect", "Victima", "victima-pass")
    kdf.take()
    # Each further failure doubles the wait: 2 s, 4 s, 8 s, 16 s, ...
    waits: list[float] = []
    for name in names[free : free + 4]:
        clock.now += waits[-1] if waits else base
        sprayer_client = await telnet.open("127.0.0.1", port, source=sprayer)
        assert flat(await sprayer_client.try_login("connect", name, "wrong-guess")).startswith(
            WRONG
        )
        answer = flat(await sprayer_client.try_login("connect", name, "wrong-guess"))
        waits.append(float(re.findall(r"try again in (\d+) s", answer)[0]))
        await sprayer_client.close()
    assert waits == [2 * base, 4 * base, 8 * base, 16 * base]
    assert len(kdf.take()) == 4
    # Waiting it out is not enough to start afresh: the next failure waits longer.
    clock.now += waits[-1]
    last = await telnet.open("127.0.0.1", port, source=sprayer)
    await last.try_login("connect", names[-1], "wrong-guess")
    assert "try again in 64 s" in flat(await last.try_login("connect", names[-1], "x-guess"))


async def test_common_passwords_are_refused_over_real_sockets(
    live: MaidServer, telnet: ClientPool
) -> None:
    port = live.telnet_port
    client = await telnet.open("127.0.0.1", port, source="127.0.4.1")
    answer = flat(await client.try_login("create", "Zed", "123456"))
    assert "That password is one of the most common ones" in answer
    assert await live.engine.services.get(AccountService).get("Zed") is None
    # The interactive creation asks again.
    assert "Create it?" in await client.command("Zed")
    assert "Choose a password" in await client.command("yes")
    retry = flat(await client.command("Qwerty123"))
    assert "one of the most common ones" in retry
    assert "Choose a password" in retry
    assert "Type the password again" in await client.command("zed-is-here")
    assert "Welcome, Zed." in await client.command("zed-is-here")
    # And so does the password command.
    await client.command("password zed-is-here iloveyou")
    assert "one of the most common ones" in await client.read_until_prompt()


def test_create_admin_refuses_a_common_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAID_ADMIN_PASSWORD", "Password123")
    code = main(["create-admin", "Morgan", "--data-dir", str(tmp_path)])
    assert code == 1
    assert "one of the most common ones" in capsys.readouterr().err
    monkeypatch.setenv("MAID_ADMIN_PASSWORD", "morgan-pass-1")
    assert main(["create-admin", "Morgan", "--data-dir", str(tmp_path), "--owner"]) == 0
    assert "Owner account Morgan created" in capsys.readouterr().out


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


def test_the_documented_rates_of_one_greedy_address() -> None:
    """docs/operations.md: with the defaults, one address that fails as fast as it is
    allowed gets 5 guesses a minute at one account, 21 failures in its first hour over
    all accounts, then 4 an hour."""
    now = [0.0]
    throttle = LoginThrottle(ThrottlePolicy(), clock=lambda: now[0])
    times: list[float] = []
    while now[0] < 7200:
        wait = throttle.retry_after(f"name{len(times)}", "10.0.0.1")
        if wait > 0:
            now[0] += wait
            continue
        times.append(now[0])
        throttle.failed(f"name{len(times)}", "10.0.0.1")
    assert sum(t < 3600 for t in times) == 21
    assert sum(3600 <= t < 7200 for t in times) == 4
    one = LoginThrottle(ThrottlePolicy(), clock=lambda: now[0])
    now[0] = 0.0
    guesses = 0
    while one.retry_after("bob", "10.0.0.2") == 0:
        one.failed("bob", "10.0.0.2")
        guesses += 1
    assert guesses == 5
    assert one.retry_after("bob", "10.0.0.2") == 60


def test_create_admin_reads_a_piped_password_and_refuses_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MAID_ADMIN_PASSWORD", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["create-admin", "Morgan", "--data-dir", str(tmp_path)]) == 1
    assert "no password" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("morgan-pass-1\n"))
    assert main(["create-admin", "Morgan", "--data-dir", str(tmp_path)]) == 0
    assert "Morgan" in capsys.readouterr().out
