"""SessionManager.watch_presence: told of every character coming online or going
offline, and of nothing else (a takeover keeps the character online)."""

from __future__ import annotations

from uuid import UUID, uuid4

from maid_engine.session_manager import SessionManager
from maid_engine.sessions import Session
from maid_engine.testing import FakeSession


async def _never(session: Session, line: str) -> None:
    raise AssertionError("no line is run here")


def test_presence_hooks_hear_of_logins_logouts_and_switches_but_not_takeovers() -> None:
    sessions = SessionManager(_never, started_at=lambda: 0.0)
    heard: list[UUID] = []
    sessions.watch_presence(heard.append)
    sessions.watch_presence(heard.append)  # once is enough
    alice, bob = uuid4(), uuid4()
    first, second = FakeSession(), FakeSession()

    assert sessions.attach(first, alice) is None
    assert heard == [alice]
    assert sessions.is_online(alice)
    heard.clear()
    assert sessions.attach(first, alice) is None  # already so: nothing changes
    assert heard == []
    assert sessions.attach(second, alice) is first  # a takeover: still online
    assert heard == []
    assert sessions.is_online(alice)
    version = sessions.presence_version
    assert sessions.attach(second, bob) is None  # the same connection switches
    assert heard == [alice, bob]
    assert not sessions.is_online(alice)
    assert sessions.is_online(bob)
    assert sessions.presence_version > version
    heard.clear()
    assert sessions.detach(first) is None  # taken over earlier: bound to nobody
    assert heard == []
    assert sessions.detach(second) == bob
    assert heard == [bob]
    assert not sessions.is_online(bob)
