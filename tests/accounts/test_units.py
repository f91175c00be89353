"""Names, password hashing and the throttle on their own."""

from __future__ import annotations

import asyncio
import threading

import pytest

from maid_engine.accounts import InvalidName, InvalidPassword, LoginThrottle, validate_name
from maid_engine.accounts.passwords import (
    PasswordHasher,
    ScryptParams,
    check_password_policy,
    scrypt_kdf,
)

FAST = ScryptParams(n=2**10, r=8, p=1)


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("aldric", "Aldric"),
        ("ALDRIC", "Aldric"),
        ("o'neil", "O'neil"),
        ("anne-marie", "Anne-Marie"),
        ("Bob", "Bob"),
        ("a" * 20, "A" + "a" * 19),
    ],
)
def test_valid_names_are_capitalised(typed: str, shown: str) -> None:
    assert validate_name(typed) == shown


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "Please type a name."),
        ("al", "at least 3 letters"),
        ("a" * 21, "at most 20 letters"),
        ("two words", "single word"),
        ("1abc", "must start with a letter"),
        ("'abc", "must start with a letter"),
        ("abc1", "cannot contain digits"),
        ("ab_c", "cannot contain '_'"),
        ("Ålfred", "must start with a letter"),
        ("alfrëd", "cannot contain 'ë'"),
        ("o'ne-il", "at most one apostrophe or hyphen"),
        ("abc-", "between two letters"),
    ],
)
def test_invalid_names_say_what_is_wrong(typed: str, message: str) -> None:
    with pytest.raises(InvalidName, match=message):
        validate_name(typed)


@pytest.mark.parametrize(
    "typed",
    [
        "admin",
        "Root",
        "SYSTEM",
        "maid",
        "new",
        "quit",
        "who",
        "create",
        "connect",
        "god",
        "ad-min",
        "sys'op",
    ],
)
def test_reserved_names(typed: str) -> None:
    with pytest.raises(InvalidName, match="is reserved"):
        validate_name(typed)


def test_password_policy() -> None:
    with pytest.raises(InvalidPassword, match="at least 6 characters"):
        check_password_policy("12345")
    with pytest.raises(InvalidPassword, match="must not be your name"):
        check_password_policy("Aldric", "aldric")
    with pytest.raises(InvalidPassword, match="at most 256"):
        check_password_policy("x" * 257)
    check_password_policy("123456", "Aldric")


async def test_hash_format_verify_and_rehash() -> None:
    hasher = PasswordHasher(FAST)
    encoded = await hasher.hash("s3cret pass")
    scheme, n, r, p, _salt, _digest = encoded.split("$")
    assert (scheme, n, r, p) == ("scrypt", "1024", "8", "1")
    assert "s3cret" not in encoded
    assert await hasher.verify("s3cret pass", encoded)
    assert not await hasher.verify("s3cret pasS", encoded)
    # Same password, new salt: different hash.
    assert await hasher.hash("s3cret pass") != encoded
    assert not hasher.needs_rehash(encoded)
    stronger = PasswordHasher(ScryptParams(n=2**11, r=8, p=1))
    # Old parameters still verify, but ask for a re-hash.
    assert await stronger.verify("s3cret pass", encoded)
    assert stronger.needs_rehash(encoded)


async def test_unicode_normalisation() -> None:
    hasher = PasswordHasher(FAST)
    encoded = await hasher.hash("caf\u00e9 au lait")
    assert await hasher.verify("cafe\u0301 au lait", encoded)


async def test_hashing_runs_off_the_event_loop_and_malformed_hashes_still_cost() -> None:
    threads: list[int] = []

    def counting(*args: object) -> bytes:
        threads.append(threading.get_ident())
        return scrypt_kdf(*args)  # type: ignore[arg-type]

    hasher = PasswordHasher(FAST, kdf=counting)
    loop_thread = threading.get_ident()
    encoded = await hasher.hash("password1")
    await hasher.verify("password1", encoded)
    await hasher.verify_dummy("anything")
    assert not await hasher.verify("password1", "garbage$hash")
    assert len(threads) == 4
    assert loop_thread not in threads


async def test_hashing_does_not_block_the_loop() -> None:
    release = threading.Event()

    def slow(*args: object) -> bytes:
        release.wait(5)
        return scrypt_kdf(*args)  # type: ignore[arg-type]

    hasher = PasswordHasher(FAST, kdf=slow)
    task = asyncio.create_task(hasher.hash("password1"))
    # The loop keeps running while the hash waits in its thread.
    for _ in range(3):
        await asyncio.sleep(0)
    assert not task.done()
    release.set()
    assert (await task).startswith("scrypt$")


def test_throttle_sliding_window() -> None:
    now = [100.0]
    throttle = LoginThrottle(3, window=60.0, clock=lambda: now[0])
    for _ in range(2):
        throttle.hit("ip:a")
        now[0] += 10
    assert not throttle.blocked("ip:a")
    throttle.hit("ip:a")  # failures at 100, 110, 120
    assert throttle.blocked("ip:a")
    assert throttle.blocked("ip:b", "ip:a")
    assert not throttle.blocked("ip:b")
    now[0] = 160.5  # the first failure (100) has aged out
    assert not throttle.blocked("ip:a")
    assert throttle.failures("ip:a") == 2
    throttle.hit("ip:a")
    assert throttle.blocked("ip:a")
    throttle.undo("ip:a")
    assert not throttle.blocked("ip:a")
    throttle.reset("ip:a")
    assert throttle.failures("ip:a") == 0
    now[0] = 1000.0
    assert len(throttle) == 0 or not throttle.blocked("ip:a")
