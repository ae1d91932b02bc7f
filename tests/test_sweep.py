"""Sweeps, cost-model fits, complexity picks, roofline classes and plots."""

import json
import xml.dom.minidom

import numpy as np
import pytest

from measurefirst.engine import Interrupted
from measurefirst.fit import FitError, fit_complexity, fit_power
from measurefirst.roofline import Peaks, classify
from measurefirst.simulate import SimSpec, SimWorld
from measurefirst.sweep import SweepResult, parse_sizes, size_expression, sweep

SIZES = [16, 32, 64, 128, 256, 512, 1024, 2048]


def noisy(t, rel, seed=0):
    rng = np.random.default_rng(seed)
    return np.asarray(t) * (1 + rel * rng.standard_normal(len(t)))


@pytest.mark.parametrize("t0, c, k", [(20e-6, 1e-11, 3.0), (5e-6, 2e-9, 1.0), (1e-4, 3e-10, 2.0)])
def test_power_fit_recovers_known_parameters(t0, c, k):
    n = np.array(SIZES, dtype=float)
    f = fit_power(n, noisy(t0 + c * n**k, 0.01, seed=int(k)))
    assert f.k == pytest.approx(k, abs=0.08)
    assert f.k_ci[0] <= k <= f.k_ci[1]
    assert f.t0 == pytest.approx(t0, rel=0.1)
    assert f.crossover == pytest.approx((t0 / c) ** (1 / k), rel=0.25)
    assert f.rms_rel_error < 0.03


def test_power_fit_is_robust_to_one_wild_point():
    n = np.array(SIZES, dtype=float)
    t = 10e-6 + 1e-11 * n**3
    t[3] *= 3  # a preempted size
    f = fit_power(n, t)
    assert f.k == pytest.approx(3.0, abs=0.1)


def test_power_fit_refuses_underdetermined_data():
    with pytest.raises(FitError, match="at least 4"):
        fit_power([64, 128, 256], [1e-5, 2e-5, 8e-5])
    with pytest.raises(FitError, match="at least 4"):
        fit_power([64, 64, 64, 64, 64], [1e-5] * 5)


@pytest.mark.parametrize("name, g", [
    ("O(1)", lambda n: 0 * n), ("O(n)", lambda n: n), ("O(n log n)", lambda n: n * np.log2(n)),
    ("O(n^2)", lambda n: n**2), ("O(n^3)", lambda n: n**3),
])
def test_complexity_pick_finds_the_true_class(name, g):
    n = np.array([2**k for k in range(6, 20, 1)], dtype=float)
    gn = g(n)
    c = 0.0 if name == "O(1)" else 1e-3 / gn.max()  # the work term reaches 1 ms at the largest size
    t = noisy(2e-6 + c * gn, 0.01, seed=7)
    assert fit_complexity(n, t).best == name


def test_complexity_needs_three_sizes():
    with pytest.raises(FitError):
        fit_complexity([1, 2], [1.0, 2.0])


PEAKS = Peaks("cpu", "test cpu", "float32", flops_per_s=100e9, bytes_per_s=10e9, matmul_size=1024,
              copy_bytes=2**27, threads=1, host="h")


def test_roofline_classification_on_synthetic_points():
    assert PEAKS.ridge == 10.0
    # intensity 100 FLOP/B: compute roof; 50 GFLOP/s achieved = 50%
    b = classify(1.0, 50e9, 0.5e9, PEAKS)
    assert (b.kind, b.roof) == ("compute-bound", "compute") and b.fraction == pytest.approx(0.5)
    # intensity 0.25: memory roof; 8 GB/s of 10
    b = classify(1.0, 2e9, 8e9, PEAKS)
    assert b.kind == "memory-bound" and b.fraction == pytest.approx(0.8)
    # within 2x the fitted overhead: overhead-bound whatever the roof
    assert classify(15e-6, 1e3, 1e3, PEAKS, overhead_s=10e-6).kind == "overhead-bound"
    # without a fit, a tiny fraction of the roof means overhead-bound
    assert classify(1.0, 1e6, 1e6, PEAKS).kind == "overhead-bound"
    assert classify(1.0, None, None, PEAKS).kind == "unknown"
    assert classify(1.0, 1e9, 1e9, None).kind == "unknown"


def sim_make(world, t0_ns=20_000, c_ns=0.01, k=3.0, fail_at=None):
    def make(n):
        if n == fail_at:
            raise RuntimeError("CUDA out of memory. Tried to allocate 64.00 GiB")
        return world.function(t0_ns + c_ns * n**k)

    return make


def test_sweep_on_the_simulated_clock_fits_the_law():
    w = SimWorld(SimSpec(timer_ns=50, noise=0.01, seed=1))
    sizes = [32, 64, 128, 256, 512, 1024]
    r = sweep(sim_make(w), sizes, flops="2*n**3", bytes=lambda n: 12.0 * n * n, timer=w.timer(), peaks=PEAKS,
              min_time=0.0, warmup_min_time=0.0)
    assert [p.n for p in r.series()] == sizes and all(p.ok for p in r.points)
    f = r.fit()
    assert f.k == pytest.approx(3.0, abs=0.1) and f.t0 == pytest.approx(20e-6, rel=0.1)
    p256 = next(p for p in r.points if p.n == 256)
    assert r.relative(p256) == (pytest.approx(1.0), pytest.approx(1.0))
    p1024 = next(p for p in r.points if p.n == 1024)
    rel, work = r.relative(p1024)
    assert work == pytest.approx(64.0) and rel == pytest.approx((20e-6 + 1e-11 * 1024**3) / (20e-6 + 1e-11 * 256**3),
                                                                  rel=0.03)
    assert p1024.flops_per_s == pytest.approx(2 * 1024**3 / p1024.seconds)
    assert r.bound(next(p for p in r.points if p.n == 32), f.t0).kind == "overhead-bound"
    assert r.complexity().best == "O(n^3)"
    back = SweepResult.from_dict(json.loads(r.to_json()))
    assert back == r
    assert "fit: t(n) =" in str(r)


def test_a_failing_size_is_recorded_and_the_sweep_goes_on():
    w = SimWorld(SimSpec(timer_ns=50, seed=1))
    r = sweep(sim_make(w, fail_at=256), [32, 64, 128, 256, 512, 1024], timer=w.timer(), min_time=0.0,
              warmup_min_time=0.0)
    failed = [p for p in r.points if not p.ok]
    assert [p.n for p in failed] == [256] and failed[0].error.startswith("out of memory")
    assert sum(p.ok for p in r.points) == 5
    r.fit()  # the other sizes still support a fit


def test_too_few_sizes_report_points_but_no_fit():
    w = SimWorld(SimSpec(timer_ns=50, seed=1))
    r = sweep(sim_make(w), [64, 128, 256], timer=w.timer(), min_time=0.0, warmup_min_time=0.0)
    assert all(p.ok for p in r.points)
    with pytest.raises(FitError):
        r.fit()
    assert "fit: none" in str(r)


def test_ctrl_c_keeps_the_finished_sizes():
    w = SimWorld(SimSpec(timer_ns=50, seed=1))

    def make(n):
        if n == 256:
            raise KeyboardInterrupt
        return w.function(10_000)

    with pytest.raises(Interrupted) as info:
        sweep(make, [64, 128, 256, 512], timer=w.timer(), min_time=0.0, warmup_min_time=0.0)
    r = info.value.partial
    assert isinstance(r, SweepResult) and not r.complete
    assert [p.n for p in r.points] == [64, 128]


def test_several_implementations():
    w = SimWorld(SimSpec(timer_ns=50, seed=1))
    r = sweep({"slow": sim_make(w, c_ns=0.02), "fast": sim_make(w, c_ns=0.01)}, [64, 128, 256, 512],
              timer=w.timer(), min_time=0.0, warmup_min_time=0.0)
    assert r.labels == ("slow", "fast")
    slow, fast = r.series("slow"), r.series("fast")
    assert all(a.seconds > b.seconds for a, b in zip(slow, fast))


@pytest.mark.parametrize("sizes, match", [([0, 64], "positive"), ([64, 64], "distinct"), ([], "empty"),
                                          ([1.5], "positive")])
def test_bad_sizes(sizes, match):
    with pytest.raises(ValueError, match=match):
        sweep(lambda n: (lambda: None), sizes)


def test_flops_expressions():
    assert size_expression("2*n**3")(4) == 128.0
    assert size_expression("n*log2(n)")(8) == 24.0
    with pytest.raises(ValueError, match="'2*m'"):
        size_expression("2*m")
    with pytest.raises(ValueError, match="__import__"):
        size_expression("__import__('os').system('x')")
    with pytest.raises(ValueError, match="not a finite number"):
        sweep(lambda n: (lambda: None), [1, 2], flops=lambda n: "many")


def test_invalid_benchmark_option_is_an_error_not_a_failed_size():
    with pytest.raises(ValueError, match="min_samples"):
        sweep(lambda n: (lambda: None), [1, 2], min_samples=0)
    with pytest.raises(TypeError, match="colour"):
        sweep(lambda n: (lambda: None), [1, 2], colour="red")


def test_parse_sizes():
    assert parse_sizes("64,128,...,1024") == [64, 128, 256, 512, 1024]
    assert parse_sizes("1000,2000,...,5000") == [1000, 2000, 3000, 4000, 5000]
    assert parse_sizes("2**4, 2**6") == [16, 64]
    assert parse_sizes("100,300,...,1000") == [100, 300, 500, 700, 900, 1000]
    with pytest.raises(ValueError, match="two sizes before"):
        parse_sizes("64,...,1024")


def test_plots_are_valid_images(tmp_path):
    pytest.importorskip("matplotlib")
    from measurefirst.render.plots import plot_all

    w = SimWorld(SimSpec(timer_ns=50, noise=0.01, seed=1))
    r = sweep(sim_make(w), [32, 64, 128, 256, 512], flops="2*n**3", bytes="12*n**2", timer=w.timer(), peaks=PEAKS,
              min_time=0.0, warmup_min_time=0.0)
    files = plot_all(r, tmp_path / "s.png")
    assert [f.name for f in files] == ["s.png", "s-throughput.png", "s-roofline.png"]
    for f in files:
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
    svg = plot_all(r, tmp_path / "s.svg")[0]
    assert xml.dom.minidom.parse(str(svg)).documentElement.tagName == "svg"
    with pytest.raises(ValueError, match="png or .svg"):
        plot_all(r, tmp_path / "s.gif")
