"""The ``maid`` command line."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from maid_engine import loops
from maid_engine.config import ConfigError, Settings, load_settings, needed_extras
from maid_engine.content import PackError, render_registries
from maid_engine.ecs.schedule import ScheduleError, render_markdown, render_text
from maid_engine.engine import GameEngine
from maid_engine.llm.check import check_model
from maid_engine.logs import setup_logging
from maid_engine.tls import write_self_signed

log = logging.getLogger("maid.cli")


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    for flag, key in (
        ("telnet_port", "telnet_port"),
        ("web_host", "web_host"),
        ("web_port", "web_port"),
        ("telnet_host", "telnet_host"),
        ("metrics_port", "metrics_port"),
        ("metrics_host", "metrics_host"),
        ("database_url", "database_url"),
        ("data_dir", "data_dir"),
        ("tick_rate", "tick_rate"),
        ("log_level", "log_level"),
        ("llm_model", "llm_model"),
        ("llm_api_base", "llm_api_base"),
        ("llm_router_config", "llm_router_config"),
        ("llm_on_failure", "llm_on_failure"),
        ("tls_port", "tls_port"),
        ("tls_cert", "tls_cert_file"),
        ("tls_key", "tls_key_file"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            overrides[key] = value
    if getattr(args, "pack", None):
        overrides["packs"] = args.pack
    if getattr(args, "log_json", False):
        overrides["log_json"] = True
    if getattr(args, "watch", False):
        overrides["watch"] = True
    return load_settings(getattr(args, "config", None), **overrides)


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="TOML settings file (also MAID_CONFIG)")
    p.add_argument("--data-dir", help="folder for the SQLite file and caches (MAID_DATA_DIR)")
    p.add_argument(
        "--database-url",
        help="sqlite+aiosqlite:///file.db or postgresql+asyncpg://... (MAID_DATABASE_URL)",
    )
    p.add_argument("--pack", action="append", help="content pack to load (repeatable; MAID_PACKS)")
    p.add_argument("--log-level", help="DEBUG, INFO, WARNING, ERROR (MAID_LOG_LEVEL)")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    _add_common(p)
    p.add_argument("--telnet-host", help="telnet bind address (MAID_TELNET_HOST)")
    p.add_argument("--telnet-port", type=int, help="telnet port, 0 = any free (MAID_TELNET_PORT)")
    p.add_argument(
        "--tls-port",
        type=int,
        help="telnet over TLS on this port, 0 = any free; off when not given (MAID_TLS_PORT)",
    )
    p.add_argument("--tls-cert", help="TLS certificate chain, PEM (MAID_TLS_CERT_FILE)")
    p.add_argument("--tls-key", help="the certificate's private key, PEM (MAID_TLS_KEY_FILE)")
    p.add_argument("--web-host", help="web client bind address (MAID_WEB_HOST)")
    p.add_argument("--web-port", type=int, help="web client port, 0 = any free (MAID_WEB_PORT)")
    p.add_argument("--metrics-host", help="/metrics bind address (MAID_METRICS_HOST)")
    p.add_argument("--metrics-port", type=int, help="/metrics port, 0 = any free")
    p.add_argument("--tick-rate", type=float, help="ticks per second (MAID_TICK_RATE)")
    p.add_argument("--log-json", action="store_true", help="one JSON object per log line")
    p.add_argument(
        "--watch",
        action="store_true",
        help="development: reload a world pack when its data files change (MAID_WATCH)",
    )
    p.add_argument("--llm-model", help="LiteLLM model name, e.g. openai/llama3 (MAID_LLM_MODEL)")
    p.add_argument("--llm-api-base", help="the model server's URL (MAID_LLM_API_BASE)")
    p.add_argument(
        "--llm-router-config",
        help="a LiteLLM Router file (model_list format) spreading calls over several "
        "model servers (MAID_LLM_ROUTER_CONFIG)",
    )
    p.add_argument(
        "--llm-on-failure",
        choices=("stop", "templates"),
        help="a configured model that cannot answer at start-up: stop (default) or start "
        "on templates with a warning (MAID_LLM_ON_FAILURE)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="maid", description="MAID: a MUD whose world is alive")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="start the server and serve until SIGINT/SIGTERM")
    _add_run_options(run)
    extras = sub.add_parser(
        "extras",
        help="print the pip extras the configuration of `maid run` needs (e.g. llm)",
        description="Takes the arguments of `maid run`; prints one extra per line "
        "(nothing when none is needed). ./scripts/run installs them.",
    )
    _add_run_options(extras)

    admin = sub.add_parser("create-admin", help="create an admin account (or promote one)")
    _add_common(admin)
    admin.add_argument("name")
    admin.add_argument(
        "--owner",
        action="store_true",
        help="make an owner instead: an admin who may also make and unmake admins",
    )

    systems = sub.add_parser(
        "systems", help="print the tick's resolved system order (no database is opened)"
    )
    _add_common(systems)
    systems.add_argument(
        "--markdown", action="store_true", help="the marked block of docs/architecture.md"
    )

    registries = sub.add_parser(
        "registries",
        help="list the extension registries' entries and the pack that added each "
        "(no database is opened)",
    )
    _add_common(registries)

    cert = sub.add_parser(
        "tls-cert",
        help="development: write a self-signed TLS certificate and key (cert.pem, key.pem)",
        description="Writes DIR/cert.pem and DIR/key.pem with the openssl command; "
        "existing files are never overwritten. Clients must be told to trust the "
        "certificate (or not to verify it): use a real certificate in production.",
    )
    cert.add_argument("--out", required=True, help="folder to write cert.pem and key.pem into")
    cert.add_argument("--host", default="localhost", help="name the certificate is for")
    cert.add_argument("--days", type=int, default=365, help="days it is valid (default 365)")

    check = sub.add_parser("check-pack", help="validate a content pack without starting")
    check.add_argument("path", help="pack folder, or an installed pack's name")

    sub.add_parser(
        "new-pack",
        add_help=False,
        help="create a new content pack (one room, one NPC, one quest): NAME [--dir D]",
    )
    # Its options belong to the simulator (main() hands it the rest of the line).
    sub.add_parser(
        "simulate", add_help=False, help="run the world with bot players and report on its quests"
    )
    return parser


#: Imported only for ``maid simulate``: the engine must not import a rules layer.
SIMULATE_MODULE = "classic_rpg.simulate.cli"
#: Imported only for ``maid new-pack``: the pack it writes is built on the RPG layer.
SCAFFOLD_MODULE = "classic_rpg.scaffold"


def _simulate(argv: Sequence[str]) -> int:
    import importlib

    result: int = importlib.import_module(SIMULATE_MODULE).main(list(argv))
    return result


def _new_pack(argv: Sequence[str]) -> int:
    import importlib

    result: int = importlib.import_module(SCAFFOLD_MODULE).main(list(argv))
    return result


def _systems(settings: Settings, markdown: bool) -> int:
    """Register the configured packs (nothing is started, no database opened) and
    print the order their systems run in."""
    engine = GameEngine(settings, use_store=False)
    engine.register_packs()
    table = engine.resolved_schedule()
    print(render_markdown(table) if markdown else render_text(table))
    return 0


def _registries(settings: Settings) -> int:
    """Register the configured packs (nothing is started, no database opened) and
    list every entry of the extension registries with the pack that added it."""
    engine = GameEngine(settings, use_store=False)
    engine.register_packs()
    print(render_registries(engine.registries.rows()))
    return 0


async def _run(settings: Settings) -> int:
    # The server, the pack checker and the admin tool are imported by the command
    # that needs them: they pull in SQLAlchemy and telnetlib3, which ``maid --help``
    # and ``maid simulate`` must not pay for.
    from maid_engine.app import MaidServer

    # A configured model that cannot answer stops the start-up here, in one line,
    # rather than being found out by players later (or, if the operator asked for
    # it, the server starts on templates and says so).
    problem = await check_model(settings)
    if problem is not None:
        if settings.llm_on_failure != "templates":
            print(problem.line(), file=sys.stderr, flush=True)
            return 6
        print(problem.warning(), flush=True)
        log.warning("%s", problem.warning())
        settings = settings.model_copy(update={"llm_model": "", "llm_router_config": ""})
    server = MaidServer(settings, announce=lambda line: print(line, flush=True))
    if problem is not None:
        server.engine.llm.unusable = f"{problem.cause} ({problem.fix})"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    reason = "signal"
    try:
        reason = await server.serve_until(stop)
    finally:
        await server.stop(reason if reason != "signal" else "")
    if server.engine.final_checkpoint_failed:
        print(
            "MAID stopped, but the final save failed: changes since the last checkpoint "
            "were lost (is the database reachable?)",
            file=sys.stderr,
            flush=True,
        )
        return 5
    print("MAID stopped", flush=True)
    return 0


def _tls_cert(args: argparse.Namespace) -> int:
    try:
        cert, key = write_self_signed(Path(args.out), host=args.host, days=args.days)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {cert} and {key} (self-signed for {args.host}, {args.days} days)")
    print(f"use: maid run --tls-port 4443 --tls-cert {cert} --tls-key {key}")
    return 0


def _admin_password(name: str) -> str | None:
    """The new admin's password: MAID_ADMIN_PASSWORD, else asked twice at a terminal,
    else the first line of standard input (a script pipes it in once). None, with
    the reason on stderr, when there is none."""
    password = os.environ.get("MAID_ADMIN_PASSWORD")
    if password:
        return password
    if not sys.stdin.isatty():
        line = sys.stdin.readline().rstrip("\r\n")
        if not line:
            print(
                "error: no password: set MAID_ADMIN_PASSWORD, pipe it in on one line, "
                "or run this at a terminal",
                file=sys.stderr,
            )
            return None
        return line
    password = getpass.getpass(f"Password for {name}: ")
    if getpass.getpass("Repeat the password: ") != password:
        print("The passwords do not match.", file=sys.stderr)
        return None
    return password


def main(argv: Sequence[str] | None = None) -> int:
    line = list(sys.argv[1:] if argv is None else argv)
    if line[:1] == ["simulate"]:
        return _simulate(line[1:])
    if line[:1] == ["new-pack"]:
        return _new_pack(line[1:])
    args = build_parser().parse_args(argv)
    if args.command == "tls-cert":
        return _tls_cert(args)
    if args.command == "check-pack":
        from maid_engine.packcheck import check_pack

        problems = check_pack(args.path)
        for problem in problems:
            print(problem)
        if problems:
            print(f"{len(problems)} problem(s) found", file=sys.stderr)
            return 1
        print(f"{args.path}: OK")
        return 0
    try:
        settings = _settings(args)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "extras":
        for extra in needed_extras(settings):
            print(extra)
        return 0
    if args.command in ("systems", "registries"):
        # No logging set up: the table is the whole answer (warnings still show).
        try:
            if args.command == "registries":
                return _registries(settings)
            return _systems(settings, args.markdown)
        except (PackError, ScheduleError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 3
    setup_logging(settings.log_level, settings.log_json)
    if args.command == "create-admin":
        from maid_engine.accounts.admin_cli import create_admin

        password = _admin_password(args.name)
        if password is None:
            return 1
        try:
            print(asyncio.run(create_admin(settings, args.name, password, owner=args.owner)))
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    try:
        return loops.run(_run(settings), settings.event_loop)
    except loops.LoopUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except (PackError, ScheduleError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except ConfigError as exc:
        # Found only when the server starts (an unreadable TLS certificate, say).
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
