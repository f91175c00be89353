"""GmcpFeeds: a package is sent to a connection only when its data changed."""

from __future__ import annotations

from uuid import uuid4

import pytest

from maid_engine.engine import GameEngine
from maid_engine.testing import FakeSession
from maid_stdlib.world.gmcp import GmcpFeed, GmcpFeeds


def test_only_what_changed_is_sent_and_none_clears_once(engine: GameEngine) -> None:
    sessions = engine.sessions
    feeds = GmcpFeeds(sessions)
    data: dict[str, object] = {"value": 1}
    feeds.add(GmcpFeed("Test.Thing", lambda _c: data.get("now")))
    with pytest.raises(ValueError, match="already registered"):
        feeds.add(GmcpFeed("Test.Thing", lambda _c: None))
    hero, session = uuid4(), FakeSession()
    feeds.mark("Test.Thing", [hero])
    assert feeds.flush() == 0  # not online: nothing built or sent
    sessions.attach(session, hero)
    feeds.mark("Test.Thing", [hero])
    assert feeds.flush() == 0  # None, and nothing was ever sent: nothing to clear
    data["now"] = {"a": 1}
    feeds.mark_all(hero)
    feeds.mark("Unknown.Package", [hero])  # no such feed: ignored
    assert feeds.flush() == 1
    feeds.mark("Test.Thing", [hero])
    assert feeds.flush() == 0  # the same again
    data["now"] = None
    feeds.mark("Test.Thing", [hero])
    feeds.flush()
    feeds.mark("Test.Thing", [hero])
    feeds.flush()
    assert session.gmcp == [("Test.Thing", {"a": 1}), ("Test.Thing", {})]


def test_a_new_connection_is_sent_everything_again(engine: GameEngine) -> None:
    sessions = engine.sessions
    feeds = GmcpFeeds(sessions)
    hero, first, second = uuid4(), FakeSession(), FakeSession()
    sessions.attach(first, hero)
    assert feeds.send(hero, "Test.Thing", {"a": 1})
    assert not feeds.send(hero, "Test.Thing", {"a": 1})
    assert feeds.send(hero, "Test.Thing", {"a": 1}, force=True)
    sessions.attach(second, hero)  # a takeover: another connection
    assert feeds.send(hero, "Test.Thing", {"a": 1})
    feeds.forget(hero)
    assert feeds.send(hero, "Test.Thing", {"a": 1})
    sessions.detach(second)
    assert not feeds.send(hero, "Test.Thing", {"a": 2})  # nobody to send to
    assert second.gmcp == [("Test.Thing", {"a": 1}), ("Test.Thing", {"a": 1})]
