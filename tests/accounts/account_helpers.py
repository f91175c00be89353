"""Helpers for account tests: clients that drive the login flow through the
SessionManager the way a transport does, and an engine builder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from maid_engine.accounts import install_accounts
from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.engine import GameEngine
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent, Event
from maid_engine.testing import FakeSession

PASSWORD = "correct horse"


class RecordingSession(FakeSession):
    """A FakeSession that also keeps one ordered transcript with the echo state."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        super().__init__()
        self.peer_host = host
        self.data = {}
        self.transcript: list[tuple[str, str, bool]] = []
        self.echo_changes: list[bool] = []

    def send(self, text: str) -> None:
        super().send(text)
        self.transcript.append(("send", text, self.echo))

    def prompt(self, text: str) -> None:
        super().prompt(text)
        self.transcript.append(("prompt", text, self.echo))

    def set_echo(self, echo: bool) -> None:
        super().set_echo(echo)
        self.echo_changes.append(echo)

    def close(self, message: str | None = None) -> None:
        if message is not None:
            self.transcript.append(("close", message, self.echo))
        super().close(message)

    def everything(self) -> str:
        return "\n".join(text for _, text, _ in self.transcript)


class Client:
    """One connection. ``line()`` returns what the game sent in reply."""

    def __init__(self, engine: GameEngine, host: str = "127.0.0.1") -> None:
        self.engine = engine
        self.session = RecordingSession(host)
        self._reported_close = False

    async def open(self) -> str:
        await self.engine.sessions.session_opened(self.session)
        return self._new_output(0)

    def _new_output(self, start: int) -> str:
        return "\n".join(text for _, text, _ in self.session.transcript[start:])

    async def line(self, text: str) -> str:
        start = len(self.session.transcript)
        await self.engine.sessions.session_line(self.session, text)
        await self.report_close()
        return self._new_output(start)

    async def report_close(self) -> None:
        """Tell the game the connection is gone, once, if something closed it."""
        if not self.session.connected and not self._reported_close:
            self._reported_close = True
            await self.engine.sessions.session_closed(self.session)

    async def drop(self) -> None:
        """The client went away (link lost)."""
        self.session.close()
        await self.report_close()

    @property
    def last_prompt(self) -> str:
        return self.session.prompts[-1] if self.session.prompts else ""


class Events:
    def __init__(self, engine: GameEngine) -> None:
        self.seen: list[Event] = []
        self.lock_held: list[bool] = []
        self._engine = engine
        engine.events.subscribe(CharacterConnectedEvent, self._record)
        engine.events.subscribe(CharacterDisconnectedEvent, self._record)

    def _record(self, event: Event) -> None:
        self.seen.append(event)
        self.lock_held.append(self._engine.world_lock.locked())

    def of(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.seen if isinstance(e, kind)]


def build_engine(tmp_path: Path, database_url: str = "", **settings: Any) -> GameEngine:
    values: dict[str, Any] = {"data_dir": tmp_path, "scrypt_n": 2**10}
    if database_url:
        values["database_url"] = database_url
    values.update(settings)
    engine = GameEngine(Settings(**values), clock=ManualClock(), packs=[])
    install_accounts(engine)
    return engine
