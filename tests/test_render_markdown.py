"""``measurefirst report --format markdown``: the regression table of a check of saved results, in
Markdown (a pytest run's table is checked end to end by tests/test_ci_recipe.py)."""

import pytest

from measurefirst.cli.commands import main
from measurefirst.render.markdown import md_text

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
    assert lines[0] == f"### measurefirst: {md_text(tmp_path / 'new.json')} against {md_text(tmp_path / 'base.json')}"
    assert lines[2:4] == ["| benchmark | base | new | change | verdict |", "|---|---|---|---|---|"]
    assert lines[4] == "| simulated | 10.01 µs | 12.01 µs | 1.200x (1.200–1.200) | **REGRESSION** |"
    assert "1 other result(s): see the HTML report" in out.read_text()  # a measurement is left to the page
    capsys.readouterr()
    assert main(["report", str(tmp_path / "check.json"), "--format", "markdown", "--lang", "zh", "-o", str(out)]) == 0
    assert "| 基准 | 旧结果 | 新结果 | 变化 | 结论 |" in out.read_text() and "**性能回退**" in out.read_text()


EVIL = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "a onmouseover=alert(1) b",
        "[click](javascript:alert(1))", "![t](https://tracker.example/p.png)", "<!-- the rest is hidden",
        "x\n# all tests passed", "x\n| injected | row |", "\x1b[31mred\x1b[0m", "*bold* _it_ `code`"]


@pytest.mark.parametrize("label", EVIL)
def test_labels_in_markdown_carry_no_html_link_image_or_line_of_their_own(label, tmp_path, capsys):
    # issue 38: the CI recipe writes this Markdown into the job summary, which GitHub renders
    base, new = tmp_path / "b.json", tmp_path / "n.json"
    for path, call in ((base, "10us"), (new, "12us")):
        assert main(SIM + [f"call={call},timer=50ns", "--label", label, "-o", str(path)]) == 0
    assert main(["compare", str(base), str(new), "-o", str(tmp_path / "c.json")]) == 0
    out = tmp_path / "s.md"
    assert main(["report", str(tmp_path / "c.json"), "--format", "markdown", "-o", str(out)]) == 0
    assert main(["bench", "x", "--min-time", "0", "--simulate", "call=10us,timer=50ns", "--label", label,
                 "--save", "--store", str(tmp_path / "r.db")]) == 0
    capsys.readouterr()
    assert main(["runs", "export", "1", "--format", "markdown", "--store", str(tmp_path / "r.db")]) == 0
    for text in (out.read_text(), capsys.readouterr().out):
        _inert(text)


def _inert(text: str) -> None:
    """No HTML, no escape sequence, no link or image syntax measurefirst did not write (its own are the
    ratio's interval and the verdict's bold), and no line that a label started."""
    import re

    assert "<" not in text and ">" not in text and "\x1b" not in text
    ours = re.sub(r"\d[\d.]*x \([\d.]+–[\d.]+\)", "", text).replace("**", "")
    assert not re.search(r"(?<!\\)[\[\]()!`]", ours), text
    for line in text.splitlines():
        assert not line.startswith(("# ", "| injected")), text


def test_labels_and_titles_in_the_html_report_carry_no_raw_control_bytes(tmp_path):
    # issue 38's second probe: `report -o r.html` kept a label's ESC and BEL bytes (text, chart ticks, findings);
    # a terminal that shows the file (cat, less -r, a CI log) obeys them
    label = "a\x1b[2J\x1b]0;pwned\x07\u202eb"
    for i, call in enumerate(("10us", "12us")):
        assert main(SIM + [f"call={call},timer=50ns", "--label", label + str(i), "-o", str(tmp_path / f"{i}.json")]) == 0
    assert main(["compare", str(tmp_path / "0.json"), str(tmp_path / "1.json"), "-o", str(tmp_path / "c.json")]) == 0
    page = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "0.json"), str(tmp_path / "c.json"), "--title", label, "-o", str(page)]) == 0
    text = page.read_text()
    assert not any(ch in text for ch in "\x1b\x07\u202e")
    assert "a\\x1b[2J\\x1b]0;pwned\\x07\\u202eb" in text  # shown as visible escapes, as the terminal shows them
