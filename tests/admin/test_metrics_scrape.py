"""Scrape /metrics of a real MaidServer and check what operators rely on: every
quest-generation metric and the engine's, named by Prometheus conventions."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from admin import AdminContentPack
from content_packs.heist.pack import HeistPack
from maid_engine.accounts.components import CharacterFactory
from maid_engine.app import MaidServer
from maid_engine.config import Settings
from maid_engine.testing import cmd

#: family -> type. Counters are named without ``_total`` here: the parser strips it
#: from the family and the samples must carry it.
EXPECTED = {
    # engine: tick, systems, sessions, commands, checkpoints
    "maid_tick_duration_seconds": "histogram",
    "maid_tick_overruns": "counter",
    "maid_system_update_duration_seconds": "histogram",
    "maid_system_errors": "counter",
    "maid_sessions": "gauge",
    "maid_commands": "counter",
    "maid_command_duration_seconds": "histogram",
    "maid_checkpoint_duration_seconds": "histogram",
    "maid_checkpoint_failures": "counter",
    # LLM
    "maid_llm_requests": "counter",
    "maid_llm_latency_seconds": "histogram",
    "maid_llm_tokens": "counter",
    "maid_llm_errors": "counter",
    "maid_llm_budget_remaining_tokens": "gauge",
    "maid_llm_quota_refusals": "counter",
    # narrated rooms: turns, changes applied / clamped / rejected, blocks read
    "maid_narrated_turns": "counter",
    "maid_narrated_changes": "counter",
    "maid_narrated_state_blocks": "counter",
    # quest generation's telemetry
    "maid_questgen_seed_queue_depth": "gauge",
    "maid_questgen_in_flight_builds": "gauge",
    "maid_questgen_llm_latency_seconds": "histogram",
    "maid_questgen_llm_latency_p99_seconds": "gauge",
    "maid_questgen_token_budget_remaining_tokens": "gauge",
    "maid_questgen_template_fallbacks": "counter",
    "maid_questgen_template_fallback_ratio": "gauge",
    "maid_questgen_rejections": "counter",
    "maid_questgen_rejection_ratio": "gauge",
    "maid_questgen_signals": "counter",
    "maid_questgen_grounding_score_avg": "gauge",
    "maid_questgen_chain_depth_max": "gauge",
    "maid_questgen_quests_built": "counter",
    "maid_questgen_throttle_active": "gauge",
    # consequences and grounding
    "maid_consequence_batches": "counter",
    "maid_grounding_invalidations": "counter",
}
SNAKE = re.compile(r"^maid_[a-z0-9]+(_[a-z0-9]+)*$")
#: Words that say a value is a duration; such metrics must be in base units.
TIME_WORDS = ("duration", "latency", "time", "elapsed")


async def scrape(port: int) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    head, _, body = data.decode().partition("\r\n\r\n")
    assert head.split()[1] == "200", head
    return body


def value(samples: list[Sample], name: str, **labels: str) -> float | None:
    for s in samples:
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None


async def test_metrics_are_complete_and_well_named(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        telnet_port=0,
        metrics_port=0,
        telnet_host="127.0.0.1",
        metrics_host="127.0.0.1",
    )
    server = MaidServer(settings, packs=[HeistPack, AdminContentPack], announce=lambda _line: None)
    async with server.lifespan():
        # A client at the login screen, and a command run by a character.
        _, writer = await asyncio.open_connection("127.0.0.1", server.telnet_port)
        engine = server.engine
        factory = engine.services.get(CharacterFactory)  # type: ignore[type-abstract]
        hero = factory.create_character("Scraper", "acct")
        await cmd(engine, hero, "look")
        for _ in range(100):
            body = await scrape(server.metrics_port)
            families = {f.name: f for f in text_string_to_metric_families(body)}
            samples = [s for f in families.values() for s in f.samples]
            if value(samples, "maid_sessions", state="login") == 1.0 and value(
                samples, "maid_ticks_total"
            ):
                break
            await asyncio.sleep(0.05)
        writer.close()

    missing = {n for n in EXPECTED if n not in families}
    assert not missing, f"missing metrics: {sorted(missing)}"
    wrong = {n: (families[n].type, t) for n, t in EXPECTED.items() if families[n].type != t}
    assert not wrong, f"wrong types: {wrong}"
    for name, family in families.items():
        base = name.removesuffix("_created")
        if name != base and (base in families or f"{base}_total" in families):
            continue  # the client library's creation-time series of a metric
        assert SNAKE.match(name), f"{name} is not snake_case with the maid_ prefix"
        if family.type == "counter":
            assert all(s.name.endswith(("_total", "_created")) for s in family.samples), name
        else:
            assert not name.endswith("_total"), f"{name}: only counters end in _total"
        if any(word in name for word in TIME_WORDS):
            assert name.endswith("_seconds"), f"{name}: durations are in seconds"
        assert not re.search(r"_(ms|milliseconds|minutes|hours)(_|$)", name), name
    # Live values, not placeholders.
    assert value(samples, "maid_sessions", state="login") == 1.0
    assert value(samples, "maid_commands_total", category="general") == 1.0
    assert (value(samples, "maid_tick_duration_seconds_count") or 0) > 0
    assert (value(samples, "maid_checkpoint_duration_seconds_count") or 0) >= 1
    assert value(samples, "maid_questgen_token_budget_remaining_tokens") == 15000.0
    assert value(samples, "maid_questgen_seed_queue_depth") is not None
