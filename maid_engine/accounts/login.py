"""The login screen: from a fresh connection to puppeting a character.

Humans answer prompts (name, hidden password, ...); scripts use the one-line forms
``create <name> <password>`` and ``connect <name> <password>``. The per-session
state lives in ``session.data["login"]`` until the session puppets a character.

Plain-text passwords are never kept: a new password is hashed as soon as it is
typed, and the confirmation is verified against that hash.
"""

from __future__ import annotations

import enum
import functools
import logging
from dataclasses import dataclass, field
from typing import Protocol
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.accounts.errors import AccountError, AuthenticationFailed, LoginThrottled
from maid_engine.accounts.model import Account, CharacterRef
from maid_engine.accounts.names import validate_name
from maid_engine.accounts.passwords import check_password_policy, queue_listener
from maid_engine.accounts.service import AccountService
from maid_engine.english import english
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_engine.ports import ClockPort, EventsPort, SessionsPort, WorldLockPort, WorldPort
from maid_engine.reliability import DATABASE_UNAVAILABLE
from maid_engine.sessions import Session
from maid_engine.store.errors import StoreUnavailable
from maid_engine.turns import give_way

log = logging.getLogger("maid.login")

STATE_KEY = "login"
#: Set by ``quit`` so the disconnect event says why the character left.
DISCONNECT_REASON_KEY = "disconnect_reason"

BANNER = (
    "Welcome to MAID, a world that keeps living while you are away.\n"
    "\n"
    "Type your name to log in, or a new name to create an account.\n"
    "Scripts and bots: 'create <name> <password>' or 'connect <name> <password>'.\n"
    "Type 'quit' to leave."
)
NAME_PROMPT = "What is your name? "
PASSWORD_PROMPT = "Password: "
TAKEOVER_MESSAGE = "Your character was taken over by another connection."
TOO_MANY_FAILURES = "Too many failed attempts. Goodbye."


def tell_place_in_line(session: Session, position: int) -> None:
    """Tell a player waiting for the password check where they are in line."""
    if session.connected:
        place = english().ordinal(str(position))
        session.send(f"Many players are logging in right now; you are {place} in line.")


def escape(text: str) -> str:
    """Make user-typed text safe to embed in colour markup."""
    return text.replace("|", "||")


class Stage(enum.Enum):
    NAME = "name"
    PASSWORD = "password"
    CONFIRM_NEW = "confirm_new"
    NEW_PASSWORD = "new_password"
    CONFIRM_PASSWORD = "confirm_password"
    CHOOSE = "choose"
    PLAYING = "playing"


@dataclass
class LoginState:
    stage: Stage = Stage.NAME
    #: The name typed (NAME stage) or the validated display name of a new account.
    name: str = ""
    account: Account | None = None
    #: Hash of the first copy of a new password, until it is confirmed.
    pending_hash: str | None = field(default=None, repr=False)
    failures: int = 0
    closed: bool = False


class LoginHost(WorldPort, ClockPort, EventsPort, SessionsPort, WorldLockPort, Protocol):
    """What the login screen uses: puppeting a character touches the world (under
    its lock), the sessions, the wall clock (last seen) and the connect/disconnect
    events."""


class LoginFlow:
    """Implements :class:`maid_engine.ports.LoginFlow`."""

    def __init__(
        self, engine: LoginHost, accounts: AccountService, *, max_failures: int = 3
    ) -> None:
        self.engine = engine
        self.accounts = accounts
        self.max_failures = max_failures

    # -- LoginFlow protocol ---------------------------------------------------------
    async def greet(self, session: Session) -> None:
        ban = await self.accounts.bans.of_address(session.peer_host, self.accounts.wall())
        if ban is not None:
            log.info(
                "refused %s at connect: %s banned (%s)", session.peer_host, ban.target, ban.reason
            )
            session.data[DISCONNECT_REASON_KEY] = "banned"
            session.close(
                f"Connections from your address are banned {ban.ends(self.accounts.wall())}: "
                f"{escape(ban.reason)}"
            )
            return
        session.data[STATE_KEY] = LoginState()
        session.send(BANNER)
        session.prompt(NAME_PROMPT)

    async def handle_line(self, session: Session, line: str) -> None:
        if not session.connected:
            # A line that was already buffered when the session was closed (for
            # instance by a takeover) must not start a new login.
            return
        state = session.data.get(STATE_KEY)
        if not isinstance(state, LoginState):
            state = session.data[STATE_KEY] = LoginState()
        # Whatever this line makes us hash, the player hears their place if the
        # hashing threads are all busy (the listener is this task's only).
        token = queue_listener.set(functools.partial(tell_place_in_line, session))
        try:
            await self._dispatch(session, state, line)
        except StoreUnavailable:
            # Nothing was pretended: the account/character write did not happen.
            log.warning(
                "login step failed for session %s (stage %s): database unavailable",
                session.id,
                state.stage.value,
            )
            session.set_echo(True)
            self._reset(state)
            if session.character_id is None:
                session.account_id = None
            if session.connected:
                session.send(DATABASE_UNAVAILABLE)
                session.prompt(NAME_PROMPT)
        except Exception:
            # Never log the line: at this screen it may be a password.
            log.exception(
                "login flow failed for session %s (stage %s)", session.id, state.stage.value
            )
            session.set_echo(True)
            self._reset(state)
            if session.character_id is None:
                session.account_id = None
            if session.connected:
                session.send("Something went wrong; it has been logged. Please try again.")
                session.prompt(NAME_PROMPT)
        finally:
            queue_listener.reset(token)

    async def closed(self, session: Session) -> None:
        state = session.data.pop(STATE_KEY, None)
        if isinstance(state, LoginState):
            # A login still waiting for a hash must not puppet a dead session.
            state.closed = True
        char = session.character_id
        if char is None or self.engine.sessions.session_for(char) is not session:
            return
        reason = str(session.data.get(DISCONNECT_REASON_KEY, "disconnected"))
        async with self.engine.world_lock:
            pc = self.engine.world.try_component(char, PlayerCharacter)
            if pc is not None:
                pc.last_seen = self.engine.clock.wall()
            await self.engine.events.publish(
                CharacterDisconnectedEvent(character_id=char, session_id=session.id, reason=reason)
            )
        log.info("character %s left (%s), session %s", char, reason, session.id)

    # -- dispatch -------------------------------------------------------------------
    async def _dispatch(self, session: Session, state: LoginState, line: str) -> None:
        stage = state.stage
        if stage in (Stage.PASSWORD, Stage.NEW_PASSWORD, Stage.CONFIRM_PASSWORD):
            # Echo comes back as soon as the hidden line is in, whatever happens next.
            session.set_echo(True)
            password = line.strip()
            if stage is Stage.PASSWORD:
                await self._password(session, state, password)
            elif stage is Stage.NEW_PASSWORD:
                await self._new_password(session, state, password)
            else:
                await self._confirm_password(session, state, password)
            return
        text = line.strip()
        if text.lower() == "quit":
            session.close("Goodbye.")
            return
        if stage is Stage.NAME:
            await self._name(session, state, text)
        elif stage is Stage.CONFIRM_NEW:
            await self._confirm_new(session, state, text)
        elif stage is Stage.CHOOSE:
            await self._choose(session, state, text)

    def _reset(self, state: LoginState) -> None:
        state.stage = Stage.NAME
        state.name = ""
        state.account = None
        state.pending_hash = None

    def _ask_name(self, session: Session, state: LoginState) -> None:
        self._reset(state)
        session.prompt(NAME_PROMPT)

    def _ask_password(self, session: Session, prompt: str) -> None:
        session.set_echo(False)
        session.prompt(prompt)

    def _fail(self, session: Session, state: LoginState, message: str) -> bool:
        """Count a failed attempt; close the connection after too many. Returns
        True if the session is still open."""
        state.failures += 1
        if state.failures >= self.max_failures:
            session.close(f"{message}\n{TOO_MANY_FAILURES}")
            return False
        session.send(message)
        return True

    # -- stages ---------------------------------------------------------------------
    async def _name(self, session: Session, state: LoginState, text: str) -> None:
        if not text:
            session.prompt(NAME_PROMPT)
            return
        word, _, rest = text.partition(" ")
        verb = word.lower()
        if verb in ("create", "connect"):
            name, _, password = rest.strip().partition(" ")
            password = password.strip()
            if not name or not password:
                session.send(f"Usage: {verb} <name> <password>")
                session.prompt(NAME_PROMPT)
            elif verb == "create":
                await self._one_line_create(session, state, name, password)
            else:
                await self._one_line_connect(session, state, name, password)
            return
        if " " in text:
            session.send("A name is a single word, without spaces.")
            session.prompt(NAME_PROMPT)
            return
        account = await self.accounts.find_account(text)
        if not session.connected or state.closed:
            return
        if account is not None:
            state.stage, state.name, state.account = Stage.PASSWORD, text, account
            self._ask_password(session, PASSWORD_PROMPT)
            return
        try:
            display = validate_name(text)
            await self.accounts.check_name_available(display)
        except AccountError as exc:
            session.send(escape(str(exc)))
            session.prompt(NAME_PROMPT)
            return
        state.stage, state.name = Stage.CONFIRM_NEW, display
        session.prompt(f"There is no account named {display}. Create it? (yes/no) ")

    async def _password(self, session: Session, state: LoginState, password: str) -> None:
        typed = state.name
        state.account = None
        try:
            account = await self.accounts.authenticate(typed, password, session.peer_host)
        except (AuthenticationFailed, LoginThrottled) as exc:
            if state.closed:
                return
            if self._fail(session, state, str(exc)):
                self._ask_name(session, state)
            return
        if state.closed or not session.connected:
            return
        await self._logged_in(session, state, account, wanted=None)

    async def _confirm_new(self, session: Session, state: LoginState, text: str) -> None:
        answer = text.lower()
        if answer in ("y", "yes"):
            state.stage = Stage.NEW_PASSWORD
            self._ask_password(session, "Choose a password (at least 6 characters): ")
        elif answer in ("n", "no"):
            self._ask_name(session, state)
        else:
            session.prompt(f"Create an account named {state.name}? Please answer yes or no. ")

    async def _new_password(self, session: Session, state: LoginState, password: str) -> None:
        try:
            check_password_policy(password, state.name)
        except AccountError as exc:
            session.send(str(exc))
            self._ask_password(session, "Choose a password: ")
            return
        state.pending_hash = await self.accounts.hasher.hash(password)
        if state.closed or not session.connected:
            return
        state.stage = Stage.CONFIRM_PASSWORD
        self._ask_password(session, "Type the password again: ")

    async def _confirm_password(self, session: Session, state: LoginState, password: str) -> None:
        pending = state.pending_hash
        state.pending_hash = None
        # On its way to the group commit while the confirmation is checked.
        expected = self.accounts.expect_creation()
        try:
            if pending is None or not await self.accounts.hasher.verify(password, pending):
                if state.closed or not session.connected:
                    return
                session.send("The passwords do not match. Let's try again.")
                state.stage = Stage.NEW_PASSWORD
                self._ask_password(session, "Choose a password: ")
                return
            if state.closed or not session.connected:
                return
            try:
                account, uid = await self.accounts.create_player_from_hash(
                    state.name, pending, expected=expected
                )
            except AccountError as exc:
                if session.connected and not state.closed:
                    session.send(escape(str(exc)))
                    self._ask_name(session, state)
                return
        finally:
            expected.settle()
        if state.closed or not session.connected:
            return
        await self._logged_in(session, state, account, wanted=None, created=uid)

    async def _one_line_create(
        self, session: Session, state: LoginState, name: str, password: str
    ) -> None:
        try:
            account, uid = await self.accounts.create_player(name, password)
        except AccountError as exc:
            if session.connected and not state.closed:
                session.send(escape(str(exc)))
                session.prompt(NAME_PROMPT)
            return
        if state.closed or not session.connected:
            return
        await self._logged_in(session, state, account, wanted=None, created=uid)

    async def _one_line_connect(
        self, session: Session, state: LoginState, name: str, password: str
    ) -> None:
        try:
            account = await self.accounts.authenticate(name, password, session.peer_host)
        except (AuthenticationFailed, LoginThrottled) as exc:
            if not state.closed and self._fail(session, state, str(exc)):
                session.prompt(NAME_PROMPT)
            return
        if state.closed or not session.connected:
            return
        await self._logged_in(session, state, account, wanted=name)

    # -- after the password ---------------------------------------------------------
    async def _logged_in(
        self,
        session: Session,
        state: LoginState,
        account: Account,
        *,
        wanted: str | None,
        created: UUID | None = None,
    ) -> None:
        """Into the game after the password; ``created``: the first character of
        an account just made with it."""
        ban = await self.accounts.bans.of_account(account.key, self.accounts.wall())
        if ban is not None:
            log.info("refused login of banned account %s from %s", account.name, session.peer_host)
            state.closed = True
            session.data[DISCONNECT_REASON_KEY] = "banned"
            session.close(
                f"The account {account.name} is banned {ban.ends(self.accounts.wall())}: "
                f"{escape(ban.reason)}"
            )
            return
        session.account_id = account.key
        session.data["role"] = account.role
        state.account, state.name, state.failures = account, account.name, 0
        if created is not None:
            session.send(f"Account {account.name} created.")
            await self._puppet(session, state, account, created)
            return
        chars = await self.accounts.characters(account)
        if not chars:
            # New accounts (and ones made with create-admin) start with a character
            # named like the account.
            try:
                uid = await self.accounts.add_character(account, account.name)
            except AccountError as exc:
                session.send(escape(str(exc)))
                self._menu(session, state, [])
                return
            await self._puppet(session, state, account, uid)
            return
        if wanted is not None:
            for ref in chars:
                if ref.name.casefold() == wanted.strip().casefold():
                    await self._puppet(session, state, account, ref.id)
                    return
        if len(chars) == 1 or wanted is not None:
            await self._puppet(session, state, account, chars[0].id)
            return
        self._menu(session, state, chars)

    def _menu(self, session: Session, state: LoginState, chars: list[CharacterRef]) -> None:
        state.stage = Stage.CHOOSE
        limit = self.accounts.max_characters
        if chars:
            listing = "  ".join(f"{i}) {ref.name}" for i, ref in enumerate(chars, 1))
            session.send(f"Your characters: {listing}")
            session.send(
                f"Type a number to play, or 'new <name>' to create a character "
                f"({len(chars)} of {limit} used)."
            )
        else:
            session.send("Type 'new <name>' to create a character.")
        session.prompt("Choose: ")

    async def _choose(self, session: Session, state: LoginState, text: str) -> None:
        account = state.account
        if account is None:
            self._ask_name(session, state)
            return
        chars = await self.accounts.characters(account)
        word, _, rest = text.partition(" ")
        if word.lower() == "new":
            if not rest.strip():
                session.send("Usage: new <name>")
                self._menu(session, state, chars)
                return
            try:
                uid = await self.accounts.add_character(account, rest.strip())
            except AccountError as exc:
                session.send(escape(str(exc)))
                self._menu(session, state, chars)
                return
            await self._puppet(session, state, account, uid)
            return
        choice: CharacterRef | None = None
        if text.isdigit() and 1 <= int(text) <= len(chars):
            choice = chars[int(text) - 1]
        else:
            choice = next((r for r in chars if r.name.casefold() == text.casefold()), None)
        if choice is None:
            session.send("Please type one of the numbers, or 'new <name>'.")
            self._menu(session, state, chars)
            return
        await self._puppet(session, state, account, choice.id)

    async def _puppet(
        self, session: Session, state: LoginState, account: Account, character_id: UUID
    ) -> None:
        engine = self.engine
        # Entering the game is a piece of the loop's work of its own (most of a
        # millisecond in a crowd), and in a login storm the next login's piece
        # follows it: the players' commands that came in meanwhile go first.
        await give_way()
        async with engine.world_lock:
            if state.closed or not session.connected:
                return
            world = engine.world
            pc = world.try_component(character_id, PlayerCharacter)
            if pc is None or not world.entity_exists(character_id):
                session.send("That character is not in the world right now.")
                self._menu(session, state, await self.accounts.characters(account))
                return
            old = engine.sessions.attach(session, character_id)
            session.account_id = account.key
            session.data["role"] = account.role
            session.data.pop(STATE_KEY, None)
            state.stage = Stage.PLAYING
            pc.last_seen = engine.clock.wall()
            if old is not None:
                old.close(TAKEOVER_MESSAGE)
                session.send(f"You take over {pc.name} from your other connection.")
            else:
                session.send(f"Welcome, {pc.name}.")
            await engine.events.publish(
                CharacterConnectedEvent(
                    character_id=character_id,
                    session_id=session.id,
                    takeover=old is not None,
                )
            )
        log.info(
            "account %s plays %s (session %s%s)",
            account.name,
            pc.name,
            session.id,
            ", takeover" if old is not None else "",
        )
        if session.connected:
            engine.sessions.prompt(session)
