"""Model steps on the CPU with small models: phases, warm-up, FLOPs, throughput arithmetic, peaks."""

import json
import statistics
import sys
from pathlib import Path

import pytest
import torch

from measurefirst.cli.commands import main
from measurefirst.tools.step import DENSE_PEAKS, StepError, benchmark_step, compare_steps, dense_peak

sys.path.insert(0, str(Path(__file__).parent.parent / "examples"))
import tiny_lm  # noqa: E402


def linear_parts(batch=16, d_in=64, d_out=32, n=8):
    torch.manual_seed(0)
    model = torch.nn.Linear(d_in, d_out, bias=False)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = [(torch.randn(batch, d_in), torch.randn(batch, d_out)) for _ in range(n)]
    loss = lambda m, b: torch.nn.functional.mse_loss(m(b[0]), b[1])  # noqa: E731
    return model, opt, data, loss


def test_phases_sum_to_the_step_and_warmup_is_excluded():
    parts = tiny_lm.build()
    r = benchmark_step(parts["model"], parts["optimizer"], parts["batches"], device="cpu", steps=6, warmup=2,
                       micro_batch=8, seq_len=64)
    assert set(r.phase_s) == {"data", "forward", "backward", "optimizer"}
    assert len(r.step_samples_s) == 6 and len(r.warmup_step_s) == 2
    assert all(v > 0 for v in r.phase_s.values())  # exact phase arithmetic: tests/test_simgpu.py
    assert r.phase_s["backward"] > r.phase_s["data"]
    assert r.memory is None and r.peak_phase is None  # CPU: no per-phase device memory


def test_flops_of_a_known_model_match_the_closed_form():
    model, opt, data, loss = linear_parts(batch=16, d_in=64, d_out=32)
    r = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=2, warmup=1)
    # forward 2·B·I·O; backward: grad of the weight only (inputs need no grad) 2·B·I·O
    assert r.flops_per_step == 2 * 16 * 64 * 32 * 2
    assert r.flops_source == "counted"
    r6 = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=2, warmup=1, flops_per_step="6N",
                        micro_batch=16, seq_len=1)
    assert r6.flops_per_step == 6 * 64 * 32 * 16 and r6.flops_source == "6n"


def test_tokens_per_second_arithmetic_with_accumulation_and_world_size():
    model, opt, data, loss = linear_parts(batch=16)
    r = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=3, warmup=1, grad_accum=4,
                       world_size=8, seq_len=128, micro_batch=16)
    tp = r.throughput
    assert tp.samples_per_s_device == pytest.approx(16 * 4 / r.step_s)
    assert tp.tokens_per_s_device == pytest.approx(16 * 4 * 128 / r.step_s)
    assert tp.tokens_per_s_global == pytest.approx(tp.tokens_per_s_device * 8)
    no_seq = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=2, warmup=1)
    assert no_seq.throughput.tokens_per_s_device is None and no_seq.throughput.note == "no_seq_len"
    assert no_seq.throughput.micro_batch == 16  # from the batches themselves


def test_mfu_above_100_percent_against_a_measured_peak_is_a_warning_and_batch_mismatch_a_warning():
    # issue 24 item 2: a measured (cached) peak can be wrong; the run is not failed for the cache's mistake
    model, opt, data, loss = linear_parts()
    r = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=2, warmup=1, flops_per_step=1e15,
                       measured_peak=1e9, micro_batch=32)
    codes = {f.code: f.severity for f in r.findings}
    assert codes["mfu_above_100"] == "warning" and codes["batch_mismatch"] == "warning"
    assert r.mfu_measured == pytest.approx(1e15 / r.step_s / 1e9)


def test_only_a_datasheet_peak_makes_mfu_above_100_an_error():
    from measurefirst.tools.step import _findings

    out = _findings({}, [], 0, None, None, 1.7, 1.9, set(), None, [], False, None)
    assert {f.context["peak"]: f.severity for f in out if f.code == "mfu_above_100"} == {
        "table": "error", "measured": "warning"}


def test_a_stale_cached_peak_is_named_as_the_wrong_ceiling_with_how_it_was_measured():
    from measurefirst.render.findings import finding_line
    from measurefirst.tools.roofline import Peaks

    stale = Peaks("cpu", "test cpu", "float32", flops_per_s=35.3e9, bytes_per_s=10e9, matmul_size=512,
                  copy_bytes=64 << 20, threads=2, host="test", measured_at="2026-11-30T09:12:00+00:00", load=3.1,
                  cpus=2)
    model, opt, data, loss = linear_parts()
    r = benchmark_step(model, opt, data, loss_fn=loss, device="cpu", steps=2, warmup=1, flops_per_step=1e15,
                       measured_peak=stale)
    assert r.mfu_measured_peak == 35.3e9 and r.mfu_measured > 1
    f = next(f for f in r.findings if f.code == "mfu_above_100")
    assert f.severity == "warning" and f.value == pytest.approx(r.mfu_measured) and f.threshold == 1.0
    assert f.context["load"] == 3.1 and f.context["cpus"] == 2 and f.context["threads"] == 2
    line = finding_line(f)
    assert line.startswith("warning [mfu_above_100]") and "35.3 GFLOP/s" in line and "load 3.10 on 2 CPUs" in line
    assert "2026-11-30T09:12:00+00:00" in line and "wrong ceiling" in line
    assert not any(x.severity == "error" for x in r.findings)


def test_table_vs_verdict_cites_no_interval_the_undecided_verdict_did_not_produce():
    # issue 24 item 5: "eager/bf16: undecided: 37 round(s)" next to "far from the interleaved verdict (4.92x–5.95x)"
    from measurefirst.tools.compare import Verdict
    from measurefirst.render.findings import finding_line
    from measurefirst.tools.step import _check_table_against_verdicts
    from test_snapshots import step_result

    base, slow = step_result("eager/fp32", 1e-3), step_result("eager/bf16", 30e-3)

    class Undecided:
        def verdict(self, label):
            return Verdict(label, "eager/fp32", 0.9, None, "undecided", None, 37)

    class Decided:
        def verdict(self, label):
            return Verdict(label, "eager/fp32", 0.9, (0.85, 0.95), "faster", 0.05, 400)

    undecided = _check_table_against_verdicts([base, slow], ["eager/fp32", "eager/bf16"], Undecided())[1]
    f = next(f for f in undecided.findings if f.code == "table_contradicts_verdict")
    assert "ci_low" not in f.context and f.context["rounds"] == 37
    line = finding_line(f)
    assert "undecided (37 rounds" in line and "x–" not in line
    decided = _check_table_against_verdicts([base, slow], ["eager/fp32", "eager/bf16"], Decided())[1]
    f = next(f for f in decided.findings if f.code == "table_contradicts_verdict")
    assert (f.context["ci_low"], f.context["ci_high"]) == (0.85, 0.95) and "(0.85x–0.95x)" in finding_line(f)
    close = _check_table_against_verdicts([base, step_result("eager/bf16", 0.9e-3)], ["eager/fp32", "eager/bf16"],
                                          Undecided())[1]
    assert not any(f.code == "table_contradicts_verdict" for f in close.findings)


def test_the_peak_table_is_dense_only():
    assert dense_peak("NVIDIA H100 80GB HBM3", "bf16") == ("H100 SXM", 989.4e12)  # sparse would be 1979
    assert dense_peak("NVIDIA H100 PCIe", "bf16") == ("H100 PCIe", 756e12)
    assert dense_peak("NVIDIA A100-SXM4-80GB", "bf16") == ("A100", 312e12)  # sparse 624
    assert dense_peak("NVIDIA A100-SXM4-80GB", "tf32") == ("A100", 156e12)  # sparse 312
    assert dense_peak("NVIDIA H200", "fp8") == ("H200", 1978.9e12)  # sparse 3958
    assert dense_peak("NVIDIA L4", "bf16") == ("L4", 121e12)  # sparse 242
    assert dense_peak("NVIDIA GeForce RTX 4090", "bf16") == ("RTX 4090", 165.2e12)
    assert dense_peak("NVIDIA Mystery 9000", "bf16") is None
    assert dense_peak("Tesla V100-SXM2-16GB", "fp8") is None
    sparse = {1979e12, 1978.9e12 * 2, 624e12, 312e12 * 2, 4500e12 * 2, 242e12, 484e12}
    for _, _, peaks in DENSE_PEAKS:
        for dt, v in peaks.items():
            if dt in ("bf16", "fp16") and v in sparse:
                pytest.fail(f"sparse figure {v} in the table")


def test_compile_variant_reports_compile_time_apart():
    def build():
        model, opt, data, loss = linear_parts()
        return {"model": model, "optimizer": opt, "batches": data, "loss_fn": loss}

    sc = compare_steps(build, variants=["eager", "compile:aot_eager"], device="cpu", steps=4, warmup=2,
                       compare_budget=1.0)
    eager, compiled = sc.steps
    comparison = sc.comparison
    assert eager.compile_s is None and eager.variant == "eager"
    assert compiled.variant == "compile(aot_eager)" and compiled.compile_s is not None
    assert compiled.warmup_step_s[0] > compiled.step_s  # compilation stayed in warm-up
    assert any(f.code == "compile_time" for f in compiled.findings)
    # on the real clock the verdict depends on the host; it must follow from its own interval (the exact
    # verdict of compare_steps: tests/test_simgpu.py::test_compare_steps_verdict_is_exact)
    v = comparison.verdict("compile:aot_eager/fp32")
    ci = v.ratio_ci
    assert v.verdict == ("undecided" if ci is None else "faster" if ci[1] < 1 else "slower" if ci[0] > 1
                         else "no difference")


def test_a_phase_that_raises_says_which_phase_and_step():
    model, opt, data, _ = linear_parts()
    calls = {"n": 0}

    def bad_loss(m, b):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("nan in the loss")
        return torch.nn.functional.mse_loss(m(b[0]), b[1])

    with pytest.raises(StepError, match="forward phase raised at step 2") as info:
        benchmark_step(model, opt, data, loss_fn=bad_loss, device="cpu", steps=3, warmup=1)
    assert info.value.phase == "forward" and info.value.step == 2


def test_bad_build_contract():
    with pytest.raises(StepError, match="build\\(\\) must return"):
        compare_steps(lambda: {"model": torch.nn.Linear(2, 2)}, device="cpu")
    with pytest.raises(StepError, match="not a torch.nn.Module"):
        benchmark_step("model", torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=1), [1])


def test_cli_step_json(capsys):
    # --dtype float32 is --dtypes fp32: one vocabulary of dtypes and both option spellings
    code = main(["step", "examples/tiny_lm.py:build", "--steps", "3", "--warmup", "1", "--no-peaks", "--json",
                 "--dtype", "float32"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    step = data["steps"][0]
    assert (step["label"], step["dtype"]) == ("eager/fp32", "fp32")
    assert step["throughput"]["seq_len"] == 64 and step["throughput"]["tokens_per_s_device"] > 0
    assert main(["step", "examples/tiny_lm.py:batches", "--no-peaks"]) == 2
    assert "build() must return" in capsys.readouterr().err


def _ranged_step(fail_at=None):
    import measurefirst

    model, opt, data, loss_fn = linear_parts(batch=64, d_in=256, d_out=256)
    calls = {"n": 0}

    def step():
        calls["n"] += 1
        with measurefirst.range("data"):
            b = data[calls["n"] % len(data)]
        with measurefirst.range("forward"):
            if calls["n"] == fail_at:
                raise ValueError("bad batch")
            loss = loss_fn(model, b)
        with measurefirst.range("backward"):
            loss.backward()
        with measurefirst.range("optimizer"):
            opt.step()
            opt.zero_grad()

    return step


def test_single_step_callable_timed_by_its_ranges():
    from measurefirst.tools.step import benchmark_ranged_step

    r = benchmark_ranged_step(_ranged_step(), device="cpu", steps=8, warmup=2)
    assert list(r.phase_s) == ["data", "forward", "backward", "optimizer"]
    assert len(r.step_samples_s) == 8 and len(r.warmup_step_s) == 2
    assert all(v > 0 for v in r.phase_s.values())  # exact values: tests/test_simgpu.py
    assert r.step_s == statistics.median(r.step_samples_s) and r.label == "_ranged_step.<locals>.step"
    assert "phases: data" in str(r)


def test_ranged_step_errors_name_the_range():
    from measurefirst.tools.step import benchmark_ranged_step

    with pytest.raises(StepError, match="inside range 'forward'") as info:
        benchmark_ranged_step(_ranged_step(fail_at=3), device="cpu", steps=3, warmup=1)
    assert info.value.phase == "forward" and info.value.step == 2
    with pytest.raises(StepError, match="no measurefirst.range"):
        benchmark_ranged_step(lambda: None, device="cpu", steps=1, warmup=0)


def test_cli_step_above_a_stale_cached_peak_measures_it_again_and_does_not_fail(capsys, monkeypatch, tmp_path):
    # `measurefirst step examples.tiny_lm:build` exited 1: "error [mfu_above_100] ... 190.7% of 35.3 GFLOP/s"
    from dataclasses import replace

    from measurefirst.tools import roofline

    stale = roofline.Peaks("cpu", "test cpu", "float32", flops_per_s=1.0, bytes_per_s=1.0, matmul_size=64,
                           copy_bytes=2**20, threads=1, host="h", measured_at="2026-11-30T09:12:00+00:00", load=3.1,
                           cpus=2)
    asked = []

    def fake_peaks(device, dtype, *, refresh=False, store=None, budget=1.0):
        asked.append(refresh)
        return replace(stale, flops_per_s=1e18, load=0.1) if refresh else stale

    monkeypatch.setattr(roofline, "peaks", fake_peaks)
    code = main(["step", "examples/tiny_lm.py:build", "--steps", "3", "--warmup", "1", "--json", "--dtype", "fp32",
                 "--store", str(tmp_path / "r.db")])
    out = capsys.readouterr()
    assert code == 0 and asked == [False, True] and "measuring the peaks again" in out.err
    step = json.loads(out.out)["steps"][0]
    assert step["mfu_measured_peak"] == 1e18 and step["mfu_measured"] < 1
    assert not [f for f in step["findings"] if f["code"] == "mfu_above_100"]


def test_a_peak_measured_again_replaces_the_mfu_and_its_finding():
    from measurefirst.tools.roofline import Peaks
    from measurefirst.tools.step import with_measured_peak
    from test_snapshots import step_result

    low = Peaks("cpu", "test cpu", "float32", flops_per_s=1e9, bytes_per_s=1e9, matmul_size=64, copy_bytes=2**20,
                threads=2, host="h", measured_at="2026-12-01T22:00:00+00:00", load=0.2, cpus=2)
    r = with_measured_peak(step_result("eager/bf16", 1e-3), low)  # 3e10 FLOPs in 1.8 ms: 16.7 TFLOP/s of 1 GFLOP/s
    f = [f for f in r.findings if f.code == "mfu_above_100"]
    assert len(f) == 1 and f[0].severity == "warning" and f[0].value == pytest.approx(r.mfu_measured)
    assert f[0].context["peak_flops"] == 1e9 and f[0].context["load"] == 0.2
    ok = with_measured_peak(r, replace_flops(low, 1e15))
    assert ok.mfu_measured == pytest.approx(3e10 / ok.step_s / 1e15) and not any(
        f.code == "mfu_above_100" for f in ok.findings)


def replace_flops(p, flops):
    from dataclasses import replace

    return replace(p, flops_per_s=flops)
