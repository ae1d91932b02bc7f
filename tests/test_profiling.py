"""Live CPU profiling: the lecture's GeLU story, views, traces, diffs, ranges, bad input."""

import json
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import measurefirst
from measurefirst.cli.commands import main
from measurefirst.profiling import Profile, ProfileError, profile, profile_compare

X = torch.randn(64 * 1024)


def manual_gelu():
    return 0.5 * X * (1 + torch.tanh(0.7978845608 * (X + 0.044715 * X * X * X)))


def fused_gelu():
    return F.gelu(X, approximate="tanh")


def test_the_lecture_gelu_counts_fall_out_of_the_work_view():
    manual = profile(manual_gelu, device="cpu", steps=2, warmup=1)
    fused = profile(fused_gelu, device="cpu", steps=2, warmup=1)
    assert manual.counts("work") == {"aten::mul": 6, "aten::add": 2, "aten::tanh": 1}
    assert fused.counts("work") == {"aten::gelu": 1}
    assert manual.work_count == 9 and fused.work_count == 1
    # counts of calls are ints, as the README prints them ({'aten::mul': 6}, not 6.0)
    assert all(type(n) is int for n in (*manual.counts("all").values(), manual.work_count))
    # the "all" view still shows the bookkeeping that the work view leaves out
    assert "aten::to" in manual.counts("all") or "aten::_to_copy" in manual.counts("all")
    mul = next(r for r in manual.work if r.name == "aten::mul")
    assert mul.bytes_est >= 6 * X.numel() * 4  # each mul reads and writes the whole tensor
    assert manual.kernels == ()


def test_views_sorting_and_shapes():
    p = profile(manual_gelu, device="cpu", steps=1, warmup=0, group_by_shape=True)
    assert all(r.input_shapes for r in p.rows("all"))
    by_calls = p.rows("work", sort="calls")
    assert by_calls[0].name == "aten::mul"
    assert [r.name for r in p.rows("work", sort="name")] == sorted(r.name for r in p.work)
    assert all(r.top_level for r in p.rows("top"))
    with pytest.raises(ValueError, match="sort"):
        p.rows("work", sort="colour")
    with pytest.raises(ValueError, match="view"):
        p.rows("some")


def test_linear_counts_as_its_matmul():
    lin = torch.nn.Linear(64, 64)
    x = torch.randn(8, 64)
    p = profile(lambda: lin(x), device="cpu", steps=1, warmup=1)
    assert sum(p.counts("work").values()) == 1
    assert list(p.counts("work"))[0] in ("aten::addmm", "aten::mm", "aten::matmul")


def test_trace_is_valid_json_with_events(tmp_path):
    path = tmp_path / "trace.json"
    p = profile(fused_gelu, device="cpu", steps=2, trace=path)
    data = json.loads(path.read_text())
    names = {e.get("name") for e in data["traceEvents"]}
    assert "aten::gelu" in names and p.trace_path == str(path)
    assert not list(tmp_path.glob(".*tmp"))


def test_failing_function_propagates_with_label_and_leaves_no_trace(tmp_path):
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        if calls["n"] > 3:
            raise ZeroDivisionError("boom")
        return X * 2

    path = tmp_path / "t.json"
    with pytest.raises(ProfileError, match=r"'test_failing_function_propagates_with_label_and_leaves_no_trace\.<locals>\.flaky'"
                                           r".*ZeroDivisionError: boom"):
        profile(flaky, device="cpu", steps=3, warmup=1, trace=path)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_unwritable_output_fails_before_profiling(tmp_path):
    called = []
    with pytest.raises(ProfileError, match="does not exist"):
        profile(lambda: called.append(1), device="cpu", trace=tmp_path / "no" / "t.json")
    assert called == []
    with pytest.raises(ProfileError, match="directory"):
        profile(lambda: called.append(1), device="cpu", trace=tmp_path)
    with pytest.raises(TypeError):
        profile(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="steps"):
        profile(fused_gelu, steps=0)


def test_json_round_trip():
    p = profile(manual_gelu, device="cpu", steps=1)
    back = Profile.from_dict(json.loads(p.to_json()))
    assert back == p


def test_profile_compare_shows_what_only_one_side_runs():
    d = profile_compare({"manual": manual_gelu, "fused": fused_gelu}, device="cpu", steps=2)
    assert d.counts() == {"manual": 9, "fused": 1}
    only = {r.name: d.labels[r.only_in()] for r in d.rows if r.only_in() is not None}
    assert only == {"aten::mul": "manual", "aten::add": "manual", "aten::tanh": "manual", "aten::gelu": "fused"}
    text = str(d)
    assert "manual: 9 ops" in text and "fused: 1 ops" in text


def test_range_shows_in_the_profile_and_works_as_a_decorator():
    @measurefirst.range("my-step")
    def step():
        with measurefirst.range("inner"):
            return X + 1

    p = profile(step, device="cpu", steps=1)
    names = p.counts("all")
    assert names.get("my-step") == 1 and names.get("inner") == 1
    assert p.counts("work") == {"aten::add": 1}
    with pytest.raises(ValueError):
        measurefirst.range("")


def test_flops_by_module():
    lin = torch.nn.Linear(32, 16)
    x = torch.randn(4, 32)
    p = profile(lambda: lin(x), device="cpu", steps=1, flops_by_module=True)
    assert p.flops_by_module and max(p.flops_by_module.values()) == 2 * 4 * 32 * 16


def test_profiler_chatter_does_not_reach_stderr():
    code = ("import torch, measurefirst\n"
            "x = torch.randn(1000)\n"
            "measurefirst.profile(lambda: x * 2, device='cpu', steps=1)\n"
            "import sys; print('real error line', file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "USDT" not in proc.stderr and "profiler_start" not in proc.stderr
    assert "real error line" in proc.stderr


def test_cli_profile_and_vs(capsys, tmp_path):
    setup = ["-s", "import torch.nn.functional as F; x = torch.randn(4096)"]
    assert main(["profile", *setup, "0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x * x * x)))",
                 "--vs", "F.gelu(x, approximate='tanh')", "--label", "manual", "--label", "fused",
                 "--steps", "1"]) == 0
    out = capsys.readouterr().out
    assert "manual: 9 ops, fused: 1 ops per step" in out
    assert main(["profile", *setup, "F.gelu(x)", "--json", "--steps", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "profile" and {r["name"] for r in data["work"]} == {"aten::gelu"}
    trace = tmp_path / "t.json"
    assert main(["profile", *setup, "F.gelu(x)", "--trace", str(trace), "--steps", "1"]) == 0
    assert json.loads(trace.read_text())["traceEvents"]
    assert main(["profile", *setup, "1/0"]) == 1
    assert "ZeroDivisionError" in capsys.readouterr().err
    assert main(["profile", "x", "--trace", str(tmp_path / "missing" / "t.json")]) == 2


def test_schedule_is_configurable():
    p = profile(manual_gelu, device="cpu", steps=2, warmup=0, wait=0, profiler_warmup=2)
    assert p.counts("work") == {"aten::mul": 6, "aten::add": 2, "aten::tanh": 1}
    with pytest.raises(ValueError, match="wait"):
        profile(manual_gelu, wait=-1)


def test_the_snapshots_recording_is_stopped_once_whichever_way_the_profile_ends(monkeypatch, tmp_path):
    # review: the recording of CUDA allocations was stopped in three branches and left running on a Ctrl-C
    # before any step ended; now _Files starts it and stops it once (the profile's finally calls stop_recording)
    from measurefirst.profiling.capture import _Files

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(torch.cuda.memory, "_record_memory_history", lambda **kw: calls.append(kw))
    files = _Files(None, tmp_path / "snap.pickle")
    files.stop_recording()  # nothing started: nothing to stop
    files.record_memory()
    files.stop_recording()
    files.stop_recording()
    assert calls == [{"max_entries": 100_000}, {"enabled": None}]
    calls.clear()
    _Files(tmp_path / "trace.json", None).record_memory()  # no snapshot asked: no recording
    assert calls == []
