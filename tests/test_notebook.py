"""Notebooks (issue 37): the ``%mf`` magics in IPython, and the example notebook executed with a real kernel
(nbclient): every output present, HTML from the report's renderers, numbers equal to the JSON's, no
traceback, an interrupted ``%mf`` that keeps what it measured."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from measurefirst.notebook.magics import split_options
from measurefirst.results.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "notebook" / "measurefirst_demo.ipynb"


def test_options_end_where_the_statement_begins_and_the_statement_is_kept_as_written():
    o, s = split_options('-s "x = torch.randn(8)" -s y=1 -b 0.5 -p 1% x @ x')
    assert (o.setup, o.budget, o.precision, s) == (["x = torch.randn(8)", "y=1"], 0.5, 0.01, "x @ x")
    assert split_options('print("it\'s")')[1] == 'print("it\'s")'
    assert split_options("-- -x")[1] == "-x"
    assert split_options("--save=m -o f.json -r x.sum()")[0].save == "m"
    for bad, words in (("-b", "needs a value"), ("-b soon x", "expected a number"), ("-p 5 x", "ambiguous"),
                       ('-s "x = 1 x', "No closing quotation")):
        with pytest.raises(UsageError, match=words):
            split_options(bad)


@pytest.fixture()
def ip():
    IPython = pytest.importorskip("IPython", reason="pip install ipython")
    from IPython.testing.globalipapp import start_ipython

    shell = start_ipython() or IPython.get_ipython()  # one shell per process: started once
    shell.run_line_magic("load_ext", "measurefirst")
    shell.run_cell("calls = [0]\nxs = list(range(100))")
    yield shell


def test_the_magics_read_the_notebook_s_variables_and_leave_them_untouched(ip, capsys):
    ip.run_cell("def f():\n    return sum(xs)")
    m = ip.run_line_magic("mf", "-r -b 0.2 f()")
    assert m.label == "f()" and m.median > 0 and m.complete
    m = ip.run_cell_magic("mf", "-r -b 0.2 ys = xs * 2", "sum(ys)")
    assert m.label == "sum(ys)" and "ys" not in ip.user_ns  # the setup ran in a copy
    assert ip.run_line_magic("mf", "-b 0.2 f()") is None  # displayed, not returned, without -r
    c = ip.run_line_magic("mf", 'compare -r -b 0.4 -l one -l two "sum(xs)" "sum(xs) + 0"')
    assert [v.label for v in c.verdicts] == ["one", "two"]
    capsys.readouterr()


def test_bad_input_and_failing_code_are_one_line_with_no_traceback(ip, capsys, tmp_path):
    for line, words in (("-b nope f()", "expected a number"), ("", "needs a statement"),
                        ("undefined_name + 1", "NameError: name 'undefined_name' is not defined"),
                        ('compare "sum(xs)"', "two statements or more"), ("-s 'raise ValueError(7)' 1", "raised ValueError: 7"),
                        ("-l a -l b sum(xs)", "2 -l/--label for 1 statement"),
                        (f"-o {tmp_path} sum(xs)", "directory")):
        assert ip.run_line_magic("mf", line) is None
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and words in err[0], (line, err)


def test_an_interrupt_keeps_what_was_measured(ip, capsys):
    # the statement interrupts itself, as a Ctrl-C would, at its 500th call: 3 warm-up calls and a cold one
    # before, so the samples before it are kept (fixed counts: -w 3 -t 10000 -n 1)
    ip.run_cell("def slow():\n    calls[0] += 1\n    if calls[0] == 500:\n        raise KeyboardInterrupt\n"
                "    return sum(xs)")
    m = ip.run_line_magic("mf", "-r -w 3 -t 10000 -n 1 slow()")
    assert m is not None and not m.complete and 400 < m.n_samples < 500, m
    capsys.readouterr()


def test_the_example_notebook_runs_with_a_real_kernel(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="pip install nbformat nbclient ipykernel")
    nbclient = pytest.importorskip("nbclient", reason="pip install nbclient ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = {i: cell.get("outputs", []) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"}
    for i, outs in outputs.items():
        for o in outs:
            assert o.output_type != "error", (i, o)
            text = o.get("text", "") + json.dumps(o.get("data", {}))
            assert "Traceback" not in text, (i, text[:500])
    sources = {i: nb.cells[i].source for i in outputs}

    def html(where: str) -> str:
        i = next(k for k, s in sources.items() if s.startswith(where))
        found = [o["data"]["text/html"] for o in outputs[i] if o.output_type in ("display_data", "execute_result")
                 and "text/html" in o.get("data", {})]
        assert found, (where, outputs[i])
        return "".join(found)

    assert 'class="mf-report mf-fragment"' in html("%mf -b 0.5 a @ a")
    assert "b.mul_(2)" in html("%%mf")
    assert "torch.mm(a, a)" in html("%mf compare")
    assert "mf-plot" in html("import measurefirst")  # the sweep's plot, inline SVG
    assert "forward" in html("net = ")  # the step's phases
    shown = html("r = %mf -r")
    data = json.loads((tmp_path / "matmul.json").read_text())
    from measurefirst.results.kinds import Measurement
    from measurefirst.render.text import format_time

    m = Measurement.from_dict(data)
    ci = m.ci
    assert ci is not None
    assert format_time(m.median, (ci[1] - ci[0]) / 2) in shown  # the number shown is the JSON's
    partial = html("partial = %mf")
    assert "incomplete" in partial
    i = next(k for k, s in sources.items() if s.startswith("%mf -b soon"))
    err = "".join(o.get("text", "") for o in outputs[i] if o.output_type == "stream")
    assert re.fullmatch(r"error: %mf: argument -b/--budget: expected a number, got 'soon'\s*", err), err


def test_the_progress_line_is_drawn_in_the_cell_and_emptied_at_the_end(monkeypatch):
    display = pytest.importorskip("IPython.display")
    from measurefirst.measure.progress import showing, report
    from measurefirst.notebook.magics import CellProgress

    drawn: list[str] = []

    class Handle:
        def update(self, data, raw=False):
            drawn.append(data["text/plain"])

    def show(data, raw=False, display_id=False):
        assert raw and display_id
        drawn.append(data["text/plain"])
        return Handle()

    monkeypatch.setattr(display, "display", show)
    with CellProgress("en") as line, showing(line):
        report("bench", "a @ a", 1, 5, elapsed_s=0.0, budget_s=2.0)
        report("bench", "a @ a", 2, 5, elapsed_s=0.5, budget_s=2.0)
    assert drawn[0].startswith("benchmark: a @ a (1 of 5)") and "(2 of 5)" in drawn[1] and drawn[-1] == ""
    drawn.clear()
    with CellProgress("zh") as line, showing(line):
        report("bench", "a @ a", 1, 5, elapsed_s=0.0, budget_s=2.0)
    assert drawn[0].startswith("基准: a @ a") and drawn[-1] == ""
