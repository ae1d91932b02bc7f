"""measurefirst.distributed: nccl-tests arithmetic on literal numbers, and 2-rank gloo groups (spawned, bounded)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from measurefirst.results import bandwidth

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 20.0


# ---- arithmetic --------------------------------------------------------------------------------------
def test_bus_factors_are_nccl_tests_factors() -> None:
    assert bandwidth.bus_factor("all_reduce", 8) == 2 * 7 / 8 == 1.75
    assert bandwidth.bus_factor("all_reduce", 2) == 1.0
    assert bandwidth.bus_factor("all_gather", 4) == 0.75
    assert bandwidth.bus_factor("reduce_scatter", 8) == 0.875
    assert bandwidth.bus_factor("all_to_all", 2) == 0.5
    assert bandwidth.bus_factor("broadcast", 8) == 1.0
    assert bandwidth.bus_factor("reduce", 8) == 1.0
    assert bandwidth.bus_factor("send_recv", 2) == 1.0
    with pytest.raises(ValueError, match="unknown collective"):
        bandwidth.bus_factor("gossip", 2)


def test_bandwidths_on_literal_numbers() -> None:
    # 1 GiB all_reduce on 8 ranks in 10 ms: algbw 107.37 GB/s, busbw x1.75
    size = 1024**3
    assert bandwidth.algbw(size, 0.01) == pytest.approx(107.3741824e9)
    assert bandwidth.busbw("all_reduce", size, 0.01, 8) == pytest.approx(187.9048192e9)
    # 16 MiB all_gather on 2 ranks in 4 ms: algbw 4.194 GB/s, busbw half of it
    assert bandwidth.busbw("all_gather", 16 * 1024**2, 0.004, 2) == pytest.approx(2.097152e9)
    assert bandwidth.busbw("send_recv", 1000, 1e-6, 2) == pytest.approx(1e9)


def test_sizes_are_nccl_tests_total_buffers() -> None:
    assert bandwidth.elements("all_reduce", 1024, 4, 3) == 256
    assert bandwidth.elements("all_gather", 1024, 4, 3) == 255  # a multiple of the 3 ranks
    assert bandwidth.elements("all_to_all", 10, 4, 2) == 2
    assert bandwidth.parse_bytes("4K") == 4096 and bandwidth.parse_bytes("16M") == 16 * 1024**2
    assert bandwidth.parse_byte_sizes("1K,4K,...,16M") == [1024 * 4**i for i in range(8)]
    with pytest.raises(ValueError, match="byte count"):
        bandwidth.parse_bytes("4 parsecs")


def test_latency_bandwidth_fit_on_literal_numbers() -> None:
    from measurefirst.distributed import CollectivePoint, CollectivesResult

    # t = 100 us + size / (1 GB/s) exactly; three sizes past the latency
    pts = tuple(CollectivePoint("all_reduce", s, s // 4, "float32", 100e-6 + s / 1e9, (0.0, 0.0), 3)
                for s in (1024, 65536, 1 << 20, 16 << 20, 64 << 20))
    r = CollectivesResult(2, "gloo", "cpu", pts)
    t0, bw = r.latency_bandwidth("all_reduce")
    assert t0 == pytest.approx(100e-6) and bw == pytest.approx(1e9)
    assert "busbw   1.000 GB/s" in str(r) and r.findings == ()


def test_collectives_times_that_fall_with_size_and_flat_fits_are_findings() -> None:
    # issue 24 item 4: all_reduce 1 KiB 3,619 us and 64 KiB 2,771 us; send_recv's fit over flat points
    # reported "asymptotic algbw 10.408 GB/s"; small sizes printed "0.000 GB/s"
    from measurefirst.distributed import CollectivePoint, CollectivesResult
    from measurefirst.render.distributed import collectives_lines

    def pt(op, size, us):
        return CollectivePoint(op, size, size // 4, "float32", us * 1e-6, (us * 1e-6,), 20)

    r = CollectivesResult(2, "gloo", "cpu", (
        pt("all_reduce", 1024, 3619.0), pt("all_reduce", 4096, 2900.0), pt("all_reduce", 65536, 2771.0),
        pt("all_reduce", 1 << 20, 3900.0),
        pt("send_recv", 1024, 80.0), pt("send_recv", 4096, 81.0), pt("send_recv", 65536, 79.5),
        pt("send_recv", 1 << 20, 180.0)))
    by = {(f.code, f.context["label"]): f for f in r.findings}
    drop = by[("nonmonotone_sizes", "all_reduce")]
    assert drop.value == pytest.approx(1 - 2771.0 / 3619.0) and drop.threshold == 0.2
    assert ("nonmonotone_sizes", "send_recv") not in by  # 81 -> 79.5 us is within the noise
    slope = by[("fit_slope_points", "send_recv")]
    assert slope.value < slope.threshold == 3
    text = "\n".join(collectives_lines(r))
    assert "asymptotic algbw" not in text.split("fit t(size)")[1].split("send_recv")[1].splitlines()[0]
    assert "a poor fit: no asymptotic bandwidth" in text
    assert not re.search(r"\s0\.0+(\s|$)", text) and "0.0002830" in text  # 1 KiB in 3,619 us: 0.000283 GB/s
    assert "warning [nonmonotone_sizes]: all_reduce: a larger size ran 23% faster" in text
    assert "警告 [nonmonotone_sizes]" in "\n".join(collectives_lines(r, "zh"))


def test_group_summary_flags_the_straggler() -> None:
    from measurefirst.distributed import STRAGGLER_THRESHOLD, GroupSummary

    s = GroupSummary((1.0, 1.0, 1.0, 1.5))
    assert s.slowest_rank == 3 and s.straggler == 3 and s.straggler_ratio == 1.5 and s.spread == 0.5
    even = GroupSummary((1.0, 1.0 + STRAGGLER_THRESHOLD / 2))
    assert even.straggler is None
    assert "straggler: rank 3" in str(s)


# ---- 2-rank gloo groups ----------------------------------------------------------------------------
def _spawn(task: object) -> list[object]:
    from measurefirst.distributed import spawn

    sys.path.insert(0, str(Path(__file__).parent))
    return spawn(task, 2, timeout_seconds=TIMEOUT)  # type: ignore[arg-type]


@pytest.fixture(autouse=False)
def tasks() -> object:
    sys.path.insert(0, str(Path(__file__).parent))
    import distributed_tasks

    return distributed_tasks


def test_two_rank_collectives_gloo(tasks: object) -> None:
    d = _spawn(tasks.collectives_task)[0]  # type: ignore[attr-defined]
    assert d["world_size"] == 2 and d["backend"] == "gloo"
    ops = {p["op"] for p in d["points"]}
    assert ops == set(bandwidth.OPS)
    for p in d["points"]:
        assert p["seconds"] > 0 and len(p["rank_seconds"]) == 2 and p["samples"] == 3
        assert p["busbw_bytes_per_s"] == pytest.approx(p["algbw_bytes_per_s"] * bandwidth.bus_factor(p["op"], 2))


def test_straggler_is_found(tasks: object) -> None:
    out = _spawn(tasks.straggler_task)  # type: ignore[attr-defined]
    assert [o["rank"] for o in out] == [0, 1]  # type: ignore[index]
    for o in out:
        assert o["straggler"] == 1, o  # type: ignore[index]
        assert o["samples"] == [8, 8]  # type: ignore[index]  # raw samples of both ranks gathered on every rank


def test_raising_rank_is_named(tasks: object) -> None:
    from measurefirst.distributed import RankFailed

    t0 = time.monotonic()
    with pytest.raises(RankFailed, match="rank 1 of 2 failed.*boom on purpose") as info:
        _spawn(tasks.raising_benchmark_task)  # type: ignore[attr-defined]
    assert info.value.rank == 1
    assert time.monotonic() - t0 < TIMEOUT


def test_rank_dying_mid_group_stops_the_others_naming_it(tasks: object) -> None:
    from measurefirst.distributed import RankFailed

    t0 = time.monotonic()
    with pytest.raises(RankFailed, match="rank 1 of 2 failed.*rank 1 gave up") as info:
        _spawn(tasks.dying_rank_task)  # type: ignore[attr-defined]
    assert info.value.rank == 1
    # rank 0, waiting in an all_reduce, stopped with an error that names rank 1
    assert "rank 1 of 2 failed: RuntimeError: rank 1 gave up; rank 0 stopped" in info.value.reports[0]
    assert time.monotonic() - t0 < TIMEOUT


def test_a_rank_that_raises_before_measuring_is_named_with_its_own_message(tasks: object) -> None:
    from measurefirst.distributed import RankFailed

    # before: "rank 0 of 2 failed: ... Connection closed by peer", and rank 1's own message was lost
    with pytest.raises(RankFailed, match="^rank 1 of 2 failed: ValueError: rank 1 has no data$") as info:
        _spawn(tasks.raising_before_measuring_task)  # type: ignore[attr-defined]
    assert info.value.rank == 1 and info.value.reports[1] == "ValueError: rank 1 has no data"


def test_a_hung_rank_is_reported_within_the_timeout(tasks: object) -> None:
    """Before: "did not finish within 33 s" for a 3 s timeout (30 s of grace, then 5 s per rank to join).
    Now the timeout runs from when every rank is up, plus launch.REPORT_GRACE_SECONDS (no wall-clock
    assertion: the ranks' start-up on a loaded machine is not counted and not bounded here)."""
    from measurefirst.distributed import RankFailed, spawn

    sys.path.insert(0, str(Path(__file__).parent))
    words = r"^rank 1 of 2 did not finish: no sign of progress from the group for 3 s \(the timeout\)$"
    with pytest.raises(RankFailed, match=words) as info:
        spawn(tasks.hung_rank_task, 2, timeout_seconds=3.0)  # type: ignore[attr-defined]
    assert info.value.rank == 1


def test_a_run_longer_than_the_timeout_is_not_stopped_while_its_ranks_advance(tasks: object) -> None:
    """Before: the timeout bounded the whole run from when every rank was up, so a `step --nproc 2` longer
    than --timeout plus 5 s was stopped as "did not finish", and a rank left waiting for a hung one late in
    a run was stopped before its own collective's timeout let it name the hung one. Now the timeout runs
    again from each sign of progress (each barrier and collective measurefirst issues)."""
    from measurefirst.distributed import spawn

    from measurefirst.distributed.launch import REPORT_GRACE_SECONDS

    sys.path.insert(0, str(Path(__file__).parent))
    # 1.3 times the timeout plus the grace, which is where it was stopped before, whatever the machine's load
    seconds = 1.3 * (1.0 + REPORT_GRACE_SECONDS)
    counts = spawn(tasks.advancing_task, 2, (seconds,), timeout_seconds=1.0)  # type: ignore[attr-defined]
    assert len(counts) == 2 and counts[0] >= 1


@pytest.mark.parametrize("argv,needle", [
    (["--timeout", "nan"], "--timeout must be a positive, finite number"),
    (["--timeout", "inf"], "--timeout must be a positive, finite number"),
    (["--timeout", "0"], "--timeout must be a positive, finite number"),
    (["--timeout=-1"], "--timeout must be a positive, finite number"),
    (["--dtype", "bogus"], "--dtype: dtype 'bogus' is not a torch dtype"),
    (["--nproc", "0"], "--nproc must be a whole number from 1"),
    (["--trials", "99999999999999999999"], "--trials >= 1 (at most 1000000000)"),
])
def test_collectives_options_are_checked_before_any_rank_starts(argv: list[str], needle: str, capsys: object,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from measurefirst.cli.commands import main
    from measurefirst.distributed import launch

    def no_spawn(*args: object, **kwargs: object) -> None:
        raise AssertionError("a rank was started")

    monkeypatch.setattr(launch, "spawn", no_spawn)
    # before: the ranks started and failed inside c10d (39 lines of socket errors, exit 1)
    assert main(["collectives", "--nproc", "2", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()  # type: ignore[attr-defined]
    assert len(err) == 1 and needle in err[0], err


def test_cli_under_torchrun() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "-m", "measurefirst",
           "collectives", "--sizes", "1K,64K", "--ops", "all_reduce,all_gather,send_recv", "--warmup", "1",
           "--trials", "3", "--timeout", "20"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.count("collectives on 2 ranks, backend gloo") == 1  # rank 0 alone prints
    assert "busbw GB/s" in p.stdout
    for op in ("all_reduce", "all_gather", "send_recv"):
        assert p.stdout.count(op) >= 2


def test_the_barrier_timeout_is_the_groups_own() -> None:
    """No module state: the timeout of a gloo group's monitored barrier is read from the group, whoever
    initialized it (this module, or the user with a timeout of their own)."""
    import datetime

    import torch.distributed as dist

    from measurefirst.distributed.group import group_timeout

    if dist.is_initialized():
        pytest.skip("a process group is already initialized in this process")
    store = dist.HashStore()
    for seconds in (17, 42):
        dist.init_process_group("gloo", rank=0, world_size=1, store=store, timeout=datetime.timedelta(seconds=seconds))
        try:
            assert group_timeout() == datetime.timedelta(seconds=seconds)
        finally:
            dist.destroy_process_group()
