"""A configured model that cannot answer: ``maid run`` stops with one line naming
the fix, or, when the operator asked for it, starts on templates and says so on the
console and in ``@quest backpressure``. Real processes against a local
OpenAI-compatible server (``tests/fakellm.py``)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from e2e.client import ClientPool, flat
from e2e.fixtures import maid_server, telnet
from e2e.server import ServerProcess, child_env, run_cli
from fakellm import Behaviour, FakeOpenAIServer

__all__ = ["maid_server", "telnet"]

StartServer = Callable[..., Awaitable[ServerProcess]]

RUN = ("run", "--telnet-port", "0", "--metrics-port", "0")


def model_env(url: str, **more: str) -> dict[str, str]:
    return {
        "MAID_LLM_MODEL": "openai/test-model",
        "MAID_LLM_API_BASE": url,
        "MAID_LLM_API_KEY": "sk-test",
        "MAID_LLM_TIMEOUT": "5",
        **more,
    }


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("error:")]


async def test_a_refused_key_stops_the_start_naming_the_fix(tmp_path: Path) -> None:
    with FakeOpenAIServer() as llm:
        llm.set_default(Behaviour("status", status=401, body=b'{"error": "bad key"}'))
        code, out, err = await run_cli(*RUN, "--data-dir", str(tmp_path), env=model_env(llm.url))
    assert code == 6, err
    assert "listening" not in out
    [line] = error_lines(err)
    assert line.startswith("error: the LLM model openai/test-model at http")
    assert "fix MAID_LLM_MODEL or MAID_LLM_API_KEY" in line
    assert "MAID_LLM_ON_FAILURE=templates" in line
    assert "Traceback" not in err


async def test_a_model_server_that_is_down_stops_the_start(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, _, err = await run_cli(
        *RUN, "--data-dir", str(tmp_path), env=model_env(f"http://127.0.0.1:{port}/v1")
    )
    assert code == 6, err
    [line] = error_lines(err)
    assert "start the model server or fix MAID_LLM_API_BASE" in line


async def test_without_litellm_the_start_says_how_to_install_it(tmp_path: Path) -> None:
    # A "litellm" that fails to import, ahead of the real one on the path.
    fake = tmp_path / "no_litellm" / "litellm"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named litellm')\n")
    env = {**child_env(model_env("http://127.0.0.1:9/v1"))}
    env["PYTHONPATH"] = os.pathsep.join([str(fake.parent), env["PYTHONPATH"]])
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "maid_engine.cli", *RUN, "--data-dir", str(tmp_path / "data"),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL, env=env,
    )  # fmt: skip
    _, raw = await asyncio.wait_for(proc.communicate(), 60)
    err = raw.decode(errors="replace")
    assert proc.returncode == 6, err
    [line] = error_lines(err)
    assert "MAID_LLM_MODEL is openai/test-model but LiteLLM is not installed" in line
    assert "./scripts/run" in line


async def test_a_working_model_is_checked_once_and_the_server_starts(
    tmp_path: Path, maid_server: StartServer
) -> None:
    with FakeOpenAIServer() as llm:
        server = await maid_server(tmp_path, env=model_env(llm.url))
        assert "warning" not in server.stdout().lower()
        assert len(llm.requests) >= 1
        assert "ready" in llm.requests[0]["messages"][-1]["content"]
        await server.terminate()


async def test_on_failure_templates_starts_and_says_so_everywhere(
    tmp_path: Path, maid_server: StartServer, telnet: ClientPool
) -> None:
    code, _, err = await run_cli(
        "create-admin", "Warden", "--data-dir", str(tmp_path),
        env={"MAID_ADMIN_PASSWORD": "wardenpw1"},
    )  # fmt: skip
    assert code == 0, err
    with FakeOpenAIServer() as llm:
        llm.set_default(Behaviour("status", status=404, body=b'{"error": "no such model"}'))
        env = model_env(llm.url, MAID_LLM_ON_FAILURE="templates")
        server = await maid_server(tmp_path, env=env)
        asked = len(llm.requests)
        out = server.stdout()
        assert "MAID warning: the LLM model openai/test-model" in out
        assert "starting on templates (MAID_LLM_ON_FAILURE=templates)" in out
        warden = await telnet.open(server.host, server.telnet_port)
        await warden.connect_as("Warden", "wardenpw1")
        shown = flat(await warden.command("@quest backpressure"))
        assert "LLM: the configured model could not be used at start-up" in shown
        assert "fix MAID_LLM_MODEL or MAID_LLM_API_KEY" in shown
        assert "model None" in shown
        assert len(llm.requests) == asked == 1  # only the check: nothing asks it later


@pytest.mark.parametrize(
    ("args", "env", "extras"),
    [
        ((), {}, ""),
        (("--llm-model", "openai/x"), {}, "llm\n"),
        ((), {"MAID_LLM_MODEL": "openai/x"}, "llm\n"),
    ],
)
async def test_maid_extras_names_what_the_configuration_needs(
    args: tuple[str, ...], env: dict[str, str], extras: str
) -> None:
    code, out, err = await run_cli("extras", *args, env=env)
    assert code == 0, err
    assert out == extras


async def test_maid_extras_reads_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "maid.toml"
    config.write_text('[maid]\nllm_model = "openai/x"\n')
    code, out, _ = await run_cli("extras", "--config", str(config))
    assert (code, out) == (0, "llm\n")
    config.write_text("[maid]\ntick_rate = -1\n")
    code, _, err = await run_cli("extras", "--config", str(config))
    assert code == 2
    assert "tick_rate" in err
