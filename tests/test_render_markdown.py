"""``measurefirst report --format markdown``: the regression table of a check of saved results, in
Markdown (a pytest run's table is checked end to end by tests/test_ci_recipe.py)."""

from measurefirst.cli.commands import main

SIM = ["bench", "x", "--min-time", "0", "--simulate"]


def test_a_regression_check_as_markdown(tmp_path, capsys):
    assert main(SIM + ["call=10us,timer=50ns", "-o", str(tmp_path / "base.json")]) == 0
    assert main(SIM + ["call=12us,timer=50ns", "-o", str(tmp_path / "new.json")]) == 0
    assert main(["bench", "x", "--min-time", "0", "--simulate", "call=10us,timer=50ns", "--label", "other",
                 "-o", str(tmp_path / "other.json")]) == 0
    assert main(["compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--fail-if-slower", "5%",
                 "-o", str(tmp_path / "check.json")]) == 1
    out = tmp_path / "summary.md"
    assert main(["report", str(tmp_path / "check.json"), str(tmp_path / "other.json"), "--format", "markdown",
                 "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == f"### measurefirst: {tmp_path / 'new.json'} against {tmp_path / 'base.json'}"
    assert lines[2:4] == ["| benchmark | base | new | change | verdict |", "|---|---|---|---|---|"]
    assert lines[4] == "| simulated | 10.01 µs | 12.01 µs | 1.200x (1.200–1.200) | **REGRESSION** |"
    assert "1 other result(s): see the HTML report" in out.read_text()  # a measurement is left to the page
    capsys.readouterr()
    assert main(["report", str(tmp_path / "check.json"), "--format", "markdown", "--lang", "zh", "-o", str(out)]) == 0
    assert "| 基准 | 旧结果 | 新结果 | 变化 | 结论 |" in out.read_text() and "**性能回退**" in out.read_text()
