"""Group steps (``step --ddp/--fsdp``) in the store (issue 28 part 3): the regression check of two saved runs
per rank and phase with intervals, a new straggler naming the rank, node and phase, the group's throughput, the
history (en, zh) and the report; and a history asked of a name whose runs it does not show. Hand-built
results saved into a temporary store; the command line in-process."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from measurefirst.cli.commands import main  # noqa: E402
from measurefirst.results.group_checks import check_groups, step_measurement
from measurefirst.results.group_history import history_of  # noqa: E402
from measurefirst.distributed.step import GroupStepResult, RankStep  # noqa: E402
from measurefirst.results.regression_checks import RUN_TO_RUN_CV  # noqa: E402
from measurefirst.results.store import Store  # noqa: E402

BACKWARD = 0.020  # seconds: each rank's backward compute in the base run
SLOWER = 1.3  # rank 1's backward in the slowed run


def _rank(r: int, backward: float, wait: float, jitter: int) -> RankStep:
    phases = {"data": 1e-4, "forward": 5e-3, "backward": backward + wait, "optimizer": 1e-3}
    step = sum(phases.values())
    # ten steps within ±0.4% of the median, in an order that differs between runs
    samples = tuple(step * (1 + 0.001 * ((k * 7 + jitter) % 9 - 4)) for k in range(10))
    return RankStep(r, f"node-{'ab'[r]}", 0, r, phases, {"data": 0.0, "forward": 0.0, "backward": wait, "optimizer": 0.0},
                    step, wait, samples, (wait,) * 10, None, 16 / step, 1024 / step, 2e9, None)


def group(slow1: float = 1.0, jitter: int = 0) -> GroupStepResult:
    """Two ranks on two nodes; rank 1's backward ``slow1`` times the base, rank 0 waiting for it."""
    extra = BACKWARD * (slow1 - 1)
    return GroupStepResult("tiny_lm", "ddp", "gloo", "cpu", "fp32", 10, 1, "ddp_comm_hook",
                           (_rank(0, BACKWARD, 0.002 + extra, jitter), _rank(1, BACKWARD * slow1, 0.002, jitter + 3)),
                           mfu_table_peak="none_cpu")


def test_a_slower_backward_on_one_rank_is_a_regression_naming_the_rank_the_phase_and_its_node() -> None:
    r = check_groups(group(), group(SLOWER, jitter=1), gate=True)
    by = {c.label: c for c in r.changes}
    back = by["backward · rank 1"]
    assert back.ratio == pytest.approx(SLOWER) and back.regression and back.run_to_run_source == "assumed"
    assert back.run_to_run == RUN_TO_RUN_CV and back.ci_low > 1
    assert not by["backward · rank 0"].regression  # rank 0 waits longer; its compute did not change
    assert by["forward · rank 1"].ci_low < 1 < by["forward · rank 1"].ci_high
    step0, step1 = by["step · rank 0"], by["step · rank 1"]  # the whole group's step got slower: from samples
    assert step0.regression and step1.regression and step1.run_to_run_sources == ("assumed", "assumed")
    assert step_measurement(group(), 1).n_samples == 10
    codes = {f.code: f for f in r.findings}
    f = codes["new_straggler"]
    assert (f.context["rank"], f.context["phase"], f.context["node"]) == (1, "backward", "node-b/0") and r.failing
    t = codes["group_throughput"]
    assert t.context["unit"] == "tokens" and t.value == pytest.approx(group(SLOWER).tokens_per_s / group().tokens_per_s - 1)
    same = check_groups(group(), group(jitter=1), gate=True)
    assert not same.failing and not any(c.regression for c in same.changes)
    assert [f.code for f in same.findings] == ["group_throughput"]  # no straggler: none new


def test_a_small_change_of_a_short_phase_is_no_regression() -> None:
    base = group()
    slow_data = replace(base.ranks[1], phase_s={**base.ranks[1].phase_s, "data": 2e-4})  # 2x, 0.1 ms of a 28 ms step
    c = next(c for c in check_groups(base, replace(base, ranks=(base.ranks[0], slow_data)), gate=True).changes
             if c.label == "data · rank 1")
    assert c.ratio == pytest.approx(2.0) and c.ci_low > 1 and not c.regression


def _saved(tmp_path: Path, *results: GroupStepResult) -> str:
    db = str(tmp_path / "s.db")
    with Store(db) as st:
        for g in results:
            st.save(g, "lm")
    return db


def test_compare_at_name_fails_the_gate_naming_rank_1_and_backward(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    db = _saved(tmp_path, group(), group(SLOWER, jitter=1))
    assert main(["compare", "@lm", "--store", db, "--fail-if-slower"]) == 1
    out = capsys.readouterr()
    assert "backward · rank 1" in out.out and "REGRESSION" in out.out
    assert "error [new_straggler]: tiny_lm: rank 1 (node-b/0) is a straggler in its backward phase" in out.err
    assert main(["compare", "@lm~1", "@lm~1", "--store", db, "--fail-if-slower"]) == 0
    capsys.readouterr()


def test_history_of_two_saved_group_steps_in_english_and_chinese(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    db = _saved(tmp_path, group(), group(SLOWER, jitter=1))
    assert main(["history", "lm", "--store", db]) == 0
    en = capsys.readouterr().out
    assert "lm: 2 saved runs of training step across ranks" in en
    assert "2 ranks (gloo, ddp) on node-a×1, node-b×1" in en and "stragglers: rank 1 in backward" in en
    assert "#2 against #1:" in en and "backward · rank 1" in en and "[new_straggler]" in en
    assert "the group's throughput went from" in en
    assert main(["history", "lm", "--store", db, "--lang", "zh"]) == 0
    zh = capsys.readouterr().out
    assert "[new_straggler]：tiny_lm：进程 1（node-b/0）在 backward 阶段成了掉队者" in zh and "进程组的吞吐量" in zh
    assert "次保存的多进程训练步运行" in zh


def test_the_report_renders_a_saved_group_step_and_its_history(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    db = _saved(tmp_path, group(), group(SLOWER, jitter=1))
    for lang in ("en", "zh"):
        page = tmp_path / f"r-{lang}.html"
        assert main(["report", "lm", "@lm", "-o", str(page), "--store", db, "--lang", lang]) == 0
        html = page.read_text()
        assert "new_straggler" in html and "backward · rank 1" in html and "node-b" in html
    capsys.readouterr()


def test_history_of_a_name_whose_runs_it_does_not_show_says_what_they_are_and_what_works(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import report_kinds as rk

    db = str(tmp_path / "s.db")
    with Store(db) as st:
        st.save(rk.regression(), "one")
    assert main(["history", "one", "--store", db]) == 2
    err = capsys.readouterr().err
    assert "no runs named" not in err and "1 run named 'one'" in err
    assert "is regression, which a history does not show" in err and "report @one" in err and "runs list one" in err
    with Store(db) as st, pytest.raises(ValueError, match="which a history does not show"):
        history_of(st, "one")
    assert main(["history", "nope", "--store", db]) == 2
    assert "no runs named 'nope'" in capsys.readouterr().err


def test_the_spread_of_phases_is_measured_from_eight_saved_runs(tmp_path: Path) -> None:
    from measurefirst.results.loading import check_saved

    def shifted(f: float) -> GroupStepResult:  # every phase and step of every rank f times the base
        g = group(jitter=1)
        return replace(g, ranks=tuple(replace(r, phase_s={p: x * f for p, x in r.phase_s.items()},
                                              wait_phase_s={p: x * f for p, x in r.wait_phase_s.items()},
                                              step_s=r.step_s * f, wait_s=r.wait_s * f,
                                              step_samples_s=tuple(x * f for x in r.step_samples_s))
                                      for r in g.ranks))

    db = _saved(tmp_path, *(shifted(1 + 0.01 * (k % 3 - 1)) for k in range(8)), group(SLOWER))
    r = check_saved(["@lm"], store=db, gate=True)
    back = next(c for c in r.changes if c.label == "backward · rank 1")
    assert back.run_to_run_source == "history" and 0 < back.run_to_run < 0.05 and back.regression and r.failing
