"""Declarative commands, their registry, parser and permissions."""

from maid_engine.commands.command import (
    Command,
    CommandContext,
    CommandError,
    CommandHost,
    CommandsPort,
    CommandTable,
    Guard,
    Interceptor,
    Role,
    command,
)
from maid_engine.commands.registry import CommandRegistry, run_line

__all__ = [
    "Command",
    "CommandContext",
    "CommandError",
    "CommandHost",
    "CommandRegistry",
    "CommandTable",
    "CommandsPort",
    "Guard",
    "Interceptor",
    "Role",
    "command",
    "run_line",
]
