import json

import pytest

from measurefirst.cli.commands import main


def test_builtin_sweep_cli_json(tmp_path, capsys):
    code = main(["sweep", "--op", "add", "--sizes", "1024,4096,16384,65536", "--budget", "0.3", "--no-peaks",
                 "--json", "--device", "cpu"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "sweep" and [p["n"] for p in data["points"]] == [1024, 4096, 16384, 65536]
    assert all(p["measurement"] for p in data["points"]) and data["points"][0]["flops"] == 1024.0


def test_user_make_fn_with_a_failing_size_and_plot(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    (tmp_path / "mf_sweep_mod.py").write_text(
        "import torch\n"
        "def make(n):\n"
        "    if n == 128:\n"
        "        raise MemoryError('too big for the test')\n"
        "    a = torch.randn(n, n)\n"
        "    return lambda: a @ a\n")
    monkeypatch.chdir(tmp_path)
    code = main(["sweep", "mf_sweep_mod:make", "--sizes", "16,32,...,256", "--flops", "2*n**3", "--budget", "0.3",
                 "--no-peaks", "--plot", str(tmp_path / "t.png"), "--device", "cpu"])
    captured = capsys.readouterr()
    assert code == 0
    assert "failed" in captured.out and "MemoryError: too big for the test" in captured.out
    assert "1 size(s) failed" in captured.err
    assert (tmp_path / "t.png").exists() and (tmp_path / "t-throughput.png").exists()


def test_sweep_bad_input(capsys):
    assert main(["sweep", "--op", "matmul", "--sizes", "64,64"]) == 2
    assert "distinct" in capsys.readouterr().err
    assert main(["sweep", "--op", "add", "--sizes", "64,128", "--flops", "2*q"]) == 2
    assert "'2*q'" in capsys.readouterr().err
    assert main(["sweep"]) == 2
    assert main(["sweep", "--op", "add", "--sizes", "64,128", "--dtype", "float7", "--no-peaks"]) == 2
    assert "float7" in capsys.readouterr().err


def test_peaks_are_measured_then_cached(tmp_path, capsys):
    store = str(tmp_path / "r.db")
    assert main(["peaks", "--device", "cpu", "--json", "--store", store]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["flops_per_s"] > 1e8 and first["bytes_per_s"] > 1e8
    assert main(["peaks", "--device", "cpu", "--json", "--store", store]) == 0
    assert json.loads(capsys.readouterr().out) == first  # from the cache


def test_a_rate_above_a_cached_peak_measures_the_peak_again(tmp_path, capsys, monkeypatch):
    # issue 24 item 1: a rate above its roof makes the sweep measure the peak once more, and say so
    from dataclasses import replace

    from measurefirst.tools import roofline

    low = roofline.Peaks("cpu", "test cpu", "float32", flops_per_s=1.0, bytes_per_s=1.0, matmul_size=64,
                         copy_bytes=2**20, threads=1, host="h", measured_at="2026-11-30T09:12:00+00:00", load=3.1,
                         cpus=2)
    asked = []

    def fake_peaks(device, dtype, *, refresh=False, store=None, budget=1.0):
        asked.append(refresh)
        return replace(low, flops_per_s=1e15, bytes_per_s=1e15) if refresh else low

    monkeypatch.setattr(roofline, "peaks", fake_peaks)
    code = main(["sweep", "--op", "add", "--sizes", "1024,4096,16384,65536", "--budget", "0.2", "--json",
                 "--device", "cpu", "--store", str(tmp_path / "r.db")])
    out = capsys.readouterr()
    assert code == 0 and asked == [False, True] and "measuring the peaks again" in out.err
    assert json.loads(out.out)["peaks"]["flops_per_s"] == 1e15
