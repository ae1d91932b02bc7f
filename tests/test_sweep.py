"""Sweeps, cost-model fits, complexity picks, roofline classes and plots."""

import json
import xml.dom.minidom

import numpy as np
import pytest

from measurefirst.measure.engine import Interrupted
from measurefirst.results.fitting import FitError, fit_complexity, fit_power
from measurefirst.tools.roofline import Peaks, classify
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.render.text import point_error
from measurefirst.tools.sweep import SweepResult, parse_sizes, size_expression, sweep

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
    assert [p.n for p in failed] == [256] and failed[0].error_code == "out_of_memory"
    assert failed[0].error == "CUDA out of memory. Tried to allocate 64.00 GiB"  # the error's own text, as data
    assert point_error(failed[0], "en") == "out of memory: CUDA out of memory. Tried to allocate 64.00 GiB"
    assert point_error(failed[0], "zh") == "内存不足：CUDA out of memory. Tried to allocate 64.00 GiB"
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


# ---- issue 24: every number agrees with every other ---------------------------------------------------
def sim_sweep(times_s, **kw):
    """A sweep on the simulated clock whose size n takes ``times_s[n]`` seconds per call."""
    w = SimWorld(SimSpec(timer_ns=50, noise=0.0, seed=3))
    return sweep(lambda n: w.function(times_s[n] * 1e9), list(times_s), timer=w.timer(), min_time=0.0,
                 warmup_min_time=0.0, **kw)


def test_a_rate_above_its_roof_is_a_finding_about_the_roof():
    # `measurefirst sweep matmul` printed "of roof" 186%, 192%, 145% with no warning
    from measurefirst.render.findings import finding_words
    from measurefirst.render.text import sweep_lines

    stale = Peaks("cpu", "test cpu", "float32", flops_per_s=44.8e9, bytes_per_s=10e9, matmul_size=512,
                  copy_bytes=2**27, threads=2, host="h", measured_at="2026-11-30T09:12:00+00:00", load=3.1, cpus=2)
    rates = {64: 10e9, 128: 30e9, 256: 83.3e9, 512: 86.0e9, 1024: 65.0e9}  # FLOP/s: 186%, 192%, 145% of 44.8
    r = sim_sweep({n: 2 * n**3 / rate for n, rate in rates.items()}, flops="2*n**3", peaks=stale)
    roof = [f for f in r.findings if f.code == "roof_exceeded"]
    assert len(roof) == 1  # one per implementation, with its worst point
    f = roof[0]
    assert f.severity == "warning" and f.threshold == 1.0
    assert f.value == pytest.approx(86.0 / 44.8, rel=1e-3) and f.context["n"] == 512 and f.context["points"] == 3
    assert (f.context["peak"], f.context["threads"], f.context["load"], f.context["cpus"]) == (44.8e9, 2, 3.1, 2)
    text = "\n".join(sweep_lines(r))
    assert "warning [roof_exceeded]" in text and "44.8 GFLOP/s" in text and "192%" in text
    assert "2026-11-30T09:12:00+00:00" in text and "load 3.10 on 2 CPUs" in text
    assert "; measured 2026-11-30T09:12:00+00:00 at load 3.10 on 2 CPUs" in text.splitlines()[0]  # the peaks line
    assert "错的是屋顶" in finding_words(f, "zh").message
    d = json.loads(r.to_json())
    assert "roof_exceeded" in [x["code"] for x in d["findings"]] and SweepResult.from_dict(d).checks() == r.checks()
    # a roof that holds every point: no finding
    assert not [f for f in sim_sweep({n: 2 * n**3 / rate for n, rate in rates.items()}, flops="2*n**3",
                                     peaks=PEAKS).findings if f.code == "roof_exceeded"]


def test_a_point_that_fits_the_cache_is_cache_bound_not_a_wrong_roof():
    # `measurefirst sweep --op add` on a 32 MiB-cache CPU: n = 262144 (3.1 MB a call) read 153 GB/s, "452% !" of a
    # 34.9 GB/s memory roof, and roof_exceeded said the roof was wrong (and the command measured the peaks again)
    from dataclasses import replace

    from rich.console import Console

    from measurefirst.render.text import sweep_lines, sweep_table

    roof = replace(PEAKS, bytes_per_s=35e9, cache_bytes=32 * 2**20)
    rates = {2**14: 60e9, 2**18: 150e9, 2**22: 30e9}  # bytes/s: the first two fit the cache, the last does not
    r = sim_sweep({n: 12 * n / rate for n, rate in rates.items()}, bytes="12*n", peaks=roof)
    kinds = [r.bound(p).kind for p in r.series()]
    assert kinds == ["cache-bound", "cache-bound", "memory-bound"]
    assert not [f for f in r.findings if f.code == "roof_exceeded"]
    def table(lang: str) -> list[str]:
        console = Console(width=200, record=True)
        console.print(sweep_table(r, lang=lang))
        return console.export_text().splitlines()

    rows = [line for line in table("en") if "in cache" in line]
    assert len(rows) == 2 and not any("!" in row for row in rows)  # no "452% !"
    assert sum("在缓存中" in line for line in table("zh")) == 2
    assert not any("roof_exceeded" in line for line in sweep_lines(r))
    assert "last-level cache 32 MiB" in sweep_lines(r)[0] and "末级缓存 32 MiB" in sweep_lines(r, lang="zh")[0]
    # past the cache the roof still binds: a rate above it is still a finding about the roof
    over = sim_sweep({n: 12 * n / rate for n, rate in {**rates, 2**22: 70e9}.items()}, bytes="12*n", peaks=roof)
    (f,) = [f for f in over.findings if f.code == "roof_exceeded"]
    assert f.context["n"] == 2**22 and f.context["points"] == 1
    # a sweep with the cache flushed before each sample: nothing is served from it
    cold = sim_sweep({n: 12 * n / rate for n, rate in rates.items()}, bytes="12*n", peaks=roof, cold_cache=True)
    assert "cache-bound" not in [cold.bound(p).kind for p in cold.series()]
    # a cache size not known (0, as in files from before it was recorded): no point is called cache-bound
    old = sim_sweep({n: 12 * n / rate for n, rate in rates.items()}, bytes="12*n", peaks=replace(roof, cache_bytes=0))
    assert "cache-bound" not in [old.bound(p).kind for p in old.series()]


def test_peaks_record_how_they_were_measured_and_old_files_still_load():
    from dataclasses import asdict

    from measurefirst.tools.roofline import conditions

    when, load, cpus = conditions()
    assert when.endswith("+00:00") and cpus >= 1 and (load >= 0 or load == -1.0)
    r = sim_sweep({n: 1e-3 * (n / 64) ** 3 for n in (64, 128, 256, 512)}, flops="2*n**3", peaks=PEAKS)
    d = r.to_dict()
    assert set(d["peaks"]) >= {"measured_at", "load", "cpus"}
    assert SweepResult.from_dict(json.loads(json.dumps(d))).peaks == PEAKS
    for k in ("measured_at", "load", "cpus"):  # a file from before they were recorded
        del d["peaks"][k]
    assert SweepResult.from_dict(d).peaks == PEAKS
    assert Peaks(**{k: v for k, v in asdict(PEAKS).items() if k not in ("measured_at", "load", "cpus")}) == PEAKS


def test_a_fit_that_ignores_its_data_is_poor_and_its_curve_stays_inside_the_axes():
    # n = 32, 64 and 256 all read ~10 ms (a disturbed run); the fit went through the other points
    import re

    from measurefirst.render.report import fragment
    from measurefirst.render.text import sweep_lines

    times = {32: 10e-3, 64: 10.2e-3, 128: 0.12e-3, 256: 9.9e-3, 512: 8e-3}
    r = sim_sweep(times)
    f = r.fit()
    assert f.poor
    codes = {x.code: x for x in r.findings if x.context.get("label") == r.labels[0]}
    assert {"poor_fit", "nonmonotone_sizes"} <= set(codes)
    drop = codes["nonmonotone_sizes"]
    assert drop.value == pytest.approx(1 - 0.12e-3 / 10.2e-3, rel=1e-3) and drop.threshold == 0.2
    text = "\n".join(sweep_lines(r))
    assert "warning [poor_fit]" in text and "warning [nonmonotone_sizes]" in text
    # flat, then one steep point: too few points on the slope for an exponent
    flat = sim_sweep({32: 10e-3, 64: 10.2e-3, 128: 9.9e-3, 256: 10.1e-3, 512: 40e-3})
    slope = [x for x in flat.findings if x.code == "fit_slope_points"]
    assert slope and slope[0].value < slope[0].threshold == 3
    # the plot: every drawn curve lies within the axes (y pixels between the top and the x-axis)
    html = fragment(r)
    svg_el = re.search(r'<svg[^>]*height="(\d+)"', html)
    assert svg_el is not None
    curves = re.findall(r'<polyline class="mf-line[^"]*" fill="none" points="([^"]+)"', html)
    assert curves
    for pts in curves:
        ys = [float(p.split(",")[1]) for p in pts.split()]
        assert all(0 <= y <= 380 - 52 + 0.5 for y in ys), ys
    # a clean law: no fit findings
    clean = sim_sweep({n: 20e-6 + 1e-11 * n**3 for n in (64, 128, 256, 512, 1024, 2048)})
    assert not clean.checks()


def test_a_cached_peak_that_does_not_say_how_it_was_measured_or_was_measured_under_load_is_measured_again(
        tmp_path, monkeypatch):
    from dataclasses import asdict, replace

    from measurefirst.tools import roofline
    from measurefirst.results.store import Store

    fresh = replace(PEAKS, flops_per_s=120e9, measured_at="2026-12-01T22:00:00+00:00", load=0.2, cpus=2)
    calls = []
    monkeypatch.setattr(roofline, "measure_peaks", lambda *a, **k: calls.append(1) or fresh)
    with Store(tmp_path / "r.db") as st:
        key = roofline._cache_key(roofline.resolve_device("cpu"), roofline.torch_dtype("float32"))
        old = {k: v for k, v in asdict(PEAKS).items() if k not in roofline.PROVENANCE_FIELDS}
        st.put_peaks(key, old)  # an entry from before peaks recorded how they were measured
        assert roofline.peaks("cpu", store=st) == fresh and len(calls) == 1
        # now from the cache; an entry without the device's cache size gets it from the machine
        cache = roofline.known_cache_bytes(roofline.resolve_device("cpu"))
        assert roofline.peaks("cpu", store=st) == replace(fresh, cache_bytes=cache) and len(calls) == 1
    loaded = replace(fresh, load=1.9)  # measured while 1.9 of 2 CPUs were busy
    assert roofline.stale(loaded, 0.3) and not roofline.stale(loaded, 1.5) and not roofline.stale(fresh, 0.0)
    assert not roofline.stale(loaded, -1.0)  # the load now unknown: kept
