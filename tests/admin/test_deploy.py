"""deploy/: the Grafana dashboard and the Prometheus configuration only refer to
metrics a MAID server really exposes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from kits.heist import make_engine
from prometheus_client.parser import text_string_to_metric_families

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
METRIC = re.compile(r"\bmaid_[a-z0-9_]+")
SUFFIXES = ("_bucket", "_count", "_sum", "_total")


async def exposed(tmp_path: Path) -> set[str]:
    engine = make_engine(tmp_path, store=False)
    async with engine.lifespan():
        await engine.tick()
        text = engine.metrics.render().decode()
    return {f.name for f in text_string_to_metric_families(text)}


def family(name: str) -> str:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def exprs_of(panels: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for panel in panels:
        out += [t["expr"] for t in panel.get("targets", [])]
        out += exprs_of(panel.get("panels", []))
    return out


async def test_the_dashboard_uses_only_real_metrics(tmp_path: Path) -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "maid-dashboard.json").read_text())
    panels = dashboard["panels"]
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids))
    for p in panels:
        pos = p["gridPos"]
        assert pos["x"] + pos["w"] <= 24
    names = {family(m) for e in exprs_of(panels) for m in METRIC.findall(e)}
    real = await exposed(tmp_path)
    assert not names - real, f"the dashboard refers to unknown metrics: {sorted(names - real)}"
    # What the dashboard must show (the brief of deploy/).
    for needed in (
        "maid_tick_duration_seconds",
        "maid_system_update_duration_seconds",
        "maid_sessions",
        "maid_commands",
        "maid_llm_latency_seconds",
        "maid_llm_tokens",
        "maid_llm_errors",
        "maid_narrated_turns",
        "maid_narrated_changes",
        "maid_questgen_quests_built",
        "maid_questgen_rejections",
        "maid_questgen_template_fallbacks",
        "maid_consequence_batches",
        "maid_checkpoint_duration_seconds",
    ):
        assert needed in names, needed
    assert all("$instance" in e for e in exprs_of(panels))


async def test_prometheus_config_and_alerts(tmp_path: Path) -> None:
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["job_name"] == "maid"
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == ["127.0.0.1:9464"]
    for rule_file in config["rule_files"]:
        rules = yaml.safe_load((DEPLOY / "prometheus" / rule_file).read_text())
        exprs = [r["expr"] for g in rules["groups"] for r in g["rules"]]
        names = {family(m) for e in exprs for m in METRIC.findall(e)}
        assert names
        assert not names - await exposed(tmp_path)
