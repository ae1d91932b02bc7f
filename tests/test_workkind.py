"""Issue 35: the kind of work a call does is told from what it does (its operators, their bytes and FLOPs), not
from its length, and a run borrows that kind's inflation and, for compute- and memory-bound calls, that kind's
fresh-process spread as a floor. Counting uses real torch operators (no clock); the rules run on simulated runs."""

from __future__ import annotations

import dataclasses
import math
import time

import pytest
import torch

from measurefirst import benchmark
from measurefirst.measure import workkind
from measurefirst.measure.noise import apply_profile, prior_inflation, run_inflation
from measurefirst.measure.noise_prior import PRIOR_INFLATION
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.measure.workkind import WorkCounts, count_work, kind_of, observe
from measurefirst.render.text import spread_source_words

from test_noise import profile


def test_the_kind_follows_operators_time_per_operator_and_flops_per_byte():
    assert kind_of(WorkCounts(0, 0.0, 0.0), 20e-6) == "python"
    assert kind_of(WorkCounts(1, 0.0, 12.0), 2e-6) == "dispatch"  # a 1-element add
    assert kind_of(WorkCounts(30, 1e6, 1e4), 290e-6) == "dispatch"  # 9.7 µs an operator: launching them is the time
    assert kind_of(WorkCounts(30, 1e6, 1e4), 310e-6) == "compute"  # 10.3 µs, 100 FLOPs a byte
    assert kind_of(WorkCounts(1, 2 * 256.0 ** 3, 3 * 256 ** 2 * 4.0), 340e-6) == "compute"  # 42.7 a byte
    assert kind_of(WorkCounts(1, 7.9e6, 1e6), 340e-6) == "memory"  # below 8 a byte
    assert kind_of(WorkCounts(1, 0.0, 1e8), 4e-3) == "memory"  # a 32 MiB copy: no FLOPs
    assert kind_of(WorkCounts(1, 0.0, 0.0), 1e-3) == "memory"


def test_counting_runs_the_call_once_and_counts_its_operators_bytes_and_flops():
    a, b, one, x = torch.randn(256, 256), torch.randn(256, 256), torch.ones(1), torch.randn(64, 64)
    c = count_work(lambda: a @ b)
    assert (c.ops, c.flops, c.bytes) == (1, 2 * 256 ** 3, 3 * 256 * 256 * 4)
    assert count_work(lambda: one + one) == WorkCounts(1, 0.0, 12.0)
    assert count_work(lambda: x.view(-1)) == WorkCounts(1, 0.0, 0.0)  # a view moves nothing
    assert count_work(lambda: sum(range(100))) == WorkCounts(0, 0.0, 0.0)
    calls = []
    c = count_work(lambda: calls.append("fn") or one + one, setup=lambda: calls.append("setup") or one * 2)
    assert calls == ["setup", "fn"] and c.ops == 1  # the setup's operator is not the call's
    src, dst = torch.randn(1000), torch.empty(1000)
    assert count_work(lambda: dst.copy_(src)) == WorkCounts(1, 0.0, 3 * 4000.0)  # in place: read, written, returned
    lin, conv = torch.nn.Linear(64, 32), torch.nn.Conv2d(3, 16, 3)
    x, img = torch.randn(8, 64), torch.randn(1, 3, 32, 32)
    assert count_work(lambda: lin(x)).flops == 2 * 8 * 32 * 64  # the module's F.linear, not what it calls
    assert count_work(lambda: conv(img)).flops == 2 * (16 * 30 * 30) * (3 * 3 * 3)
    assert count_work(lambda: x.shape[0] + x.dim()) == WorkCounts(0, 0.0, 0.0)  # no tensor made: not work


def test_counting_never_loads_torchs_compiler():
    """A dispatch mode, the first try, imported torch._dynamo on entry (1.1 s in every fresh process, and a process
    that has loaded it reads compile metrics around every call)."""
    import subprocess
    import sys

    code = ("import sys, torch; from measurefirst.measure.workkind import count_work; a = torch.ones(4, 4); "
            "count_work(lambda: a @ a); print('torch._dynamo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def _run(seed: int = 3):
    w = SimWorld(SimSpec(call_ns=400_000, timer_ns=50, noise=0.001, seed=seed))
    return benchmark(w.function(), timer=w.timer(), device="cpu", repeats=5, noise_profile=False)


@pytest.fixture
def nothing_compiled(monkeypatch):
    """Another test of this process may have compiled something (torch.compile's tests) or left a process group
    initialized (the distributed tests): then no kind is told. These tests stand for a plain process."""
    monkeypatch.setattr("measurefirst.measure.compiling.compiled_anything", lambda: False)
    monkeypatch.setattr(workkind, "_in_a_group", lambda: False)


def test_observe_records_the_kind_and_leaves_what_it_cannot_tell(nothing_compiled, monkeypatch):
    m = _run()
    a = torch.randn(256, 256)
    seen = observe(m, lambda: a @ a, None)
    assert seen.options["work_kind"] == "compute" and seen.options["work_counts"]["ops"] == 1
    assert seen.samples_ns == m.samples_ns and workkind.work_kind(seen) == "compute" and workkind.work_kind(m) is None

    def broken():
        raise RuntimeError("only once")

    assert observe(m, broken, None) is m  # the run is measured: a kind it cannot tell is unknown
    gpu = dataclasses.replace(m, device="cuda:0")
    assert observe(gpu, lambda: a @ a, None) is gpu
    assert observe(m, lambda: time.sleep(0) or a @ a, None).options["work_kind"] == "compute"
    assert observe(m, lambda: a @ a, None, budget=m.median / 0.019).options["work_kind"] == "compute"
    assert observe(m, lambda: a @ a, None, budget=m.median / 0.021) is m  # the extra call: at most 2% of the budget
    monkeypatch.setattr(workkind, "_in_a_group", lambda: True)
    assert observe(m, lambda: a @ a, None) is m  # a rank: one more call on some ranks only would hang a collective
    monkeypatch.setattr(workkind, "_in_a_group", lambda: False)
    monkeypatch.setattr("measurefirst.measure.compiling.compiled_anything", lambda: True)
    assert observe(m, lambda: a @ a, None) is m  # torch compiled something here: never under a mode


def test_a_compute_bound_call_takes_its_kinds_floor_and_inflation_from_the_profile(nothing_compiled):
    """The misses of issue 35's fourth runtorun hour: a 256x256 matmul whose repetitions agreed to 0.1% in a
    process that drew a mode 16% away, its floor read from the busy-wait (0.03%). Known to be compute-bound, it
    takes the profile's matmul spread (7.36% here) as its floor, and the compute entry's inflation."""
    p = profile()
    m = _run()
    own = m.run_to_run.cv
    plain = apply_profile(m, p)
    assert plain.run_to_run.floor == pytest.approx(p.floor(m.median)) and p.floor(m.median) < 0.01
    assert "noise_floor_kind" not in plain.options
    kinded = apply_profile(observe(m, lambda: torch.ones(256, 256) @ torch.ones(256, 256), None), p)
    rr = kinded.run_to_run
    assert rr.floor == p.kind_floor("compute") == 0.0736 and kinded.options["noise_floor_kind"] == "compute"
    assert rr.spread == max(rr.cv, 0.0736)
    assert p.inflation(m.median, "compute") == pytest.approx(0.0736 / 0.0455)
    assert rr.cv == pytest.approx(own * run_inflation(p, m.median, "compute"))
    assert run_inflation(p, m.median, "compute") == max(0.0736 / 0.0455, PRIOR_INFLATION["compute"])
    words = spread_source_words(kinded)
    assert "at least ±7.4% for compute-bound work by this machine's noise profile (its matmul 256x256 in fresh" in words
    assert "算力受限的调用至少 ±7.4%（其矩阵乘 256x256 在新进程间的波动）" in spread_source_words(kinded, "zh")
    # the prior: its inflation by kind, never its entries' spreads as a floor (another machine, other days)
    prior = apply_profile(observe(m, lambda: torch.ones(8 << 20).clone(), None), p, "prior",
                          prior_inflation(m.median, "memory"))
    assert prior_inflation(m.median, "memory") == PRIOR_INFLATION["memory"] != prior_inflation(m.median)
    assert prior.run_to_run.floor == pytest.approx(p.floor(m.median)) and "noise_floor_kind" not in prior.options


def test_dispatch_and_python_work_keep_the_floor_by_duration():
    p = profile()
    for kind in ("dispatch", "python", None, "no such kind"):
        assert p.kind_floor(kind) == 0.0
    assert p.inflation(20e-6, "python") == p.inflation(20e-6)  # no busy-wait ratio: by duration
    assert p.inflation(20e-6, "dispatch") == pytest.approx(0.19 / 0.155)
    m = dataclasses.replace(_run(), options={**_run().options, "work_kind": "dispatch"})
    assert apply_profile(m, p).run_to_run.floor == pytest.approx(p.floor(m.median))


def test_benchmark_on_the_real_clock_records_the_kind_and_ctrl_c_there_keeps_the_run(nothing_compiled, monkeypatch):
    a = torch.randn(64, 64)
    calls = []

    def counted():
        calls.append(1)
        return a @ a

    # the engine's wiring, not the bounds (test_observe_...): under load torch's two threads can make this call
    # take 16 ms (a starved pool), past 2% of the budget, and no kind would be told
    monkeypatch.setattr(workkind, "MAX_SECONDS", math.inf)
    monkeypatch.setattr(workkind, "BUDGET_SHARE", 1.0)
    fixed = benchmark(counted, device="cpu", warmup=2, trials=3)
    assert len(calls) == 2 + 3 and "work_kind" not in fixed.options  # the counts are exact (the cold call is one)
    m = benchmark(lambda: a @ a, device="cpu", budget=0.2)  # no speed asserted
    assert m.options["work_kind"] in ("compute", "dispatch")  # 64x64: 43 FLOPs a byte, a few µs an operator

    def interrupted(m, fn, setup, budget):
        raise KeyboardInterrupt

    monkeypatch.setattr(workkind, "observe", interrupted)
    from measurefirst.measure.failures import Interrupted

    with pytest.raises(Interrupted) as info:
        benchmark(lambda: a @ a, device="cpu", budget=0.2)
    kept = info.value.partial
    assert kept is not None and kept.n_samples > 0 and kept.run_to_run is not None  # the run, whole
    assert "noise_prior" in kept.options or "noise_profile" in kept.options  # its interval as without the kind


def test_selfcheck_says_the_floors_by_kind_that_runs_take():
    from measurefirst.render.noise import noise_lines

    p = profile()
    line = noise_lines(p, None, "en", inflation=lambda s: run_inflation(p, s))[0]
    assert "for a compute- or memory-bound call that kind's (7.36% and 10%)" in line
    assert "算力受限或内存受限的调用还至少取该类型的（7.36% 与 10%）" in noise_lines(p, None, "zh")[0]


def test_repetitions_are_held_against_the_in_process_spread_of_their_own_kind():
    p = profile()
    assert p.within_at(5e-3, "compute") == 0.0455  # the matmul's, at any length
    assert p.within_at(5e-3) == p.within_at(5e-3, None) == p.within_at(5e-3, "python") != 0.0455  # by length
