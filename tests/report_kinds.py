"""One small result of every kind the HTML report renders, made on the simulated clock (and the
simulated GPU for a step), or by tiny real CPU runs (profiles). Shared by the report tests."""

from __future__ import annotations

import functools

import torch

from measurefirst import benchmark, compare
from measurefirst.tools.doctor import doctor
from measurefirst.results.history import History, load_history
from measurefirst.profiling import diff, profile
from measurefirst.results.kinds import Count
from measurefirst.tools.roofline import Peaks
from measurefirst.measure.simulate import SimGPU, SimSpec, SimWorld
from measurefirst.tools.step import benchmark_step
from measurefirst.results.store import Store
from measurefirst.tools.sweep import sweep
from sim_step import sim_step_parts

US = 1000.0
PEAKS = Peaks("cpu", "test cpu", "float32", flops_per_s=100e9, bytes_per_s=10e9, matmul_size=1024,
              copy_bytes=64 << 20, threads=2, host="test")


def sim_measurement(label: str = "matmul", call_ns: float = 250_000.0, seed: int = 2, budget: float = 1.0,
                    **spec: float):
    w = SimWorld(SimSpec(**{"call_ns": call_ns, "timer_ns": 50, "noise": 0.03, "seed": seed, "cold_ns": 40e6,
                            **spec}))
    return benchmark(w.function(), timer=w.timer(), label=label, min_time=0.0, warmup_min_time=0.0, budget=budget)


@functools.lru_cache(maxsize=None)
def measurements():
    return (sim_measurement("matmul"), sim_measurement("add", 12_000.0, seed=3, preempt_prob=0.05,
                                                        preempt_ns=200_000))


@functools.lru_cache(maxsize=None)
def comparison():
    w = SimWorld(SimSpec(call_ns=100_000, timer_ns=100, noise=0.02, seed=5))
    return compare({"manual": w.function(100_000), "fused": w.function(31_000), "same": w.function(100_000)},
                   timer=w.timer(), device="cpu", min_time=0.0, budget=1.0)


@functools.lru_cache(maxsize=None)
def sweep_result():
    w = SimWorld(SimSpec(timer_ns=50, noise=0.01, seed=1))

    def make(n: int):
        if n == 2048:
            raise RuntimeError("CUDA out of memory. Tried to allocate 64.00 GiB")
        return w.function(20_000 + 0.04 * n**3)

    return sweep({"matmul": make}, [32, 64, 128, 256, 512, 1024, 2048], flops="2*n**3",
                 bytes=lambda n: 12.0 * n * n, timer=w.timer(), peaks=PEAKS, min_time=0.0, warmup_min_time=0.0,
                 budget=0.2)


def _gelu_manual(x: torch.Tensor):
    return lambda: 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@functools.lru_cache(maxsize=None)
def profiles():
    x = torch.randn(256)
    manual = profile(_gelu_manual(x), device="cpu", steps=2, warmup=1, label="manual")
    fused = profile(lambda: torch.nn.functional.gelu(x, approximate="tanh"), device="cpu", steps=2, warmup=1,
                    label="fused")
    return manual, fused


@functools.lru_cache(maxsize=None)
def profile_diff():
    manual, fused = profiles()
    return diff({"manual": manual, "fused": fused})


@functools.lru_cache(maxsize=None)
def step_results():
    """Two variants of a training step on the simulated H100: phases, memory per phase, MFU."""
    out = []
    for label, fwd_us in (("eager", 300.0), ("fused", 180.0)):
        g = SimGPU(name="NVIDIA H100 80GB HBM3")
        with g.installed():
            model, opt, batches, loss_fn = sim_step_parts(g, fwd_us)
            out.append(benchmark_step(model, opt, batches, loss_fn=loss_fn, steps=5, warmup=2,
                                      flops_per_step=3e10, seq_len=128, label=label))
    return tuple(out)


def step_comparison():
    """The step results above with an interleaved comparison of their whole steps (on the simulated clock)."""
    from measurefirst.tools.step import StepComparison

    w = SimWorld(SimSpec(call_ns=300_000, timer_ns=100, noise=0.02, seed=6))
    whole = compare({"eager": w.function(300_000), "fused": w.function(180_000)}, timer=w.timer(), device="cpu",
                    min_time=0.0, budget=1.0)
    return StepComparison(tuple(step_results()), whole)


@functools.lru_cache(maxsize=None)
def diagnosis():
    w = SimWorld(SimSpec(call_ns=2_000, timer_ns=50, noise=0.3, seed=4, cold_ns=5e6))
    return doctor(w.function(), device="cpu", label="tiny_op", budget=0.3, timer=w.timer())


def history(tmp_path) -> History:
    """Six saved runs of one name; the fourth is 20% slower (a step change)."""
    with Store(tmp_path / "results.db") as store:
        for i in range(6):
            call = 100_000.0 * (1.2 if i >= 3 else 1.0)
            store.save(sim_measurement("matmul", call, seed=10 + i, budget=0.3), "matmul", commit=f"{i:040x}")
        return load_history(store, "matmul")


def make_count(per_call: float, label: str = "loop", spread: float = 0.0, calls: int = 10) -> Count:
    """An instruction count whose repeats read ``per_call`` per call, ± ``spread`` on the outer two."""
    total = per_call * calls
    counts = (round(total * (1 - spread)), round(total), round(total * (1 + spread)))
    return Count(label=label, event="instructions", backend="callgrind", counts=counts, baselines=(7000,) * 3,
                 calls=calls, warmup=3, env={"hostname": "h", "torch_version": "2.13.0", "device": "cpu",
                                             "timestamp": "2026-01-01T00:00:00+00:00"})


def counts():
    """A steady count and a noisy one (its repeats disagree: a count_spread finding)."""
    return [make_count(444_360.0, "loop"), make_count(91_500.0, "parse", spread=0.02)]


def count_history(tmp_path) -> History:
    """Five saved counts of one name; the fourth takes 10% more instructions (a step change)."""
    with Store(tmp_path / "counts.db") as store:
        for i in range(5):
            store.save(make_count(444_360.0 * (1.1 if i >= 3 else 1.0), "loop"), "loop", commit=f"{i:040x}")
        return load_history(store, "loop")


def every_kind(tmp_path) -> dict[str, object]:
    """kind name -> a result of that kind."""
    h = history(tmp_path)
    ch = count_history(tmp_path)
    return {"measurement": list(measurements()), "comparison": comparison(), "sweep": sweep_result(),
            "profile": profiles()[0], "profile_diff": profile_diff(), "step": list(step_results()),
            "diagnosis": diagnosis(), "history": h, "saved_run": h.runs[-1], "count": counts(),
            "count_history": ch, "regression": regression(), "selfcheck": selfcheck_result(),
            "collectives": collectives(), "pytest_run": pytest_run(), "ranged_step": ranged_step(),
            "rank_group": rank_group(), "rank_comparison": rank_comparison(),
            "group_history": group_history(tmp_path), "group_step": group_step()}


def regression():
    """A gated check of two saved files: matmul 20% slower (a regression), add unchanged."""
    from measurefirst.results.regression_checks import check_regression

    ms = list(measurements())
    return check_regression(ms, [sim_measurement("matmul", 300_000.0, seed=5), ms[1]], base_name="a.json",
                            new_name="@matmul", threshold=0.05, gate=True)


@functools.lru_cache(maxsize=None)
def selfcheck_result():
    """A quick selfcheck on the simulated clock: one known duration, no reference tools."""
    from measurefirst.tools.selfcheck import selfcheck

    return selfcheck(simulate=SimWorld(SimSpec(timer_ns=50, seed=0)), quick=True, durations_ns=(20_000,),
                     references=False)


def collectives():
    """Two all-reduce sizes on two ranks, the larger one timed out."""
    from measurefirst.distributed import CollectivePoint, CollectivesResult

    return CollectivesResult(2, "gloo", "cpu", (
        CollectivePoint("all_reduce", 1024, 256, "float32", 1e-4, (1e-4, 0.9e-4), 3),
        CollectivePoint("all_reduce", 4096, 1024, "float32", float("nan"), (), 0, "timed out")))


def ranged_step():
    """A step timed by its ``measurefirst.range`` phases (hand-built: three steps, one warm-up)."""
    from measurefirst.tools.step import RangedStepResult

    return RangedStepResult("train_step", "cpu", 3, 1, {"forward": 3e-4, "backward": 5e-4, "optimizer": 1e-4},
                            1e-3, 1e-4, (1e-3, 0.98e-3, 1.02e-3), (4e-3,))


def rank_group():
    """Rank 1 of a two-rank group: both ranks' measurements, the second rank the straggler."""
    from measurefirst.distributed import GroupSummary, RankResult

    ms = (sim_measurement("allreduce", 100_000.0, seed=6, budget=0.2),
          sim_measurement("allreduce", 140_000.0, seed=7, budget=0.2))
    return RankResult(1, ms[1], ms, GroupSummary(tuple(m.median for m in ms)))


NODES = ({"host": "node-a", "local_rank": 0}, {"host": "node-b", "local_rank": 0})


def rank_comparison():
    """Two ranks on two nodes compared the candidates; on rank 1 every candidate was undecided (the ranks
    disagree on fused)."""
    from dataclasses import replace

    from measurefirst.distributed.ranked import RankComparison

    c = comparison()
    other = replace(c, verdicts=tuple(v if v.verdict == "baseline" else replace(v, verdict="undecided", ratio_ci=None)
                                      for v in c.verdicts))
    return RankComparison(0, (c, other), "gloo", NODES)


def group_history(tmp_path):
    """Two saved collectives runs of one name on two nodes; in the second, all_reduce 1K takes twice as long
    (its busbw halved)."""
    from dataclasses import replace

    from measurefirst.results.group_history import load_group_history

    c = replace(collectives(), env={"nodes": list(NODES)})
    with Store(tmp_path / "groups.db") as store:
        store.save(c, "coll", commit="0" * 40)
        store.save(replace(c, points=(replace(c.points[0], seconds=2e-4), c.points[1])), "coll", commit="1" * 40)
        return load_group_history(store, "coll", "collectives")


def group_step():
    """Two ranks on two nodes under DDP, hand-built: rank 1's backward 30 ms slower, rank 0 waiting for it."""
    from measurefirst.distributed.step import GroupStepResult, RankStep

    def rank(r: int, host: str, backward: float, wait: float) -> RankStep:
        phases = {"data": 1e-4, "forward": 5e-3, "backward": backward, "optimizer": 1e-3}
        step = sum(phases.values())
        return RankStep(r, host, 0, r, phases, {"data": 0.0, "forward": 0.0, "backward": wait, "optimizer": 0.0}, step,
                        wait, (step, step * 1.01), (wait, wait), None, 16 / step, 1024 / step, 2e9, None)

    return GroupStepResult("tiny_lm", "ddp", "gloo", "cpu", "fp32", 2, 1, "ddp_comm_hook",
                           (rank(0, "node-a", 0.042, 0.032), rank(1, "node-b", 0.042, 0.002)),
                           mfu_table_peak="none_cpu")


def pytest_run():
    """What ``pytest --mf-json`` writes: two measuring tests (one slower than its baseline, gated) and
    one comparison."""
    from measurefirst.pytest.run import PytestBenchmark, PytestComparison, PytestRun
    from measurefirst.results.regression_checks import change

    fast, slow = measurements()
    base = sim_measurement("matmul", 200_000.0, seed=8)
    benches = (PytestBenchmark("tests/test_ops.py::test_matmul", "test_matmul", "tests/test_ops.py::test_matmul",
                               fast, change=change(base, fast, threshold=0.05), regression=True),
               PytestBenchmark("tests/test_ops.py::test_add[1024]", "test_add[1024]",
                               "tests/test_ops.py::test_add[1024]", slow, group="small", param="1024",
                               params={"n": 1024}, extra_info={"dtype": "float32"}),
               PytestBenchmark("tests/test_ops.py::test_gelu::fused", "test_gelu::fused",
                               "tests/test_ops.py::test_gelu", comparison().measurements[1], label="fused",
                               mode="compare", comparison=0))
    return PytestRun(benches, (PytestComparison("tests/test_ops.py::test_gelu", "tests/test_ops.py::test_gelu",
                                                comparison()),),
                     baseline="@base", fail_if_slower=0.05, environment=dict(fast.env), measurefirst_version="0.1.0")
