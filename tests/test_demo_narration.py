"""Each conclusion of the lecture chosen from the measurement: driven with simulated and hand-built results."""

import pytest
from rich.cells import cell_len

from measurefirst.compare import Verdict
from measurefirst.engine import benchmark
from measurefirst.fit import PowerFit
from measurefirst.lecture import demos
from measurefirst.lecture.narration import TEXT, say
from measurefirst.profiling.capture import KernelRow, OpRow
from measurefirst.profiling.kernels import decode_kernel, gpu_family
from measurefirst.render.findings import title
from measurefirst.results import Measurement, Stop, Warmup
from measurefirst.simulate import SimSpec, SimWorld

LANGS = ("en", "zh")


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
    for key, words in TEXT.items():
        assert set(words) == {"en", "zh"}, key
        assert "内核" not in words["zh"] and "热身" not in words["zh"], key
        for leak in ("read with care", "faster", "slower", "undecided", "Lesson", "failed", "consumer"):
            assert leak not in words["zh"], key


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
