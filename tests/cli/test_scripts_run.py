"""./scripts/run installs what the configuration needs: the llm extra when a model
is configured by environment, flag or config file. Run on a copy of the scripts with
a stand-in virtualenv whose pip and server only write down what they were asked;
``maid extras`` is the real one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PYTHON_STUB = """#!/usr/bin/env bash
echo "python $*" >> "$LOG"
"""
MAID_STUB = """#!/usr/bin/env bash
if [ "$1" = extras ]; then
  exec "$REAL_PYTHON" -m maid_engine.cli "$@"
fi
echo "maid $*" >> "$LOG"
"""


def stand_in(tmp_path: Path) -> Path:
    root = tmp_path / "maid"
    (root / "scripts").mkdir(parents=True)
    for script in ("run", "bootstrap"):
        shutil.copy(REPO / "scripts" / script, root / "scripts" / script)
    (root / "pyproject.toml").write_text("[project]\nname = 'maid'\n")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("python", PYTHON_STUB), ("maid", MAID_STUB)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return root


def run(root: Path, *args: str, **env: str) -> list[str]:
    log = root / "calls.log"
    log.unlink(missing_ok=True)
    child = {k: v for k, v in os.environ.items() if not k.startswith("MAID_")}
    child.update(
        LOG=str(log),
        REAL_PYTHON=sys.executable,
        PYTHON=sys.executable,
        PYTHONPATH=str(REPO),
        **env,
    )
    done = subprocess.run(
        ["bash", str(root / "scripts" / "run"), *args],
        env=child,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines()


def test_run_installs_the_llm_extra_only_when_a_model_is_configured(tmp_path: Path) -> None:
    root = stand_in(tmp_path)
    calls = run(root, "--telnet-port", "0")
    assert any(c.endswith(f"pip install -q -e {root}") for c in calls), calls
    assert not any("[llm]" in c for c in calls)
    assert calls[-1] == "maid run --telnet-port 0"

    calls = run(root, "--telnet-port", "0", MAID_LLM_MODEL="openai/x")
    assert any(c.endswith(f"pip install -q -e {root}[llm]") for c in calls), calls
    assert calls[-1] == "maid run --telnet-port 0"
    # Installed once: the next start does not install again.
    calls = run(root, MAID_LLM_MODEL="openai/x")
    assert calls == ["maid run"]

    config = tmp_path / "maid.toml"
    config.write_text('llm_model = "openai/x"\n')
    (root / ".venv" / ".maid-installed-llm").unlink()
    calls = run(root, "--config", str(config))
    assert any(c.endswith("[llm]") for c in calls), calls
    (root / ".venv" / ".maid-installed-llm").unlink()
    calls = run(root, "--llm-model", "openai/x")
    assert any(c.endswith("[llm]") for c in calls), calls
