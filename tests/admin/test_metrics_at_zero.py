"""A fresh server exposes every series the Grafana dashboard reads, at zero.

A labelled series only exists once something touches it; a panel over a server
that has not yet built a quest or met an LLM error would say "No data" where it
means 0. This scrapes /metrics of a server that has done nothing and checks every
metric in deploy/grafana's queries has samples, labelled ones with their label
values known in advance.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from maid_engine.app import MaidServer
from maid_engine.config import Settings
from maid_engine.llm.errors import LLMError
from maid_engine.llm.metrics import ERROR_KINDS

DASHBOARD = Path(__file__).parents[2] / "deploy" / "grafana" / "maid-dashboard.json"
SUFFIXES = ("_bucket", "_count", "_sum")


async def scrape(port: int) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    return data.decode().partition("\r\n\r\n")[2]


def value(samples: list[Sample], name: str, **labels: str) -> float | None:
    for s in samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None


def dashboard_metrics() -> set[str]:
    """Every metric name in the dashboard's queries (histograms by their base)."""
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            expr = node.get("expr")
            if isinstance(expr, str):
                found.update(re.findall(r"\bmaid_[a-z0-9_]+", expr))
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(json.loads(DASHBOARD.read_text()))
    return found


async def test_a_fresh_server_shows_zero_not_no_data(tmp_path: Path) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path,
        telnet_port=0,
        metrics_port=0,
        telnet_host="127.0.0.1",
        metrics_host="127.0.0.1",
        scrypt_n=1024,
    )
    server = MaidServer(settings, announce=lambda _line: None)
    async with server.lifespan():
        body = await scrape(server.metrics_port)
    samples = [s for f in text_string_to_metric_families(body) for s in f.samples]
    names = {s.name for s in samples}
    wanted = dashboard_metrics()
    assert len(wanted) > 40, "the dashboard's queries were not read"
    missing = sorted(
        m for m in wanted if m not in names and not any(m + s in names for s in SUFFIXES)
    )
    assert not missing, f"the dashboard reads series a fresh server lacks: {missing}"
    # The labelled series are there, at zero, for the values the code knows.
    zero = {
        "maid_questgen_quests_built_total": {"narrative": "template"},
        "maid_questgen_rejections_total": {"stage": "validation"},
        "maid_questgen_template_fallbacks_total": {"reason": "no_model"},
        "maid_questgen_signals_total": {"outcome": "throttled"},
        "maid_questgen_seeds_total": {"outcome": "evicted_overflow"},
        "maid_questgen_offers_total": {"method": "notice_board"},
        "maid_questgen_throttle_active": {"action": "launches_blocked"},
        "maid_questgen_alert_active": {"alert": "rejection_rate"},
        "maid_consequence_batches_total": {"status": "conflict"},
        "maid_consequence_signals_total": {"chain_type": "retaliation"},
        "maid_grounding_invalidations_total": {"reason": "quest_giver_destroyed"},
        "maid_narrated_turns_total": {"outcome": "timeout"},
        "maid_narrated_changes_total": {"kind": "clamped"},
        "maid_llm_requests_total": {"purpose": "quest_narrative", "outcome": "ok"},
        "maid_llm_errors_total": {"purpose": "narration", "kind": "timeout"},
        "maid_llm_tokens_total": {"purpose": "narration", "kind": "prompt"},
        "maid_llm_quota_refusals_total": {"purpose": "narration", "kind": "account"},
        "maid_system_errors_total": {"system": "QuestGenerationSystem"},
    }
    for name, labels in zero.items():
        assert value(samples, name, **labels) == 0.0, (name, labels)
    # Every command category and every system has its series from the start.
    assert value(samples, "maid_commands_total", category="admin") == 0.0
    systems = {s.labels["system"] for s in samples if s.name == "maid_system_errors_total"}
    assert len(systems) > 5


def test_every_llm_error_kind_is_known() -> None:
    kinds: set[str] = set()
    stack = list(LLMError.__subclasses__())
    while stack:
        cls = stack.pop()
        kinds.add(cls.kind)
        stack.extend(cls.__subclasses__())
    assert kinds - {"quota_exceeded"} <= set(ERROR_KINDS)
