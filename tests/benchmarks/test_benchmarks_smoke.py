"""Keep the benchmarks from rotting: each runs at its quickest size and reports numbers.

Nothing here asserts a timing -- the figures live in docs/performance.md and come
from ``python -m benchmarks``; these tests only check that the machinery runs.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks import budget, tick
from benchmarks.__main__ import main as bench_main
from benchmarks.loadclient import letters

REPO = Path(__file__).resolve().parents[2]


def _number(value: object) -> bool:
    return isinstance(value, int | float) and value >= 0


def test_load_client_names_have_no_digits() -> None:
    names = {letters(i) for i in range(2000)}
    assert len(names) == 2000
    assert all(n.isalpha() and n.islower() for n in names)


def test_tick_benchmark_runs_and_reports() -> None:
    res = tick.run("quick", log=lambda _line: None)
    assert res["ticks_run"] == res["ticks_asked"] > 0
    for key in ("p50", "p95", "p99", "max"):
        assert _number(res["tick_ms"][key])
        assert _number(res["tick_cpu_ms"][key])
    assert res["systems"], "no system was timed"
    assert all(_number(s["total_ms"]) for s in res["systems"])
    assert res["entities"]["before"].get("NPC") == 100
    assert "wall time" in tick.markdown(res)


def test_budget_benchmark_runs_and_reports() -> None:
    res = budget.run("quick", log=lambda _line: None)
    operations = [r["operation"] for r in res["rows"]]
    assert "Seed evaluation" in operations
    assert "Validation" in operations
    for row in res["rows"]:
        assert row["verdict"] in ("met", "MISSED", "-", "no samples") or row["status"] != (
            "measured"
        )
        if row["status"] == "measured" and row["ms"]["n"]:
            assert _number(row["ms"]["p50"])
            assert _number(row["ms"]["max"])
    assert "| Seed evaluation |" in budget.markdown(res)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for server CPU time")
def test_telnet_benchmark_runs_against_maid_and_echo(tmp_path: Path) -> None:
    out = tmp_path / "telnet.json"
    report = tmp_path / "telnet.md"
    code = bench_main(
        ["--quick", "--only", "telnet", "--json", str(out), "--markdown", str(report)]
    )
    assert code == 0
    res = json.loads(out.read_text())
    (scenario,) = res["telnet"]["scenarios"]
    for target in ("echo", "maid", "maid+mccp"):
        figures = scenario[target]
        assert "error" not in figures, figures.get("error")
        assert figures["logged_in"] == scenario["clients"] == 5
        assert figures["answered"] == figures["expected"] == 5 * scenario["commands"]
        assert _number(figures["rtt_ms"]["p50"])
        assert _number(figures["rtt_ms"]["p99"])
        assert figures["exit_code"] is not None  # the server process was reaped
    assert _number(scenario["ratio"]["p99"])
    assert "MAID / echo" in report.read_text()
    # The MCCP2 clients really were compressed, and it shows in the bytes.
    plain, squeezed = scenario["maid"], scenario["maid+mccp"]
    assert plain["compressed_connections"] == 0
    assert squeezed["compressed_connections"] == 5
    assert squeezed["plain_bytes_per_command"] > squeezed["wire_bytes_per_command"]
    assert plain["plain_bytes_per_command"] == plain["wire_bytes_per_command"]
    assert 0 < scenario["mccp"]["bytes"] < 1
    assert "MCCP2, same run" in report.read_text()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for server CPU time")
def test_telnet_benchmark_runs_clients_that_take_gmcp(tmp_path: Path) -> None:
    out = tmp_path / "telnet.json"
    code = bench_main(
        ["--quick", "--only", "telnet", "--telnet-targets", "maid,maid+gmcp", "--json", str(out)]
    )
    assert code == 0
    (scenario,) = json.loads(out.read_text())["telnet"]["scenarios"]
    assert "echo" not in scenario
    assert "maid+mccp" not in scenario
    plain, gmcp = scenario["maid"], scenario["maid+gmcp"]
    for figures in (plain, gmcp):
        assert "error" not in figures, figures.get("error")
        assert figures["logged_in"] == 5
    # The GMCP clients were sent GMCP (Room.Info, Room.Players, the Char packages ...);
    # the others were not.
    assert plain["gmcp_messages"] == 0
    assert gmcp["gmcp_messages"] >= 5 * 2
    assert gmcp["login_wire_bytes_each"] > plain["login_wire_bytes_each"]


def test_an_unknown_telnet_target_is_refused() -> None:
    from benchmarks import telnet_load

    with pytest.raises(ValueError, match="maid\\+gmcp"):
        telnet_load.run("quick", targets=("maid", "mayd"))


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for server CPU time and RSS")
def test_evening_benchmark_runs_the_mix_and_the_storm(tmp_path: Path) -> None:
    out = tmp_path / "evening.json"
    code = bench_main(["--quick", "--only", "evening", "--json", str(out)])
    assert code == 0
    res = json.loads(out.read_text())["evening"]
    players = res["sizes"]["players"]
    for target in ("echo", "maid"):
        figures = res[target]
        assert figures["logged_in"] == players
        assert figures["answered"] == figures["expected"] > 0
        assert _number(figures["rtt_ms"]["p99"])
        assert figures["exit_code"] is not None
        assert figures["burst"]["rtt_ms"]["n"] == players
    maid = res["maid"]
    assert maid["burst"]["ticks"] >= 1
    assert maid["tick_play"]["ticks"] > 0
    assert _number(maid["tick_play"]["ms"]["p99"])
    assert 0 <= maid["tick_play"]["overruns_waited"] <= maid["tick_play"]["overruns"]
    assert maid["systems_ms_per_tick"], "no system timings scraped"
    assert _number(maid["rss_mib_before"])
    if Path("/proc/stat").exists():
        assert 0 <= maid["stolen_play"] <= 1
    storm = res["storm"]
    assert storm["created"] == storm["storm"] == res["sizes"]["storm"]
    assert storm["rtt_before_ms"]["n"] > 0
    assert storm["rtt_during_ms"]["n"] > 0
    assert storm["exit_code"] is not None
    # The newcomers came from a client of their own; on two CPUs or more the
    # server and the clients ran on CPUs of their own.
    assert all(v >= 0 for v in storm["client_late_per_s"])
    # So did the evening's server and the echo server, apart from their client.
    if len(os.sched_getaffinity(0)) >= 2:
        for cpus in (storm["cpus"], res["maid"]["cpus"], res["echo"]["cpus"]):
            assert cpus["server"]
            assert cpus["clients"]
            assert not set(cpus["server"]) & set(cpus["clients"])


def test_the_burst_is_told_with_the_ticks_it_met() -> None:
    from benchmarks.evening import burst_figures

    assert burst_figures(None) is None
    burst = {"at_monotonic": 100.0, "rtts": [0.010, 0.030, 0.020]}
    # (start, seconds, ...): one tick just before the burst (the one its commands
    # may wait for), two during its 30 ms, one after its last answer.
    ticks = [[99.95, 0.004], [100.01, 0.150], [100.02, 0.005], [100.2, 0.009]]
    out = burst_figures(burst, ticks)
    assert out is not None
    assert out["rtt_ms"]["n"] == 3
    assert out["ticks"] == 3
    assert out["tick_max_ms"] == pytest.approx(150.0)
    assert out["overruns"] == 1
    assert "ticks" not in (burst_figures(burst) or {})


def test_the_evening_tick_figures_say_which_systems_make_the_tail() -> None:
    from benchmarks.evening import tick_figures

    rows: list[list[Any]] = []
    for i in range(100):
        slow = i in (48, 49, 50)
        wall = {"AutonomySystem": 30.0 if slow else 1.0, "(between systems)": 0.2}
        cpu = {"AutonomySystem": 3.0 if slow else 1.0}
        if i % 10 == 0:
            wall["QuestGenerationSystem"] = cpu["QuestGenerationSystem"] = 2.0
        rows.append([float(i), 0.0312 if slow else 0.0012, 0.0, 0.0, 0.0, "x", 1.0, wall, 4.0, cpu])
    rows.append([200.0, 0.5, 1.0, 0.0, 0.0, "x", 1.0])  # an old row: no per-system times
    t = tick_figures(rows, 0.0, 300.0)
    assert (t["ticks"], t["overruns"], t["overruns_waited"]) == (101, 1, 1)  # the old row
    assert next(iter(t["systems"])) == "AutonomySystem"
    assert t["systems"]["AutonomySystem"]["max"] == 30.0
    assert t["systems"]["QuestGenerationSystem"]["p50"] == 0.0  # absent counts as 0
    assert t["systems_cpu"]["AutonomySystem"]["max"] == 3.0
    assert (t["cpu_ms"]["n"], t["cpu_ms"]["p99"]) == (100, 4.0)


def test_the_evening_says_how_often_the_spread_systems_stopped_at_their_share() -> None:
    from benchmarks.evening import slices_line

    metrics = {
        "maid_ticks_total": 900.0,
        'maid_tick_slices_spent_total{system="StorySignalSystem"}': 12.0,
        'maid_tick_slices_spent_total{system="AutonomySystem"}': 40.0,
    }
    line = slices_line(metrics)
    assert line is not None
    assert line.endswith("900 ticks: AutonomySystem 40, StorySignalSystem 12.")
    assert slices_line({"maid_ticks_total": 900.0}) is None


def test_the_evening_says_what_quest_generation_took_in_and_registered() -> None:
    from benchmarks.evening import questgen_line

    metrics = {
        'maid_questgen_signals_total{outcome="accepted"}': 30.0,
        'maid_questgen_signals_total{outcome="duplicate"}': 12.0,
        'maid_questgen_quests_built_total{narrative="template"}': 3.0,
    }
    assert questgen_line(metrics) == (
        "Quest generation over the whole run: 42 story signals seen (30 accepted), "
        "3 quests registered."
    )
    assert questgen_line({}) is None


async def test_a_systems_time_in_the_evening_leaves_out_what_it_lent() -> None:
    from benchmarks.evening_server import _TickProbe

    probe = _TickProbe()

    async def lend(_lending: Any, _budget: float) -> int:
        # A command lent the world: busy for a while (real time and CPU).
        until = time.perf_counter() + 0.02
        while time.perf_counter() < until:
            pass
        return 1

    lending = probe.lending(lend)

    async def update(_delta: float) -> None:
        await lending(None, 1.0)

    probe.begin()
    await probe.timed("Batch", update)(0.1)
    probe.end()
    assert probe.lent_s >= 0.02
    assert probe.lent_cpu > 0.0
    assert probe.spent["Batch"] < 10.0
    assert probe.cpu["Batch"] < 10.0


def test_the_players_rss_is_measured_once_the_worlds_own_growth_settled() -> None:
    from benchmarks.evening import wait_for_flat_rss

    # The idle world grows for a while, then stays flat: the wait ends once a
    # whole window of samples is within the tolerance, not before.
    now = [0.0]
    rss = iter([100.0, 110.0, 125.0, 140.0, 141.0, 141.5, 141.2, 141.4, 141.3, 141.3])

    def sleep(seconds: float) -> None:
        now[0] += seconds

    waited, settled = wait_for_flat_rss(lambda: next(rss), 1.5, 2.0, 60.0, lambda: now[0], sleep)
    assert settled
    assert waited == 3.0  # the samples at 1.5-3.0 s (140-141.5 MiB)
    # A world that keeps growing is measured after the limit, and says so.
    now[0] = 0.0
    growing = iter(float(n) * 5 for n in range(1000))
    clock = lambda: now[0]  # noqa: E731
    waited, settled = wait_for_flat_rss(lambda: next(growing), 1.5, 2.0, 10.0, clock, sleep)
    assert (waited, settled) == (10.0, False)


def test_the_evening_tells_each_commands_answers_apart() -> None:
    from benchmarks.evening import by_command

    got = by_command([0.001, 0.003, 0.040], ["look", "look", "kill"])
    assert list(got) == ["kill", "look"]
    assert (got["look"]["n"], got["kill"]["max"]) == (2, 40.0)
    # A load client that did not say which command each answer was: nothing.
    assert by_command([0.001], []) == {}


def test_the_share_the_host_stole_is_read_between_two_readings() -> None:
    from benchmarks.common import cpu_stat, stolen_share
    from benchmarks.evening import RssSampler

    # (wanted, stolen) ticks: 400 wanted between the two, 30 of them stolen.
    assert stolen_share((1000, 50), (1400, 80)) == pytest.approx(0.075)
    assert stolen_share(None, (1400, 80)) is None
    assert stolen_share((1400, 80), (1400, 80)) is None  # no time between
    sampler = RssSampler(os.getpid())
    sampler.cpu = [(1.0, (1000, 50)), (2.0, (1200, 60)), (3.0, (1400, 80)), (4.0, (2000, 80))]
    assert sampler.stolen_between(1.5, 3.5) == pytest.approx(0.1)  # (1200..1400)
    assert sampler.stolen_between(3.5, 3.9) is None
    if Path("/proc/stat").exists():
        now = cpu_stat()
        assert now is not None
        assert now[0] >= now[1] >= 0
