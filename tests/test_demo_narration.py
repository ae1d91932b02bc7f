"""Each conclusion of the lecture chosen from the measurement: driven with simulated and hand-built results."""

import pytest
from rich.cells import cell_len

from measurefirst.tools.compare import Verdict
from measurefirst.measure.engine import benchmark
from measurefirst.results.fitting import PowerFit
from measurefirst.lecture import demos
from measurefirst.lecture.narration import TEXT, say
from measurefirst.profiling.capture import KernelRow, OpRow
from measurefirst.profiling.kernels import decode_kernel, gpu_family
from measurefirst.render.findings import title
from measurefirst.render.words import LANGS
from measurefirst.results.kinds import Measurement, Stop, Warmup
from measurefirst.measure.simulate import SimSpec, SimWorld


def _m(samples=(1000.0,) * 20, *, preempted=None, steady=True, cold_ns=50_000.0, calls=4,
       stop=Stop("precision", True, 0.01, 1.0)):
    return Measurement(label="x", device="cpu", timer="wall", samples_ns=tuple(samples),
                       numbers=(1,) * len(samples), host_ns=None, preempted=preempted,
                       warmup=Warmup(cold_ns, calls, (), steady, 0.1, "test"), calibration=None, stop=stop)


def _verdict(verdict, ratio, rounds=20):
    return Verdict("fused", "manual", ratio, None if verdict == "undecided" else (ratio * 0.98, ratio * 1.02), verdict,
                   0.02, rounds)


def _fit(k, ci=(2.9, 3.1), rms=0.02):
    return PowerFit(t0=1e-5, c=1e-10, k=k, k_ci=ci, crossover=100.0, rms_rel_error=rms, n_points=5)


def test_every_narration_key_has_both_languages_and_no_english_in_chinese():
    for key, (_, zh) in TEXT.items():
        assert "内核" not in zh and "热身" not in zh, key
        for leak in ("read with care", "faster", "slower", "undecided", "Lesson", "failed", "consumer"):
            assert leak not in zh, key


@pytest.mark.parametrize("lang", LANGS)
def test_warmup_sentence_follows_warmup_steady(lang):
    settled, lines = demos.warmup_lines(_m(steady=True, cold_ns=50_000.0), "cpu", lang)
    assert settled == "settled" and lines[1] == say("pitfalls.trap1.settled", lang, calls=4)
    capped, lines = demos.warmup_lines(_m(steady=False, cold_ns=1_100.0, calls=2), "cpu", lang)
    assert capped == "capped" and lines[1] == say("pitfalls.trap1.capped", lang, calls=2)
    # the cold ratio is read as measured: 50x is "much slower", 1.1x is "small here"
    assert lines[0] == say("pitfalls.trap1.small", lang, ratio=1.1, device="cpu")
    assert demos.warmup_lines(_m(cold_ns=50_000.0), "cpu", lang)[1][0] == \
        say("pitfalls.trap1.big", lang, ratio=50.0, device="cpu")


def test_warmup_capped_from_a_simulated_world():
    # a function that keeps getting faster for longer than warm-up may run: warm-up stops at its cap
    world = SimWorld(SimSpec(call_ns=10_000, warm_calls=40, warm_extra_ns=10_000_000, timer_ns=50))
    m = benchmark(world.function(), timer=world.timer(), device="cpu", min_time=0.0, budget=0.5)
    assert m.warmup is not None and not m.warmup.steady
    assert demos.warmup_lines(m, "cpu", "en")[0] == "capped"
    world = SimWorld(SimSpec(call_ns=10_000, timer_ns=50))
    m = benchmark(world.function(), timer=world.timer(), device="cpu", min_time=0.0)
    assert demos.warmup_lines(m, "cpu", "zh")[0] == "settled"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("verdict,ratio,branch", [
    ("faster", 0.25, "faster"), ("faster", 0.9, "faster"), ("slower", 1.018, "slower"), ("slower", 2.0, "slower"),
    ("no difference", 1.0, "same"), ("undecided", 1.0, "undecided")])
def test_profiler_lesson_follows_the_verdict(lang, verdict, ratio, branch):
    got, words = demos.verdict_words(_verdict(verdict, ratio), lang)
    assert got == branch
    assert say(f"profiler.lesson.{branch}", lang, device="cpu", manual="9", fused="1", unit=say("ops", lang))
    if lang == "zh":
        assert "倍" not in words or ratio >= 1.5 or ratio <= 1 / 1.5
    # the same claim in both languages: the same number appears in each
    other = demos.verdict_words(_verdict(verdict, ratio), "zh" if lang == "en" else "en")[1]
    nums = [t for t in ("4.00", "11.1", "1.8", "2.00", "±2.0%", "20") if t in words]
    assert nums and all(t in other for t in nums)


def test_slower_by_a_few_percent_reads_the_same_in_both_languages():
    v = _verdict("slower", 1.018)
    assert "1.8% slower" in demos.verdict_words(v, "en")[1]
    assert "慢 1.8%" in demos.verdict_words(v, "zh")[1]


@pytest.mark.parametrize("lang", LANGS)
def test_scaling_lesson_follows_the_fitted_exponent(lang):
    assert demos.fit_lines(_fit(3.05), lang)[0] == "cubic"
    assert demos.fit_lines(_fit(2.41, (2.2, 2.6)), lang)[0] == "below"
    assert demos.fit_lines(_fit(3.8, (3.6, 4.0)), lang)[0] == "above"
    assert demos.fit_lines(None, lang)[0] == "unknown"
    branch, lines = demos.fit_lines(_fit(6.0, (5.0, 6.0)), lang)  # at the edge of the searched range
    assert branch == "unknown" and lines[1].startswith("!") and say("disturbed", lang) in lines
    branch, lines = demos.fit_lines(_fit(2.0, (0.0, 6.0), rms=0.4), lang)  # a poor fit, k's CI 0-6
    assert branch == "unknown" and say("disturbed", lang) in lines
    no_cross = PowerFit(t0=0.0, c=1e-10, k=3.0, k_ci=(2.9, 3.1), crossover=None, rms_rel_error=0.01, n_points=5)
    assert say("scaling.nocross", lang) in demos.fit_lines(no_cross, lang)[1][0]


@pytest.mark.parametrize("lang", LANGS)
def test_disturbed_numbers_are_marked_with_the_fix(lang):
    clean = _m()
    assert demos.issue_codes(clean) == [] and demos.mark_lines([("a", clean)], lang) == []
    # two speeds alternating (and so a wide IQR), sampling stopped by the noise floor
    noisy = _m(samples=[1000.0, 2000.0] * 30, stop=Stop("noise", False, 0.01, 1.0))
    pre = _m(samples=[1000.0] * 10 + [9e6] * 2, preempted=(0,) * 10 + (3, 3))
    assert demos.issue_codes(noisy) == ["noise_floor", "unstable", "speed_modes", "precision_not_met"]
    assert demos.issue_codes(pre) == ["preempted"]
    lines = demos.mark_lines([("n=128", noisy), ("n=512", pre), ("n=32", clean)], lang)
    assert len(lines) == 3 and lines[0].startswith("! n=128") and lines[1].startswith("! n=512")
    assert lines[-1] == say("disturbed", lang) and "OMP_NUM_THREADS" in lines[-1]
    assert "2" in lines[1] and "12" in lines[1]  # 2 of 12 samples set aside
    assert title("speed_modes", lang) in lines[0] and title("noise_floor", lang) in lines[0]
    unmet = _m(stop=Stop("budget", False, 0.01, 1.0))
    assert demos.issue_codes(unmet) == ["precision_not_met"]


def test_gpu_families():
    expected = {"sm70": "V100", "sm80": "A100", "sm86": "RTX 30", "sm89": "RTX 40", "sm90": "H100",
                "sm100": "B200", "sm120": "RTX 50"}
    for arch, gpu in expected.items():
        assert gpu in (gpu_family(arch) or ""), arch
    assert "H200" in gpu_family("sm90a") and "GB200" in gpu_family("SM_100")
    assert gpu_family(None) is None and gpu_family("sm999") is None and gpu_family("banana") is None
    assert decode_kernel("sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_cublas").gpu == "Hopper (H100, H200)"


@pytest.mark.parametrize("lang", LANGS)
def test_the_lectures_kernel_name_field_by_field(lang):
    fields, lines = demos.kernel_name_lines(demos.LECTURE_KERNEL, lang)
    assert (fields["library"], fields["arch"], fields["op"], fields["dtype"], fields["tile"]) == \
        ("cutlass", "sm100", "gemm", "f32", "64x64x16")
    assert fields["tensor_cores"] is False and "B200" in fields["gpu"]
    text = "\n".join(lines)
    assert "cutlass" in text and "sm100" in text and "B200" in text and "f32" in text and "64x64x16" in text
    assert say("kernels.simt", lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_tables_align_in_display_cells(lang):
    rows = [OpRow("aten::mul", 6, 1e-3, 1e-3, 0, 0, 6e6, 0, 0), OpRow("aten::tanh", 1, 2e-4, 2e-4, 0, 0, 0, 0, 0)]
    lines = demos.op_table_lines(rows, lang, "t")
    assert len({cell_len(line) for line in lines[1:]}) == 1  # header and rows: the same width on screen
    kr = KernelRow("void at::native::vectorized_elementwise_kernel<4, at::native::tanh_kernel_cuda<float>>(int)",
                   "aten::tanh", 1, 1e-5, 1e-5, {})
    gemm = KernelRow(demos.LECTURE_KERNEL, "aten::mm", 2, 1e-4, 5e-5, {})
    klines = demos.kernel_table_lines([kr, gemm], lang)
    assert "aten::mm" in klines[2] and "sm100" in klines[2] and "B200" in klines[2] and "64x64x16" in klines[2]
    header = klines[0][:-len(say("profiler.kernels.columns", lang).split("|")[7]) - 2]
    assert cell_len(header) == cell_len(klines[1][:-len(kr.name[:80]) - 2]) == \
        cell_len(klines[2][:-len(demos.LECTURE_KERNEL) - 2])


@pytest.mark.parametrize("lang", LANGS)
def test_step_phases_read_as_measured(lang):
    info, lines = demos.phase_lines({"data": 1e-5, "forward": 1e-3, "backward": 2e-3, "optimizer": 5e-4}, lang)
    assert info["dominant"] == "backward" and info["backward"] == "usual" and info["backward_ratio"] == 2.0
    assert len({cell_len(line) for line in lines[:5]}) == 1
    info, lines = demos.phase_lines({"data": 1e-5, "forward": 1e-3, "backward": 8e-3, "optimizer": 5e-4}, lang)
    assert info["backward"] == "unusual" and lines[-1] == say("mlp.ratio.unusual", lang, r=8.0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_speedup_is_said_with_the_speedup_ci(lang):
    v = Verdict("fused", "manual", 0.1, (0.08, 0.125), "faster", 0.2, 20)  # 10x faster, speed-up CI 8-12.5x
    branch, sentence = demos.verdict_words(v, lang)
    assert branch == "faster"
    assert sentence == {"en": "fused is 10.00x as fast as manual (interleaved comparison, speed-up 95% CI 8.00–12.50, "
                              "this run's precision)",
                        "zh": "融合版的速度是手写版的 10.00 倍（交错对比，加速比的 95% 置信区间 8.00–12.50，本次运行的精度）"}[lang]


# ---- issue 24: every number agrees with every other --------------------------------------------

import random
import re

from measurefirst.profiling.capture import Profile
from measurefirst.results.kinds import RunToRun
from measurefirst.tools.sweep import SweepPoint, SweepResult


def _op(name, self_s, calls=1):
    return OpRow(name, calls, self_s, self_s, 0, 0, 1e6, 0, 0, work=True)


def _profile(work, extra=()):
    work = tuple(work)
    return Profile("p", "cpu", 2, work + tuple(extra), work, work, (), sum(r.self_s for r in work))


def _rtr(m, cv=0.05):
    """The same measurement with a measured run-to-run spread (its headline interval is then run to run)."""
    from dataclasses import replace
    return replace(m, run_to_run=RunToRun(cv=cv, source="repeats", n=5, factor=2.776))


class _Comparison:
    """The two things comparison_lines reads of a Comparison: the measurements and the verdict."""

    def __init__(self, manual, fused, verdict):
        self.m = {"manual": manual, "fused": fused}
        self.v = verdict

    def __getitem__(self, label):
        return self.m[label]

    def verdict(self, label):
        return self.v


def _table_row(lines, name):
    return next(line for line in lines if line.split() and line.split()[0] == name)


@pytest.mark.parametrize("lang", LANGS)
def test_an_ops_share_is_one_number_in_the_table_and_the_lesson(lang):
    # aten::mm is 58.25% of all the work's self time but 59.43% of the six rows shown: the table and the
    # lesson once computed it over different totals ("aten::mm 59%" over "aten::mm, 58%")
    rows = [_op("aten::mm", 58.6e-3)] + [_op(f"aten::op{i}", 8e-3) for i in range(5)] + [_op("aten::tail", 2e-3)]
    old_table_share = 58.6 / sum(r.self_s * 1e3 for r in rows[:6])
    old_lesson_share = 58.6 / sum(r.self_s * 1e3 for r in rows)
    assert f"{old_table_share:.0%}" != f"{old_lesson_share:.0%}"  # the data shows the old bug
    lines = demos.step_profile_lines(_profile(rows), lang)
    assert re.search(r"\s58%\s", _table_row(lines, "aten::mm")) and "aten::mm" in lines[-1]
    assert lines[-1] == say("mlp.lesson", lang, top="aten::mm", share="58%")
    # the full view's shares are of every op's self time, not of the rows shown
    p = _profile(rows[:1], extra=[_op("aten::empty", 41.4e-3)])
    table = demos.op_table_lines(p.rows("all", limit=1), lang, "t", demos.op_time_s(p))
    assert re.search(r"\s59%\s", _table_row(table, "aten::mm"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_profile_against_the_benchmark_is_explained_with_the_ratio(lang):
    bench = _m(samples=(894_000.0,) * 20)  # 894.0 µs per call
    over = _profile([_op("aten::mul", 30e-3, 6), _op("aten::add", 1.6e-3, 2)])  # 31.6 ms of op time per call
    ratios, lines = demos.profile_gap_lines([("manual GeLU", over, bench)], lang)
    assert ratios[0] == pytest.approx(31.6e-3 / 894e-6)
    assert lines == [say("profiler.gap.over", lang, what="manual GeLU", pt="31.60 ms", bt="894.0 µs",
                         ratio=31.6e-3 / 894e-6, ops="8")]
    assert "35.3" in lines[0] and "31.60 ms" in lines[0] and "894.0 µs" in lines[0]
    # one op per call (the fused F.gelu) is not "many small ops": the one op's recording is said
    one = _profile([_op("aten::gelu", 9e-3, 1)])
    lines = demos.profile_gap_lines([("fused F.gelu", one, bench)], lang)[1]
    assert lines == [say("profiler.gap.over.few", lang, what="fused F.gelu", pt="9.000 ms", bt="894.0 µs",
                         ratio=9e-3 / 894e-6, ops="1")]
    assert "many small" not in lines[0] and "许多小运算" not in lines[0]
    under = _profile([_op("aten::mm", 100e-6)])  # a GPU profile: the CPU side saw only the launches
    ratios, lines = demos.profile_gap_lines([("x", under, bench)], lang)
    assert lines == [say("profiler.gap.under", lang, what="x", pt="100.0 µs", bt="894.0 µs", ratio=100e-6 / 894e-6)]
    # within the named factor either way: nothing to explain
    near = _profile([_op("aten::mul", 894e-6 * demos.PROFILE_GAP_FACTOR * 0.99)])
    near_low = _profile([_op("aten::mul", 894e-6 / demos.PROFILE_GAP_FACTOR * 1.01)])
    assert demos.profile_gap_lines([("a", near, bench), ("b", near_low, bench)], lang)[1] == []
    # the benchmark's number in the explanation is the string the time line shows
    c = _Comparison(bench, _m(samples=(400_000.0,) * 20), _verdict("faster", 0.45))
    time_line = demos.comparison_lines(c, "cpu", lang)[1][0]
    assert "894.0 µs" in time_line


@pytest.mark.parametrize("lang", LANGS)
def test_a_cold_call_faster_than_warm_is_a_disturbed_measurement(lang):
    # 0.82x: the first call was faster than the warm median; not "the one-time costs are small"
    branch, lines = demos.warmup_lines(_m(cold_ns=820.0), "cpu", lang)
    assert lines[0] == say("pitfalls.trap1.inverted", lang, ratio=0.82, device="cpu", preempted="")
    assert lines[0].startswith("!") and "0.82" in lines[0]
    # with samples preempted, it names their count
    pre = _m(samples=[1000.0] * 10 + [9e6] * 2, preempted=(0,) * 10 + (3, 3), cold_ns=820.0)
    line = demos.warmup_lines(pre, "cpu", lang)[1][0]
    assert line == say("pitfalls.trap1.inverted", lang, ratio=0.82, device="cpu",
                       preempted=say("pitfalls.trap1.preempted", lang, k=2, n=12))
    assert say("pitfalls.trap1.small", lang, ratio=0.82, device="cpu") not in lines
    assert ("quieter machine" if lang == "en" else "更安静的机器") in lines[0]
    # exactly 1x is not below 1: the small branch
    assert demos.warmup_lines(_m(cold_ns=1000.0), "cpu", lang)[1][0] == \
        say("pitfalls.trap1.small", lang, ratio=1.0, device="cpu")


@pytest.mark.parametrize("lang", LANGS)
def test_every_branch_checks_the_direction_it_narrates(lang):
    # a synchronized time shorter than the unsynchronized one is flagged, not narrated as the trap
    assert demos.sync_lines(2e-3, 1e-3, 0.5, lang) == [
        say("pitfalls.trap2.inverted", lang, naive="2.000 ms", truth="1.000 ms", ratio=0.5)]
    assert demos.sync_lines(1e-5, 1e-3, 100.0, lang) == [
        say("pitfalls.trap2.gpu", lang, naive="10.00 µs", truth="1.000 ms", ratio=100.0)]
    assert demos.sync_lines(None, 1e-3, None, lang) == []
    # a "faster" verdict whose ratio says slower (and the reverse) is not narrated as a speed-up
    assert demos.verdict_words(_verdict("faster", 1.2), lang)[0] == "undecided"
    assert demos.verdict_words(_verdict("slower", 0.8), lang)[0] == "undecided"
    # "no difference" without a measured detectable difference is not said as "±nan%"
    nan = Verdict("fused", "manual", 1.0, (0.9, 1.1), "no difference", float("nan"), 20)
    assert demos.verdict_words(nan, lang) == ("undecided", say("verdict.nodetect", lang))
    assert "-" not in demos.verdict_words(_verdict("faster", 1.2), lang)[1].split("(")[0]
    # the profiler lesson names the counts the profile showed, not a fixed "nine"
    c = _Comparison(_m(), _m(samples=(400.0,) * 20), _verdict("faster", 0.4))
    lesson = demos.comparison_lines(c, "cpu", lang, manual="12", fused="2", unit=say("kernels", lang))[1][-1]
    assert "12" in lesson and "2" in lesson and "nine" not in lesson and "九" not in lesson


def _quick_mentions(text):
    return text.count("--quick")


def test_no_narration_but_the_quick_advice_mentions_quick():
    assert [k for k, (en, zh) in TEXT.items() if "--quick" in en or "--quick" in zh] == ["advice.quick"]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("quick", [True, False])
def test_quick_advice_only_in_quick_mode_and_once(monkeypatch, lang, quick):
    # three demos, each with a disturbed number or an undecided lesson: the lecture says the fix for
    # each, and the quick-mode advice once (quick) or never (full)
    noisy = _m(samples=[1000.0, 2000.0] * 30, stop=Stop("noise", False, 0.01, 1.0))

    def demo(name, lines_of):
        def runner(device, lang, quick, emit):
            lines = lines_of(lang)
            for line in lines:
                emit(line)
            return demos.DemoResult(name, {"wants_budget": True})
        return runner

    c = _Comparison(noisy, noisy, _verdict("undecided", 1.0))
    monkeypatch.setattr(demos, "RUNNERS", {
        "pitfalls": demo("pitfalls", lambda lang: demos.mark_lines([("1024x1024", noisy)], lang)),
        "scaling": demo("scaling", lambda lang: demos.fit_lines(_fit(6.0, (5.0, 6.0)), lang)[1]),
        "profiler": demo("profiler", lambda lang: demos.comparison_lines(c, "cpu", lang)[1]),
        "kernels": demo("kernels", lambda lang: []), "mlp": demo("mlp", lambda lang: []),
        "compile": demo("compile", lambda lang: [])})
    out = []
    demos.run("all", device="cpu", lang=lang, quick=quick, emit=out.append)
    text = "\n".join(out)
    assert text.count(say("disturbed", lang)) == 3
    assert _quick_mentions(text) == (1 if quick else 0)
    assert (say("advice.quick", lang) in out) is quick
    # nothing disturbed, nothing undecided: no advice even in quick mode
    clean = [demos.DemoResult("x", {"wants_budget": False})]
    assert demos.quick_advice_lines(clean, True, lang) == [] and demos.quick_advice_lines(clean, False, lang) == []


def _sweep(ms, ref=256):
    pts = tuple(SweepPoint("matmul", n, m, flops=2.0 * n**3) for n, m in ms)
    return SweepResult(pts, ("matmul",), tuple(n for n, _ in ms), ref, "cpu")


@pytest.mark.parametrize("lang", LANGS)
def test_every_interval_says_which_it_is(lang):
    prec = _m(samples=[1000.0 + i for i in range(30)])
    r2r = _rtr(prec)
    assert r2r.ci_includes_run_to_run and not prec.ci_includes_run_to_run
    # the scaling table's column names the interval it holds: run to run, this run's precision, or mixed
    for ms, kind in (([(128, r2r), (256, r2r)], "run_to_run"), ([(128, prec), (256, prec)], "precision"),
                     ([(128, prec), (256, r2r)], "mixed")):
        rows, _, lines = demos.scaling_table_lines(_sweep(ms), lang)
        assert say(f"pm.{kind}", lang) in lines[0], kind
        assert [r["interval"] for r in rows] == ["run_to_run" if m is r2r else "precision" for _, m in ms]
        if kind == "mixed":
            cell = [re.findall(r"\S+%\*?", line)[0] for line in lines[1:3]]
            assert cell[0].endswith("%*") and cell[1].endswith("%"), cell
            assert say("pm.mixed.note", lang) in lines
        else:
            assert say("pm.mixed.note", lang) not in lines
    # part 1's interval in words
    assert demos._ci_words(r2r, lang).startswith(say("ci.run_to_run", lang, rel="X", prec="Y").split("X")[0])
    assert ("run to run" if lang == "en" else "运行间") in demos._ci_words(r2r, lang)
    assert demos._ci_words(prec, lang) == say("ci.precision", lang, rel=f"±{prec.ci_half_width_rel:.1%}")
    # the interleaved comparison's intervals are this run's precision, said so in every verdict
    mine = "this run's precision" if lang == "en" else "本次运行的精度"
    for verdict, ratio in (("faster", 0.25), ("faster", 0.9), ("slower", 1.02), ("slower", 2.0),
                           ("no difference", 1.0)):
        assert mine in demos.verdict_words(_verdict(verdict, ratio), lang)[1], verdict
    # the fitted exponent's interval says it comes from the fit
    assert ("from how the sizes scatter" if lang == "en" else "各规模点围绕拟合") in demos.fit_lines(_fit(3.0), lang)[1][0]


_NUM = re.compile(r"\d+(?:\.\d+)?\s?(?:%|ms|µs|ns|s\b)|\d+(?:\.\d+)?(?= GFLOP/s)")


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("lang", LANGS)
def test_every_number_in_a_table_and_its_narration_is_the_same_string(seed, lang):
    rnd = random.Random(seed)
    # the step's profile: the top op's share under the table
    rows = [_op(f"aten::op{i}", rnd.uniform(1e-6, 1e-2), rnd.randint(1, 6)) for i in range(rnd.randint(2, 12))]
    lines = demos.step_profile_lines(_profile(rows), lang)
    top = max(rows, key=lambda r: (r.self_s, -ord(r.name[-1])))
    lesson_nums = _NUM.findall(lines[-1])
    assert lesson_nums and all(n in _table_row(lines, top.name) for n in lesson_nums), (lines[-1], lesson_nums)
    # the step's phases: the dominant phase's share
    phases = {k: rnd.uniform(1e-6, 1e-2) for k in ("data", "forward", "backward", "optimizer")}
    info, plines = demos.phase_lines(phases, lang)
    dom_row = _table_row(plines, say(f"mlp.phase.{info['dominant']}", lang))
    dom_nums = _NUM.findall(plines[-2])
    assert dom_nums and all(n in dom_row for n in dom_nums)
    # the scaling table: the under-fed small size's share and the best rate
    ms = [(n, _m(samples=[t * (1 + 0.01 * i) for i in range(20)]))
          for n, t in ((32, rnd.uniform(5e3, 5e4)), (64, 6e4), (128, 1.5e5), (256, 8e5))]
    srows, _, slines = demos.scaling_table_lines(_sweep(ms), lang)
    share = [line for line in slines if line == say("scaling.share.nofit", lang, n=32, share=demos._pct(
        srows[0]["share_of_best"]), best=f"{max(r['gflops'] for r in srows):.3g}")]
    # with a fit: the fixed overhead is named as what n=32 pays only where t0 is half its time or more
    for t0_share, key in ((0.8, "scaling.share"), (0.01, "scaling.share.other")):
        t0 = t0_share * srows[0]["seconds"]
        _, _, with_fit = demos.scaling_table_lines(_sweep(ms), lang, t0)
        said = say(key, lang, n=32, share=demos._pct(srows[0]["share_of_best"]),
                   best=f"{max(r['gflops'] for r in srows):.3g}", t0=demos.format_time(t0), frac=demos._pct(t0_share))
        assert (said in with_fit) == (srows[0]["share_of_best"] < demos.UNDERFED_SHARE), (said, with_fit[-1])
    if srows[0]["share_of_best"] < demos.UNDERFED_SHARE:
        assert share
        pct, rate = re.findall(r"\d+%", share[0])[0], re.findall(r"([\d.]+) GFLOP/s", share[0])[0]
        assert pct in _table_row(slines[1:], "32")
        best_row = max(srows, key=lambda r: r["gflops"])
        assert rate in _table_row(slines[1:], str(best_row["n"]))
    # the profile against the benchmark: the benchmark's number is the time line's string
    bench = _m(samples=(rnd.uniform(1e4, 1e7),) * 20)
    fused = _m(samples=(rnd.uniform(1e4, 1e7),) * 20)
    prof = _profile([_op("aten::mul", bench.median * rnd.choice((0.1, 1.0, 40.0)))])
    c = _Comparison(bench, fused, _verdict("faster" if fused.median < bench.median else "slower",
                                           fused.median / bench.median))
    time_line = demos.comparison_lines(c, "cpu", lang)[1][0]
    for gap in demos.profile_gap_lines([("manual", prof, bench)], lang)[1]:
        bt = demos.format_time(bench.median)
        assert bt in gap and bt in time_line


@pytest.mark.parametrize("lang", LANGS)
def test_the_whole_step_is_said_apart_from_the_phases_sum(lang):
    phases = {"data": 24.14e-6, "forward": 662.7e-6, "backward": 5.076e-3, "optimizer": 261.2e-6}  # add up to 6.024 ms
    _, lines = demos.phase_lines(phases, lang, 6.095e-3)  # the median of whole steps
    assert lines[-1] == say("mlp.step.sum", lang, t="6.095 ms", sum="6.024 ms")
    _, lines = demos.phase_lines(phases, lang, 6.0241e-3)
    assert lines[-1] == say("mlp.step", lang, t="6.024 ms")
    assert demos.phase_lines(phases, lang)[1][-1].startswith(say("mlp.ratio.unusual", lang, r=0)[:4])


@pytest.mark.parametrize("lang", LANGS)
def test_backward_faster_than_forward_is_flagged(lang):
    info, lines = demos.phase_lines({"data": 1e-5, "forward": 2e-3, "backward": 1e-3, "optimizer": 5e-4}, lang)
    assert info["backward"] == "inverted" and lines[-1] == say("mlp.ratio.inverted", lang, r=0.5)
    assert lines[-1].startswith("!")


@pytest.mark.parametrize("lang", LANGS)
def test_conversion_rows_are_called_cheap_only_when_they_are(lang):
    work = [_op("aten::mul", 10e-3, 6)]
    cheap = _profile(work, extra=[_op("aten::to", 50e-6, 4), _op("aten::_to_copy", 50e-6, 4)])
    assert demos.to_rows_line(cheap, lang) == say("profiler.to_rows", lang, calls="8", time="100.0 µs")
    costly = _profile(work, extra=[_op("aten::to", 5e-3, 4)])
    assert demos.to_rows_line(costly, lang) == say("profiler.to_rows.costly", lang, calls="4", time="5.000 ms",
                                                   share="33%")
    assert demos.to_rows_line(_profile(work), lang) == say("profiler.no_to_rows", lang)
