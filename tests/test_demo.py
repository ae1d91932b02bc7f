"""The lecture demos, live, in --quick mode, in both languages."""

import json

import pytest

from measurefirst.cli.commands import main
from measurefirst.lecture import default_lang, run


@pytest.mark.realclock  # the lecture measures for real: its sentences follow the machine's speed
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_demos_quick(lang):
    lines = []
    results = {r.name: r.data for r in run("all", device="cpu", lang=lang, quick=True, emit=lines.append)}
    text = "\n".join(lines)
    assert list(results) == ["pitfalls", "scaling", "profiler", "kernels", "mlp", "compile"]
    # structure: a title, six parts in order, the closing motto
    heads = [line for line in lines if line.startswith("#")]
    assert len(heads) == 7
    if lang == "en":
        assert [h.split(".")[0] for h in heads[1:]] == ["## Part 1", "## Part 2", "## Part 3", "## Part 4",
                                                         "## Part 5", "## Part 6"]
        assert "warm up before you start the clock, AND synchronize" in text
        assert "Log every N steps" in text and "--device cuda" in text
        assert lines[-1].strip() == "Measure first, then optimize."
    else:
        assert ["第一部分" in heads[1], "第二部分" in heads[2], "第三部分" in heads[3], "第四部分" in heads[4],
                "第五部分" in heads[5], "第六部分" in heads[6]] == [True] * 6
        assert "先预热" in text and "先同步" in text and "每 N 步" in text and "--device cuda" in text
        assert "先测量，再优化" in lines[-1]
        # the lecture's terms, and no English sentence leaking into the Chinese lecture
        assert "内核" not in text and "核函数" in text and "热身" not in text
        for leak in ("failed:", "distinct", "read with care", "undecided", "faster", "slower", "Lesson"):
            assert leak not in text
    p = results["pitfalls"]
    assert p["cold_s"] > 0 and p["warm_s"] > 0 and p["warmup_calls"] >= 1 and p["unsynced_ratio"] is None
    # the warm-up sentence is true to warmup.steady
    assert p["warmup"] == ("settled" if p["warmup_steady"] else "capped")
    s = results["scaling"]
    assert [r["n"] for r in s["rows"]] == [32, 64, 128, 256, 512]
    ref = next(r for r in s["rows"] if r["n"] == 256)
    assert ref["relative"] == pytest.approx(1.0) and ref["n3_ratio"] == pytest.approx(1.0)
    assert next(r for r in s["rows"] if r["n"] == 512)["n3_ratio"] == pytest.approx(8.0)
    g = results["profiler"]
    assert g["manual_counts"] == {"aten::mul": 6, "aten::add": 2, "aten::tanh": 1}
    assert g["fused_counts"] == {"aten::gelu": 1}
    assert g["manual_count"] == 9 and g["fused_count"] == 1
    # the profiler's own table: every work op with its calls, in both languages
    assert sorted(g["manual_table"]) == [("aten::add", 2), ("aten::mul", 6), ("aten::tanh", 1)]
    assert g["fused_table"] == [("aten::gelu", 1)]
    assert "aten::tanh" in text and "aten::gelu" in text and "aten::to" in text
    assert g["lesson"] == {"faster": "faster", "slower": "slower", "no difference": "same",
                           "undecided": "undecided"}[g["verdict"]]
    assert s["lesson"] in ("cubic", "below", "above", "unknown")
    k = results["kernels"]["example"]
    assert (k["library"], k["arch"], k["gpu"], k["op"], k["dtype"], k["tile"], k["tensor_cores"]) == \
        ("cutlass", "sm100", "Blackwell (B200, GB200)", "gemm", "f32", "64x64x16", False)
    assert "sm100" in text and "B200" in text and "64x64x16" in text
    m = results["mlp"]
    assert set(m["phase_s"]) == {"data", "forward", "backward", "optimizer"}
    assert m["work_counts"]["aten::addmm"] == 2 and m["work_counts"]["aten::mm"] == 3  # two Linear layers
    assert m["dominant"] in m["phase_s"]
    c = results["compile"]
    # the first call compiled (torch's accounting), kept apart: the steady compiled call is microseconds
    assert c["compile_s"] is not None and c["compile_s"] > 0 and c["steady_s"] < 0.01
    assert c["shape"] == "again"  # a new shape compiled again, and the guard is named
    assert ("size mismatch" if lang == "en" else "守卫条件失败") in text
    if c["lesson"] == "faster":
        assert c["break_even"] is not None and c["break_even"] > 0


def test_single_demo_from_the_cli_with_json(capsys):
    assert main(["demo", "scaling", "--quick", "--lang", "en", "--device", "cpu", "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out[out.index("{"):])
    assert "scaling" in data and "Part 2" in out


def test_language_follows_the_locale(monkeypatch):
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert default_lang() == "zh"
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert default_lang() == "en"
    monkeypatch.setenv("LC_ALL", "zh_TW.UTF-8")
    assert default_lang() == "zh"


def test_bad_demo_arguments():
    with pytest.raises(ValueError, match="lang"):
        run("all", lang="fr", emit=lambda s: None)
    with pytest.raises(ValueError, match="demo"):
        run("everything", lang="en", emit=lambda s: None)


def _comparison(compile_s: float, manual_ns: float, compiled_ns: float, verdict: str):
    """A hand-built comparison of the three GeLUs (the compiled one's compile in its record)."""
    from measurefirst.results.comparison import Comparison, Verdict
    from measurefirst.results.kinds import Compiled, CompileEvent, Measurement, Stop

    def m(label: str, ns: float, compiled=None) -> Measurement:
        return Measurement(label=label, device="cpu", timer="wall", samples_ns=(ns,) * 20, numbers=(1,) * 20,
                           host_ns=None, preempted=None, warmup=None, calibration=None,
                           stop=Stop("precision", True, 0.01, 1.0), compiled=compiled)

    info = Compiled(compile_s + 0.1, (CompileEvent(compile_s, "f", "m.py:1", misses=1, phase="cold call"),))
    ms = (m("manual", manual_ns), m("fused", 60e3), m("compiled", compiled_ns, info))
    r = compiled_ns / manual_ns
    vs = (Verdict("manual", "manual", 1.0, None, "baseline", None, 20, None),
          Verdict("fused", "manual", 60e3 / manual_ns, (0.36, 0.38), "faster", 0.01, 20, None),
          Verdict("compiled", "manual", r, (r * 0.98, r * 1.02), verdict, 0.02, 20, None))
    return Comparison(("manual", "fused", "compiled"), "manual", ms, ((1.0,),) * 3, ((0, 1, 2),), vs,
                      Stop("precision", True, 0.01, 1.0))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_compile_lesson_follows_the_measured_verdict(lang):
    from measurefirst.lecture.demos import compile_lines

    branch, lines = compile_lines(_comparison(3.0, 160e3, 90e3, "faster"), lang)
    assert branch == "faster"
    # 3 s over 70 us saved per call: 42,858 calls
    assert any("42,858" in line for line in lines) and any("3.00" in line for line in lines)
    branch, lines = compile_lines(_comparison(3.0, 160e3, 200e3, "slower"), lang)
    assert branch == "slower"
    text = "\n".join(lines)
    assert ("never pays for itself" if lang == "en" else "永远不会回本") in text and "42,858" not in text
    # a verdict that contradicts its own ratio is never narrated as a speed-up
    branch, _ = compile_lines(_comparison(3.0, 160e3, 200e3, "faster"), lang)
    assert branch == "undecided"
