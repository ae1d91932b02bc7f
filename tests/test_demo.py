"""The lecture demos, live, in --quick mode, in both languages."""

import json

import pytest

from measurefirst.cli import main
from measurefirst.lecture import default_lang, run


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_all_demos_quick(lang):
    lines = []
    results = {r.name: r.data for r in run("all", device="cpu", lang=lang, quick=True, emit=lines.append)}
    text = "\n".join(lines)
    assert list(results) == ["pitfalls", "scaling", "profiler"]
    # structure: a title, three parts in order, the closing motto
    heads = [line for line in lines if line.startswith("#")]
    assert len(heads) == 4
    if lang == "en":
        assert [h.split(".")[0] for h in heads[1:]] == ["## Part 1", "## Part 2", "## Part 3"]
        assert "does not apply on cpu" in text and lines[-1].strip() == "Measure first, then optimize."
    else:
        assert "第一部分" in heads[1] and "第二部分" in heads[2] and "第三部分" in heads[3]
        assert "先测量，再优化" in lines[-1]
    p = results["pitfalls"]
    assert p["cold_s"] > 0 and p["warm_s"] > 0 and p["warmup_calls"] >= 1 and p["unsynced_ratio"] is None
    s = results["scaling"]
    assert [r["n"] for r in s["rows"]] == [32, 64, 128, 256, 512]
    ref = next(r for r in s["rows"] if r["n"] == 256)
    assert ref["relative"] == pytest.approx(1.0) and ref["n3_ratio"] == pytest.approx(1.0)
    assert next(r for r in s["rows"] if r["n"] == 512)["n3_ratio"] == pytest.approx(8.0)
    g = results["profiler"]
    assert g["manual_counts"] == {"aten::mul": 6, "aten::add": 2, "aten::tanh": 1}
    assert g["fused_counts"] == {"aten::gelu": 1}
    assert g["manual_count"] == 9 and g["fused_count"] == 1


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
