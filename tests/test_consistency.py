"""Every number agrees with every other (issue 24), as properties over every result kind and every finding.

The rule (docs/consistency.md):

- a finding is raised only when its own value crosses its own threshold in the stated direction, and its
  words show that value, on the right side of the threshold at the shown rounding;
- a number shown twice (text and HTML, a finding's message and its "measured …" evidence) is the same number;
- a rate above its ceiling (a roof) raises a finding naming the ceiling; no "of roof" above 100% in silence;
- a fit whose points contradict the model is marked poor (in its findings and its words), never a law.

Hypothesis draws seeded simulated runs and hand-built values (derandomized, bounded, no deadline), in English
and Chinese. The tables below enumerate ``protocol.KINDS`` and the findings catalogue: a new kind or code fails
:func:`test_every_kind_and_every_code_is_covered` until it has a case here.
"""

from __future__ import annotations

import math
import re
from html import unescape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import report_kinds as rk
from measurefirst import benchmark
from measurefirst.results.errors import FitError
from measurefirst.results.findings import CATALOGUE, Finding, found
from measurefirst.results.protocol import KINDS
from measurefirst.render.findings import FINDING_WORDS, finding_words
from measurefirst.render.report import fragment
from measurefirst.render.report_html import value_vs_threshold
from measurefirst.render.text import fit_text, format_time, sweep_lines
from measurefirst.render.views import Options, view
from measurefirst.render.words import LANGS, word
from measurefirst.measure.simulate import SimSpec, SimWorld

PROPERTY = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: How each code's value relates to its threshold when the finding is raised: ``above`` (value > threshold),
#: ``at_least`` (>=), ``below`` (<), ``beyond`` (|value| > threshold), ``differs`` (!=), or ``state`` (a fact
#: with no threshold crossed: its value, if any, is evidence).
DIRECTION = {
    "incomplete": "state", "noise_floor": "above", "precision_not_met": "above", "few_samples": "below",
    "unstable": "above", "drift": "beyond", "speed_modes": "at_least", "outliers": "above", "preempted": "above",
    "starved": "above", "oversubscribed": "at_least",
    "warmup_not_steady": "state", "cold_start": "at_least", "cold_repetition": "at_least",
    "near_resolution": "above", "overhead_bias": "above",
    "auto_device_cpu": "state", "no_noise_profile": "state", "noise_profile_disagrees": "above",
    "no_device_work": "state", "graph_setup": "state", "unjoined_stream": "above",
    "launch_bound": "at_least", "unsynchronized_timing": "at_least", "implicit_syncs": "above",
    "many_tiny_ops": "at_least", "other_load": "at_least", "cpu_frequency": "state", "threads": "above",
    "tf32_off": "state", "memory": "state", "function_failed": "state", "data_starvation": "above",
    "recompile_during_timing": "above", "compile_time": "state", "cudnn_benchmark_varying_shapes": "above",
    "peak_memory_phase": "state", "mfu_above_100": "above", "batch_mismatch": "differs",
    "table_contradicts_verdict": "above", "selfcheck_failed": "beyond", "selfcheck_trap_missed": "state",
    "selfcheck_noisy": "beyond", "selfcheck_busy": "below", "count_spread": "above", "roof_exceeded": "above", "poor_fit": "above",
    "fit_slope_points": "below", "nonmonotone_sizes": "at_least",
    "rank_straggler": "above", "ranks_disagree": "state", "busbw_drop": "above", "new_straggler": "above",
    "group_throughput": "state", "call_exceeds_budget": "at_least", "fixed_count_cut": "below",
    "compiled": "state", "recompiled": "above", "graph_breaks": "above",
}


def _crosses(direction: str, value: float, threshold: float) -> bool:
    return {"above": value > threshold, "at_least": value >= threshold, "below": value < threshold,
            "beyond": abs(value) > threshold, "differs": value != threshold}.get(direction, True)


def check_finding(f: Finding) -> None:
    """A raised finding's value crosses its threshold in its direction, and its words (message and the HTML
    evidence) show that value on the same side of the threshold as the value itself."""
    direction = DIRECTION[f.code]
    if f.value is None or f.threshold is None or direction == "state" or not math.isfinite(f.value):
        return
    assert _crosses(direction, f.value, f.threshold), (f.code, f.value, f.threshold, f.severity)
    at_threshold = Finding(f.code, f.threshold, f.threshold, f.severity, f.context)
    for lang in LANGS:
        shown, edge = finding_words(f, lang).message, finding_words(at_threshold, lang).message
        if "{value" in _templates(f.code) and f.value != f.threshold and direction != "at_least":
            assert shown != edge, (f.code, f.value, f.threshold, shown)  # the shown value is not the threshold's
    evidence = value_vs_threshold(f.value, f.threshold)
    assert evidence is not None and evidence[0] != evidence[1], (f.code, f.value, f.threshold, evidence)


def _templates(code: str) -> str:
    return " ".join(en for k, (en, _) in FINDING_WORDS.items() if k.startswith(f"{code}.message"))


# ---- every finding code: its words at the edge of its threshold ------------------------------------------------
#: Codes whose value is shown with a rounding that can meet the threshold's (a percentage, a ratio):
#: values drawn a hair across the threshold must still read as across it.
def _near(threshold: float, direction: str) -> st.SearchStrategy[float]:
    eps = st.floats(1e-6, 0.02)
    if direction == "below":
        return eps.map(lambda e: threshold * (1 - e) if threshold else -e)
    return eps.map(lambda e: threshold * (1 + e) if threshold else e)


CROSSING = sorted(c for c, d in DIRECTION.items() if d not in ("state", "differs") and "{value" in _templates(c))


@pytest.mark.parametrize("code", CROSSING)
@PROPERTY
@given(data=st.data())
def test_a_value_a_hair_across_its_threshold_reads_as_across_it(code, data):
    spec = CATALOGUE[code]
    threshold = spec.threshold if spec.threshold is not None else data.draw(st.sampled_from([0.005, 0.01, 0.1, 1.0]))
    if DIRECTION[code] in ("below",) and spec.unit in ("count", "samples", "calls"):
        value = threshold - 1  # counts are whole
    elif spec.unit in ("count", "samples", "calls", "threads"):
        value = threshold + 1
    else:
        value = data.draw(_near(threshold, DIRECTION[code]))
    context = dict(label="f", baseline="b", row="r", n=64, rate=1e9, unit="FLOP/s", peak=1e9, points=1,
                   roof="compute", cores=2, outliers=3, host_ns=1e3, device_ns=1e3)
    if code == "mfu_above_100":
        context["peak"] = data.draw(st.sampled_from(["table", "measured"]))
    if code == "fixed_count_cut":  # a count of trials or warm-up calls, cut at the budget
        threshold, value = 100.0, float(data.draw(st.integers(0, 99)))
        context.update(count=data.draw(st.sampled_from(["trials", "warmup", "repeats"])), budget=1.0)
    f = found(code, value, threshold=threshold, **context)
    check_finding(f)


# ---- simulated measurements: findings, and the numbers text and HTML show -------------------------------------
@st.composite
def sim_runs(draw):
    spec = SimSpec(call_ns=draw(st.sampled_from([2_000.0, 40_000.0, 400_000.0])), noise=draw(st.floats(0.0, 0.5)),
                   timer_ns=draw(st.sampled_from([50.0, 5_000.0])), cold_ns=draw(st.sampled_from([0.0, 2e6, 5e7])),
                   preempt_prob=draw(st.sampled_from([0.0, 0.05, 0.3])), preempt_ns=draw(st.sampled_from([1e5, 1e6])),
                   seed=draw(st.integers(0, 2**16)))
    w = SimWorld(spec)
    return benchmark(w.function(), timer=w.timer(), label="f", min_time=0.0, warmup_min_time=0.0,
                     budget=draw(st.sampled_from([0.05, 0.3])), precision=draw(st.sampled_from([0.005, 0.02])))


@PROPERTY
@given(m=sim_runs())
def test_a_points_precision_is_said_once_with_the_interval_the_stopping_rule_judged(m):
    """A sweep's "!" lines said "precision_not_met: ±1.01%, wider than the ±1.00% target" and, under it, "precision
    target ±1.0% not met (±2.9%, …)": the same target at two roundings, and two intervals for one judgement."""
    from measurefirst.render.text import format_relative, point_issues

    codes = {f.code for f in m.findings}
    for lang in LANGS:
        said = [line for line in point_issues(m, lang) if line.startswith(word("issue_precision", lang).split("±")[0])]
        if codes & {"precision_not_met", "noise_floor"}:
            assert said == [], (lang, said)
        for line in said:
            assert f"±{format_relative(m.precision_half_width_rel)}," in line, (line, m.precision_half_width_rel)
            assert m.precision_half_width_rel > m.stop.precision


@PROPERTY
@given(cold=st.sampled_from([0.5, 1.5, 4.0, 9.5, 12.0, 40.0]), noise=st.floats(0.0, 0.3), seed=st.integers(0, 2**16))
def test_doctors_notes_and_warnings_cross_their_own_thresholds(cold, noise, seed):
    """A doctor's cold-start note (from 2x) and warning (from 10x) each carry the threshold they crossed."""
    from measurefirst.tools.doctor import doctor

    w = SimWorld(SimSpec(call_ns=100_000.0, noise=noise, seed=seed, cold_ns=cold * 100_000.0))
    d = doctor(w.function(), timer=w.timer(), budget=0.2, label="f")
    for f in d.findings:
        check_finding(f)


@pytest.mark.parametrize("kernel_us", [1.0, 50.0])
def test_doctors_unsynchronized_timing_claims_its_threshold_only_when_it_crossed_it(kernel_us):
    """On the simulated GPU: a launch-bound kernel reads about the same with and without synchronizing (a note,
    no threshold crossed); a 50 µs kernel reads 12x short unsynchronized (a warning from 2x)."""
    from measurefirst.tools.doctor import doctor
    from measurefirst.measure.simulate import SimGPU

    g = SimGPU()
    with g.installed():
        d = doctor(g.kernel(kernel_us * 1000.0), budget=0.3)
    (f,) = [f for f in d.findings if f.code == "unsynchronized_timing"]
    assert f.severity == ("info" if kernel_us == 1.0 else "warning")
    check_finding(f)


def _text(results, lang: str) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, color_system=None, force_terminal=False)
    for part in view(results, Options(lang=lang)):
        console.print(part)
    return console.export_text()


@PROPERTY
@given(m=sim_runs())
def test_simulated_measurements_agree_with_their_findings_text_and_html(m):
    for f in m.findings:
        check_finding(f)
    s = m.summary
    assert s is not None
    ci = m.ci
    time = format_time(m.median, None if ci is None else (ci[1] - ci[0]) / 2)
    for lang in LANGS:
        text, html = _text([m], lang), unescape(fragment(m, lang=lang))
        assert time in html and time in text, (time, lang)
        for f in m.findings:  # a finding's message is the same words in text and HTML
            message = finding_words(f, lang).message
            assert message in text.replace("\n", "") or message in " ".join(text.split()), (f.code, lang)
            assert message in html, (f.code, lang)


# ---- every result kind: findings, and their words in text and HTML ---------------------------------------------
def _items(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


@pytest.fixture(scope="module")
def every_kind(tmp_path_factory):
    kinds = rk.every_kind(tmp_path_factory.mktemp("kinds"))
    out = {k: v for k, v in kinds.items() if k != "count_history"}
    out["history"] = kinds["history"]
    out["step_comparison"] = rk.step_comparison()
    return out


def test_every_kind_and_every_code_is_covered(every_kind):
    assert set(every_kind) == set(KINDS)
    assert set(DIRECTION) == set(CATALOGUE)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_shows_each_finding_once_in_the_same_words_in_text_and_html(every_kind, kind):
    results = _items(every_kind[kind])
    findings = [f for r in results for f in getattr(r, "findings", ())]
    for f in findings:
        check_finding(f)
    # a pytest run's text is pytest's own terminal report (tests/test_pytest_plugin.py); notes (info) may be left
    # out of a terse text view, warnings and errors never
    has_text = kind != "pytest_run"
    for lang in LANGS:
        text = " ".join(_text(results, lang).split()) if has_text else ""
        html = " ".join(unescape(fragment(results if len(results) > 1 else results[0], lang=lang)).split())
        for f in findings:
            message = " ".join(finding_words(f, lang).message.split())
            assert message in html, (kind, f.code, lang)
            if has_text and f.severity != "info":
                assert message[:60] in text, (kind, f.code, lang, message)


#: Kinds whose text and HTML both show their measurements' medians.
TIMED_KINDS = ("measurement", "comparison", "sweep", "history", "saved_run", "diagnosis")


@pytest.mark.parametrize("kind", TIMED_KINDS)
def test_each_kind_shows_a_median_at_the_same_rounding_in_text_and_html(every_kind, kind):
    """The history's table said 99.41 µs where its HTML (and every other view) said 99.4 µs (±4.7 µs)."""
    results = _items(every_kind[kind])
    ms = [m for r in results for m in ([r] if r.kind == "measurement" else getattr(r, "measurements", None)
                                       or [getattr(r, "measurement", None)]) if m is not None and m.summary]
    assert ms
    for lang in LANGS:
        text = _text(results, lang)
        html = unescape(fragment(results if len(results) > 1 else results[0], lang=lang))
        for m in ms:
            time = format_time(m.median, None if m.ci is None else (m.ci[1] - m.ci[0]) / 2)
            assert time in text and time in html, (kind, m.label, time, lang)


# ---- ceilings and fits: simulated sweeps ------------------------------------------------------------------------
@st.composite
def sweeps(draw):
    """A hand-built sweep whose times follow t0 + c·n^k, some sizes disturbed (slower or faster), against a peak
    that some rates pass."""
    from measurefirst.tools.roofline import Peaks
    from measurefirst.tools.sweep import SweepPoint, SweepResult
    from test_snapshots import measurement

    t0, c, k = draw(st.floats(1e3, 1e6)), draw(st.floats(1e-4, 1.0)), draw(st.floats(0.5, 3.5))
    sizes = sorted(draw(st.sets(st.sampled_from([16, 32, 64, 128, 256, 512, 1024]), min_size=3, max_size=7)))
    disturb = draw(st.dictionaries(st.sampled_from(sizes), st.floats(0.2, 10.0), max_size=2))
    peak = draw(st.sampled_from([1e6, 1e9, 1e15]))
    peaks = Peaks("cpu", "test cpu", "float32", flops_per_s=peak, bytes_per_s=peak / 10, matmul_size=1024,
                  copy_bytes=1 << 20, threads=2, host="test")
    points = tuple(SweepPoint("op", n, measurement(f"op n={n}", (t0 + c * n**k) * disturb.get(n, 1.0), number=1),
                              flops=2.0 * n**3, bytes=12.0 * n * n) for n in sizes)
    return SweepResult(points=points, labels=("op",), sizes=tuple(sizes), reference=sizes[len(sizes) // 2],
                       device="cpu", peaks=peaks)


@settings(PROPERTY, max_examples=25)
@given(r=sweeps())
def test_sweeps_name_the_ceiling_they_pass_and_mark_the_fits_their_points_contradict(r):
    for f in r.findings:
        check_finding(f)
    codes = [f.code for f in r.checks()]
    over = [p for p in r.series("op") if p.ok and (r.bound(p).fraction or 0) > 1.0]
    assert ("roof_exceeded" in codes) == bool(over)
    try:
        fit = r.fit("op")
    except FitError:  # too few sizes: no law is drawn at all
        fit = None
    contradicted = {"poor_fit", "fit_slope_points", "nonmonotone_sizes"} & set(codes)
    if fit is not None:
        assert bool(contradicted) == fit.poor
    else:
        assert contradicted <= {"nonmonotone_sizes"}
    for lang in LANGS:
        lines = "\n".join(sweep_lines(r, lang=lang))
        poor_words = word("fit_poor", lang).strip(" —")[:20]
        if fit is None:
            assert "c·n^" not in lines.replace("t0 + c·n^k", "")  # no fitted law narrated
            continue
        assert (poor_words in lines) == fit.poor, (lang, lines)
        assert (poor_words in fit_text(fit, lang)) == fit.poor
        if over:
            roof = next(f for f in r.checks() if f.code == "roof_exceeded")
            message = finding_words(roof, lang).message
            assert message in lines or message in unescape(fragment(r, lang=lang))
            # it names the ceiling: which roof, its rate and how it was measured
            assert roof.context["roof"] in ("compute", "memory") and roof.context["unit"] in message
            assert ("float32" in message) == (roof.context["roof"] == "compute") and roof.value is not None
            assert roof.value > 1.0


# ---- shares of a whole -------------------------------------------------------------------------------------------
@PROPERTY
@given(selfs=st.lists(st.floats(1e-7, 1e-2), min_size=1, max_size=12))
def test_the_shares_of_a_profile_add_up_to_100_percent_within_rounding(selfs):
    from measurefirst.profiling.capture import OpRow, Profile
    from measurefirst.render.profile import profile_lines

    ops = tuple(OpRow(name=f"aten::op{i}", calls=1.0, self_s=s, total_s=s, device_s=0.0, flops=0.0, bytes_est=0.0,
                      cpu_mem_bytes=0.0, device_mem_bytes=0.0, input_shapes="", work=True, top_level=True)
                for i, s in enumerate(selfs))
    p = Profile(label="p", device="cpu", steps=1, ops=ops, work=ops, top=ops, kernels=(), step_s=sum(selfs) * 1.1)
    for lang in LANGS:
        rows = [line.split("│") for line in _text([p], lang).splitlines() if line.startswith("│ aten::op")]
        shares = [float(row[5].strip().rstrip("%")) for row in rows[:len(selfs)]]
        assert len(shares) == len(selfs)
        assert abs(sum(shares) - 100) <= 0.05 * len(shares) + 1e-9, (shares, rows)
