"""Names, password hashing and the throttle on their own."""

from __future__ import annotations

import asyncio
import threading

import pytest

from maid_engine.accounts import (
    InvalidName,
    InvalidPassword,
    LoginThrottle,
    ThrottlePolicy,
    validate_name,
)
from maid_engine.accounts.passwords import (
    PasswordHasher,
    ScryptParams,
    check_password_policy,
    common_passwords,
    is_common_password,
    scrypt_kdf,
)
from maid_engine.accounts.throttle import SlidingWindow, address_key
from maid_engine.config import Settings

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
    check_password_policy("correct horse", "Aldric")
    check_password_policy("x" * 256)


@pytest.mark.parametrize(
    "password",
    ["123456", "password", "Password1", "QWERTY123", "iloveyou", " dragon ", "1q2w3e4r5t"],
)
def test_common_passwords_are_refused(password: str) -> None:
    with pytest.raises(InvalidPassword, match="one of the most common ones"):
        check_password_policy(password, "Aldric")


def test_the_common_password_list() -> None:
    common = common_passwords()
    # The shipped list, read whole: about twenty thousand lowercased entries.
    assert 19_000 < len(common) < 21_000
    assert all(p == p.strip().lower() and p for p in common)
    assert {"123456", "password", "qwerty", "letmein", "trustno1"} <= common
    assert is_common_password("LetMeIn")
    assert not is_common_password("correct horse")
    assert not is_common_password("tin-hunter-22")


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


def test_sliding_window() -> None:
    now = [100.0]
    window = SlidingWindow(60.0, clock=lambda: now[0])
    for _ in range(2):
        window.hit("a")
        now[0] += 10
    assert window.wait("a", 3) == 0
    window.hit("a")  # events at 100, 110, 120
    assert window.count("a") == 3
    assert window.wait("a", 3) == pytest.approx(40.0)  # until 100 is a minute old
    assert window.wait("a", 2) == pytest.approx(50.0)  # until 110 is too
    assert window.wait("b", 1) == 0
    now[0] = 160.5  # the first event (100) has aged out
    assert window.wait("a", 3) == 0
    assert window.count("a") == 2
    window.reset("a")
    assert window.count("a") == 0
    assert len(window) == 0


def test_throttle_per_account_and_address_never_blocks_a_clean_address() -> None:
    now = [0.0]
    throttle = LoginThrottle(ThrottlePolicy(pair_limit=3, address_free=100), clock=lambda: now[0])
    for _ in range(3):
        throttle.failed("bob", "10.0.0.1")
        now[0] += 1
    assert throttle.retry_after("bob", "10.0.0.1") == pytest.approx(57.0)
    # Only this address, and only for this account.
    assert throttle.retry_after("carol", "10.0.0.1") == 0
    assert throttle.retry_after("bob", "10.0.0.2") == 0
    # Any number of failures on Bob from other addresses leave a clean one alone.
    for i in range(500):
        throttle.failed("bob", f"10.1.{i // 250}.{i % 250}")
    assert throttle.retry_after("bob", "10.9.9.9") == 0
    now[0] = 60.0
    assert throttle.retry_after("bob", "10.0.0.1") == 0
    # A success clears the account's count from that address, not the address's.
    throttle.failed("bob", "10.0.0.1")
    throttle.succeeded("bob", "10.0.0.1")
    assert throttle.pair_failures("bob", "10.0.0.1") == 0
    assert throttle.address_failures("10.0.0.1") == 4


def test_address_backoff_grows_exponentially_up_to_the_cap() -> None:
    policy = ThrottlePolicy(address_free=4, backoff_base=2.0, backoff_max=60.0)
    now = [1000.0]
    throttle = LoginThrottle(policy, clock=lambda: now[0])
    waits = []
    for i in range(12):
        # A different account each time: spraying, not guessing one password.
        assert throttle.retry_after(f"user{i}", "10.0.0.1") == 0
        throttle.failed(f"user{i}", "10.0.0.1")
        wait = throttle.retry_after(f"other{i}", "10.0.0.1")
        waits.append(wait)
        now[0] += wait  # the attacker waits exactly as long as asked
    assert waits == [0, 0, 0, 2, 4, 8, 16, 32, 60, 60, 60, 60]
    assert [policy.backoff(n) for n in (0, 3, 4, 5, 10_000)] == [0, 0, 2, 4, 60]
    # Everybody else is untouched.
    assert throttle.retry_after("user0", "10.0.0.2") == 0
    # Quiet for address_forget seconds: the address starts afresh.
    now[0] += policy.address_forget
    assert throttle.retry_after("user0", "10.0.0.1") == 0
    assert throttle.address_failures("10.0.0.1") == 0


def test_throttle_policy_from_settings_and_its_checks() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    policy = ThrottlePolicy.from_settings(settings)
    assert policy == ThrottlePolicy()
    assert (policy.pair_limit, policy.pair_window) == (5, 60.0)
    assert (policy.address_free, policy.backoff_base, policy.backoff_max) == (10, 2.0, 900.0)
    assert policy.address_forget == 3600.0
    with pytest.raises(ValueError, match="longer than the longest backoff"):
        ThrottlePolicy(backoff_max=900.0, address_forget=600.0)
    with pytest.raises(ValueError, match="at least its base"):
        ThrottlePolicy(backoff_base=10.0, backoff_max=5.0)


def test_throttle_memory_is_swept() -> None:
    now = [0.0]
    throttle = LoginThrottle(ThrottlePolicy(), clock=lambda: now[0])

    def scan(prefix: str) -> None:
        for i in range(12_000):
            throttle.failed(f"{prefix}{i}", f"{prefix}.{i // 256 % 256}.{i % 256}")

    scan("10.0")  # 12,000 addresses, each with one account: 24,000 keys
    assert len(throttle) == 24_000
    now[0] += 3600.0  # all of them are stale now
    scan("10.1")
    # A sweep ran on the way and dropped every stale key: only the second scan's are left.
    assert len(throttle) == 24_000
    assert throttle.address_failures("10.0.0.1") == 0


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("10.0.0.1", "10.0.0.1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("fe80::1%eth0", "fe80::/64"),
        ("not-an-address", "not-an-address"),
    ],
)
def test_address_keys(host: str, key: str) -> None:
    assert address_key(host) == key
