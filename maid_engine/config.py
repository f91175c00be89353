"""Settings: ``MAID_*`` environment variables, an optional TOML file, CLI flags.

Precedence (highest first): explicit overrides (CLI flags), environment, the TOML
file named by ``MAID_CONFIG`` (or ``--config``), defaults.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from maid_engine.loops import EventLoopChoice


class ConfigError(Exception):
    """Invalid configuration; ``str()`` has one line per problem."""


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        return [p.strip() for p in value.split(",") if p.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MAID_", env_nested_delimiter="__", extra="forbid", validate_default=True
    )

    # Where the SQLite file, logs and the narrative cache live.
    data_dir: Path = Path("data")
    # Empty means sqlite+aiosqlite:///<data_dir>/maid.db
    database_url: str = ""
    packs: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["ironvale", "admin"])

    telnet_host: str = "127.0.0.1"
    telnet_port: int = Field(default=4000, ge=0, le=65535)
    telnet_enabled: bool = True
    # The browser client: its page at / and its WebSocket at /ws (0: any free port).
    web_host: str = "127.0.0.1"
    web_port: int = Field(default=4080, ge=0, le=65535)
    web_enabled: bool = True
    metrics_host: str = "127.0.0.1"
    metrics_port: int = Field(default=9464, ge=0, le=65535)
    metrics_enabled: bool = True
    # Telnet over TLS on a second port (None: off, 0: any free port), with the same
    # sessions, limits and login as plain telnet. The certificate chain and its key are
    # PEM files; `maid tls-cert` writes a self-signed pair for development.
    tls_port: int | None = Field(default=None, ge=0, le=65535)
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None

    tick_rate: float = Field(default=10.0, gt=0, le=1000, description="ticks per real second")
    # Commands that come in during a tick need not wait for its end: at a gap between
    # two systems, once the tick has worked this long since it last looked, it lends
    # the world to them, one whole command at a time, starting none once it has given
    # tick_lend_budget in one tick (0: never; they wait for the tick to end). Half a
    # millisecond: a command that came in waits about that long for the tick to
    # look, as long as a turn of the output pacer's writes to a crowd.
    tick_lend_after: float = Field(default=0.0005, ge=0, le=1, description="real seconds")
    tick_lend_budget: float = Field(default=0.004, ge=0, le=1, description="real seconds")
    # A system that spreads its work over ticks (the NPCs' visits, the story's
    # detection, quest generation's compositions and finished builds) does at
    # most this much of it in one tick, its time lent to commands
    # aside, and leaves the rest for the next (0: no limit). Its count of work a
    # tick, sized by game time, bounds it on a fast machine; this keeps a slow one
    # (or a slow moment) from making each such system's share two or three times
    # as long. On a manual clock (simulations) it never cuts.
    tick_slice: float = Field(default=0.002, ge=0, le=1, description="real seconds")
    # The tick's own time (what it lent to commands aside) past which each of those
    # systems does one step of its spread work and leaves the rest (0: no such
    # bound). Each share is counted alone; this keeps the shares of several such
    # systems, added to the work that cannot wait, from making one tick too long.
    tick_budget: float = Field(default=0.006, ge=0, le=1, description="real seconds")
    time_scale: float = Field(default=24.0, gt=0, description="game seconds per real second")
    checkpoint_interval: float = Field(default=5.0, gt=0, description="real seconds")
    # A checkpoint is collected in pieces between ticks (maid_engine.changes): at
    # most this many changed entities turned into JSON per piece; 0: in one piece.
    checkpoint_piece: int = Field(default=250, ge=0, description="entities per piece")
    # A piece is staged in slices of at most this long, the waiting commands given
    # the world between two (0: a piece in one go); the collection is finished once
    # what is left fits one slice.
    checkpoint_slice: float = Field(default=0.0005, ge=0, le=1, description="real seconds")
    # A checkpoint still not collected after this many pieces (the world changing
    # faster than the pieces stage it) is finished in one piece.
    checkpoint_max_pieces: int = Field(default=30, ge=1)
    # Player-facing fights run on real time, whatever the time scale: a fighter
    # attacks once per this many real seconds (read by the RPG rules layer).
    combat_round_seconds: float = Field(default=3.0, ge=0.5, le=60, description="real seconds")
    # Freeze the loaded world out of the cyclic GC at start and run full collections
    # only between ticks (maid_engine.collector); the two intervals are real seconds.
    gc_freeze: bool = True
    gc_refreeze_interval: float = Field(default=60.0, gt=0)
    # Freeze what survives each full collection between ticks, so the next one
    # visits only what was made since (maid_engine.collector).
    gc_freeze_survivors: bool = True
    gc_deep_interval: float = Field(default=6 * 3600.0, ge=0, description="0: never")
    # Real seconds at least between two full collections that fall due; each walks
    # what survived since the one before (after a login storm: everything the new
    # players' connections hold), so a shorter gap means shorter, more pauses.
    gc_collect_gap: float = Field(default=5.0, gt=0, description="real seconds")
    # Young collections between two collections of the middle generation (Python's
    # second threshold, 10 by default). Each of those visits what survived the young
    # ones since the last: fewer young runs between two, shorter pauses.
    gc_young_runs: int = Field(default=3, ge=1, le=100)
    # How long another thread may run Python code before the event loop gets the
    # GIL back (sys.setswitchinterval, set while the engine runs; 0: Python's 5 ms).
    # The database driver's and the hashing threads' Python code otherwise makes a
    # command's answer wait up to 5 ms at each hand-over.
    switch_interval: float = Field(default=0.0005, ge=0, le=0.1, description="real seconds")
    # uvloop (C, libuv) where installed: the loop's own part of each command's round
    # trip is smaller. ``asyncio``: the standard library's loop (maid_engine.loops).
    event_loop: EventLoopChoice = "auto"
    random_seed: int | None = None

    # Off the event loop: scrypt parameters (n=2**14, r=8, p=1 is ~16 MiB, ~50 ms).
    scrypt_n: int = Field(default=2**14, ge=2**10)
    scrypt_r: int = Field(default=8, ge=1)
    scrypt_p: int = Field(default=1, ge=1)
    #: Threads that hash passwords; 0: one less than the CPUs the server may run
    #: on, at least one, so a storm of logins leaves a CPU to the players already
    #: in the game. Logins beyond it wait in line and are told their place.
    hash_workers: int = Field(default=0, ge=0, le=64)

    max_line_length: int = Field(default=4096, ge=80)
    commands_per_second: float = Field(default=10.0, gt=0)
    command_burst: int = Field(default=20, ge=1)
    idle_timeout: float = Field(default=1800.0, gt=0)
    max_connections_per_ip: int = Field(default=20, ge=1)
    max_connections: int = Field(default=2000, ge=1)
    # Connections still at the login prompt: closed after login_timeout seconds, at most
    # max_prelogin_per_ip per address, and never more than max_connections minus the
    # share kept for logged-in players.
    login_timeout: float = Field(default=60.0, gt=0)
    max_prelogin_per_ip: int = Field(default=5, ge=1)
    logged_in_reserve: float = Field(default=0.1, ge=0, lt=1, description="share of slots")
    # Input bytes per second per address, all its connections together.
    input_bytes_per_second: int = Field(default=16384, ge=1024)
    # Failed logins (maid_engine.accounts.throttle): per account from one address in
    # a sliding minute; then per address over all accounts, with exponential backoff.
    login_attempts_per_minute: int = Field(default=5, ge=1)
    login_failures_per_address: int = Field(default=10, ge=1)
    login_backoff_base: float = Field(default=2.0, gt=0, description="seconds")
    login_backoff_max: float = Field(default=900.0, gt=0, description="seconds")
    login_failures_forget: float = Field(default=3600.0, gt=0, description="seconds")

    llm_model: str = ""
    llm_api_base: str = ""
    llm_api_key: str = ""
    # A LiteLLM Router file (the proxy's model_list format, docs/llm.md "Several
    # model servers"); with it, llm_model names the model group to ask (default:
    # the file's first) and llm_api_base/llm_api_key are not used.
    llm_router_config: str = ""
    # What `maid run` does when the configured model cannot answer at start-up:
    # "stop" (one line naming the fix) or "templates" (start without the model, with
    # a warning on the console and in @quest backpressure).
    llm_on_failure: Literal["stop", "templates"] = "stop"
    llm_timeout: float = Field(default=30.0, gt=0)
    llm_requests_per_minute: int = Field(default=60, ge=1)
    llm_tokens_per_hour: int = Field(default=200_000, ge=0)
    # Fair shares (docs/llm.md, "Quotas and the fair queue"): tokens a character and
    # an account may spend per quota window (0: no such quota), the calls in flight at
    # once (0: no bound) and how many of one account's requests may wait for a turn,
    # and the share of the hourly budget only quest generation may spend.
    llm_quota_window: float = Field(default=600.0, gt=0, description="seconds")
    llm_character_tokens_per_window: int = Field(default=8_000, ge=0)
    llm_account_tokens_per_window: int = Field(default=12_000, ge=0)
    llm_max_concurrent: int = Field(default=4, ge=0)
    llm_queue_per_account: int = Field(default=2, ge=0)
    llm_quest_reserve: float = Field(default=0.1, ge=0, le=1, description="share of the budget")

    log_level: str = "INFO"
    log_json: bool = False
    # Development: reload a world pack when its data files change (maid run --watch).
    watch: bool = False

    @model_validator(mode="after")
    def _tls(self) -> Settings:
        if self.tls_port is not None and (self.tls_cert_file is None or self.tls_key_file is None):
            raise ValueError(
                "tls_port needs tls_cert_file and tls_key_file (MAID_TLS_CERT_FILE, "
                "MAID_TLS_KEY_FILE; `maid tls-cert --out DIR` makes a pair for development)"
            )
        # The web port serves https with the pair even without a TLS telnet port.
        if (self.tls_cert_file is None) != (self.tls_key_file is None):
            raise ValueError(
                "tls_cert_file and tls_key_file go together (MAID_TLS_CERT_FILE, "
                "MAID_TLS_KEY_FILE): a certificate is no use without its key"
            )
        return self

    @field_validator("packs", mode="before")
    @classmethod
    def _packs(cls, value: Any) -> Any:
        return _split_list(value)

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        upper = value.upper()
        if upper not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL")
        return upper

    @field_validator("database_url")
    @classmethod
    def _db(cls, value: str) -> str:
        if value and not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError(
                "must start with sqlite+aiosqlite:// or postgresql+asyncpg:// "
                f"(got {value.split('://')[0]}://)"
            )
        return value

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'maid.db').resolve()}"


def needed_extras(settings: Settings) -> list[str]:
    """The pip extras of the ``maid`` package this configuration needs installed:
    ``llm`` (LiteLLM) when a model or a router file is configured."""
    return ["llm"] if llm_configured(settings) else []


def llm_configured(settings: Settings) -> bool:
    """Whether a model (or a router over several) is configured."""
    return bool(settings.llm_model.strip() or settings.llm_router_config.strip())


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Build settings, raising :class:`ConfigError` with one line per problem."""
    import os

    file_values: dict[str, Any] = {}
    path = config_file or os.environ.get("MAID_CONFIG")
    if path:
        try:
            with open(path, "rb") as fh:
                file_values = tomllib.load(fh)
        except FileNotFoundError:
            raise ConfigError(f"config file {path}: not found") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"config file {path}: {exc}") from None
        file_values = file_values.get("maid", file_values)
    env_keys = {name for name in Settings.model_fields if f"MAID_{name.upper()}" in os.environ}
    # Environment beats the file: drop file values the environment also sets.
    merged = {k: v for k, v in file_values.items() if k not in env_keys}
    merged.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return Settings(**merged)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            msg = err["msg"]
            if err["type"] == "extra_forbidden":
                msg = "unknown setting"
            elif err["type"] == "value_error":
                msg = str(err.get("ctx", {}).get("error", msg))
            if not loc:
                # A rule across several settings: its message names them.
                lines.append(f"config error: {msg}")
                continue
            lines.append(f"config error: {loc}: {msg} (MAID_{loc.upper()})")
        raise ConfigError("\n".join(lines)) from None
