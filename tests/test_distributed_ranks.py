"""Many ranks beyond one process (issue 28 parts 2-3, issue 27 part 6): compare and bench on every rank with
one verdict for the group, results of many ranks in the store (regression checks: a busbw drop, a new
straggler; histories; the report), and ``collectives`` with the options every command has. Hand-built
results where the arithmetic is the point; one spawned 2-rank gloo group and one torchrun launch."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_snapshots import comparison, measurement  # noqa: E402  (hand-built results)

from measurefirst.cli.commands import main  # noqa: E402
from measurefirst.tools.compare import Verdict  # noqa: E402
from measurefirst.distributed import CollectivePoint, CollectivesResult, GroupSummary, RankResult  # noqa: E402
from measurefirst.distributed.ranked import DISAGREE, RankComparison, group_verdict  # noqa: E402
from measurefirst.results.group_checks import COLLECTIVES_THRESHOLD, check_groups  # noqa: E402
from measurefirst.results.store import Store, to_save  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NODES = ({"host": "node-a", "local_rank": 0}, {"host": "node-b", "local_rank": 0})


def verdict(v: str, ratio: float, ci: tuple[float, float] | None) -> Verdict:
    return Verdict("fused", "manual", ratio, ci, v, None if ci is None else 0.01, 40)


def collectives_result(slower_64k: float = 1.0) -> CollectivesResult:
    """Two ranks on two nodes; all_reduce of 64 KiB ``slower_64k`` times slower than 400 us."""
    t = 400e-6 * slower_64k
    return CollectivesResult(2, "gloo", "cpu", (
        CollectivePoint("all_reduce", 1024, 256, "float32", 100e-6, (100e-6, 90e-6), 20),
        CollectivePoint("all_reduce", 65536, 16384, "float32", t, (t, t * 0.9), 20),
        CollectivePoint("all_gather", 65536, 16384, "float32", 500e-6, (500e-6, 450e-6), 20)),
        env={"nodes": list(NODES)})


def rank_group(*medians_ns: float) -> RankResult:
    ms = tuple(measurement("matmul", x) for x in medians_ns)
    return RankResult(0, ms[0], ms, GroupSummary(tuple(m.median for m in ms)), "gloo", NODES)


# ---- one verdict for the group ---------------------------------------------------------------------------
def test_the_group_verdict_is_the_ranks_common_verdict_else_they_disagree() -> None:
    agree = group_verdict([verdict("faster", 0.5, (0.48, 0.52)), verdict("faster", 0.6, (0.57, 0.63))])
    assert (agree.verdict, agree.ratio, agree.ratio_ci, agree.disagree) == ("faster", 0.55, (0.48, 0.63), False)
    split = group_verdict([verdict("undecided", 0.9, None), verdict("faster", 0.5, (0.48, 0.52))])
    assert split.verdict == DISAGREE and split.ratio_ci is None and split.ratio == pytest.approx(0.7)
    assert split.split == "0: undecided · 1: faster"


def test_a_rank_comparison_names_the_ranks_that_disagree_in_both_languages_and_loads_back() -> None:
    from measurefirst.render.report import report
    from measurefirst.render.views import Options, view

    mine = comparison()
    theirs = replace(mine, verdicts=tuple(replace(v, verdict="undecided", ratio_ci=None) if v.label == "fused" else v
                                          for v in mine.verdicts),
                     measurements=(mine.measurements[0], measurement("fused", 31_000.0, spread=0.5),
                                   mine.measurements[2]))
    r = RankComparison(0, (mine, theirs), "gloo", NODES)
    fused = r.verdicts[0]
    assert fused.label == "fused" and fused.disagree and fused.split == "0: faster · 1: undecided"
    assert [(f.code, f.context["label"], f.context["split"]) for f in r.findings if f.code == "ranks_disagree"] == [
        ("ranks_disagree", "fused", "0: faster · 1: undecided")]
    assert r.verdicts[1].verdict == mine.verdict("same").verdict  # both ranks agree on "same"
    en = "\n".join(view([r], Options(lang="en")))
    assert "fused vs manual: the ranks disagree" in en and "rank 1 on node-b/0: undecided" in en
    assert "[ranks_disagree]: fused: the ranks reach 2 different verdicts (0: faster · 1: undecided)" in en
    rank0, rank1 = en.split("rank 0 on node-a/0:\n")[1].split("rank 1 on node-b/0:\n")  # each rank's findings
    assert "[unstable]" in rank1 and "[unstable]" not in rank0
    assert "各进程结论不一致" in "\n".join(view([r], Options(lang="zh")))
    again = RankComparison.from_dict(json.loads(r.to_json()))
    assert again.verdicts == r.verdicts and again.nodes == NODES and again.backend == "gloo"
    html = report([r], lang="zh")
    assert "node-b/0" in html and "各进程结论不一致" in html


def test_results_of_many_ranks_are_saved_whole() -> None:
    g = rank_group(100_000.0, 100_000.0)
    kept, names, empty = to_save([g], "mm")
    assert kept == [g] and names == ["mm"] and empty == []


# ---- regression checks and histories -------------------------------------------------------------------
def test_a_busbw_drop_fails_the_check_naming_the_op_and_size() -> None:
    r = check_groups(collectives_result(), collectives_result(2.0), gate=True)
    assert [c.label for c in r.changes if c.regression] == ["all_reduce 64K"]
    assert r.failing and r.changes[0].threshold == COLLECTIVES_THRESHOLD
    (drop,) = r.findings
    assert (drop.code, drop.context["label"], drop.context["size"]) == ("busbw_drop", "all_reduce", "64K")
    assert drop.value == pytest.approx(0.5)
    same = check_groups(collectives_result(), collectives_result(1.01), gate=True)
    assert not same.failing and same.findings == ()  # 1% is within the threshold and the interval
    with pytest.raises(ValueError, match="same world size"):
        check_groups(collectives_result(), replace(collectives_result(), world_size=4))


def test_the_spread_of_a_collectives_check_is_measured_from_eight_saved_runs(tmp_path: Path) -> None:
    from measurefirst.results.loading import check_saved

    db = tmp_path / "s.db"
    with Store(db) as st:
        for k in range(9):  # ±1% from run to run, then the last run 30% slower at 64K
            st.save(collectives_result(1.3 if k == 8 else 1 + 0.01 * (k % 3 - 1)), "coll")
    r = check_saved(["@coll"], store=db, gate=True)
    c = next(c for c in r.changes if c.label == "all_reduce 64K")
    assert c.run_to_run_source == "history" and 0 < c.run_to_run < 0.05 and r.failing
    assert check_saved(["@coll"], store=db, run_to_run=0.05).changes[0].run_to_run_source == "given"


def test_a_new_straggler_fails_the_check_naming_the_rank_and_its_node() -> None:
    even, slow1 = rank_group(100_000.0, 101_000.0), rank_group(100_000.0, 150_000.0)
    r = check_groups(even, slow1, gate=True)
    assert [c.label for c in r.changes] == ["matmul · rank 0", "matmul · rank 1"]
    (f,) = r.findings
    assert (f.code, f.context["rank"], f.context["node"]) == ("new_straggler", 1, "node-b/0") and r.failing
    assert check_groups(slow1, slow1).findings == ()  # the same straggler is no news
    slow0 = rank_group(150_000.0, 100_000.0)
    assert check_groups(slow0, slow1).findings[0].context["before_rank"] == 0


def _collectives_cli(monkeypatch: pytest.MonkeyPatch, result: CollectivesResult, *args: str) -> int:
    """``measurefirst collectives --nproc 2 ...`` with the spawned group's answer given."""
    import measurefirst.distributed.launch as launch

    monkeypatch.setattr(launch, "spawn", lambda task, n, task_args, timeout_seconds: [result.to_dict()])
    return main(["collectives", "--nproc", "2", "--sizes", "1K,64K", *args])


def test_collectives_saved_twice_then_checked_shown_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db, out = str(tmp_path / "s.db"), tmp_path / "coll.json"
    assert _collectives_cli(monkeypatch, collectives_result(), "--save", "coll", "--store", db, "--lang", "zh",
                            "-o", str(out), "--budget", "30") == 0
    first = capsys.readouterr()
    assert "个进程上的集合通信" in first.out and "#1 coll" in first.err
    assert json.loads(out.read_text())["kind"] == "collectives"
    assert _collectives_cli(monkeypatch, collectives_result(2.0), "--save", "coll", "--store", db, "--json") == 0
    assert json.loads(capsys.readouterr().out)["world_size"] == 2
    with Store(db) as st:
        assert [r.kind for r in st.list("coll")] == ["collectives", "collectives"]
    assert main(["compare", "@coll", "--store", db, "--fail-if-slower"]) == 1
    check = capsys.readouterr()
    assert "error [busbw_drop]: all_reduce at 64K: bus bandwidth fell 50%" in check.err
    assert "REGRESSION" in check.out
    assert main(["compare", "@coll~1", "@coll~1", "--store", db, "--fail-if-slower"]) == 0
    capsys.readouterr()
    assert main(["history", "coll", "--store", db]) == 0
    en = capsys.readouterr().out
    assert "coll: 2 saved runs of collectives" in en and "2 ranks (gloo) on node-a×1, node-b×1" in en
    assert "#2 against #1:" in en and "all_reduce 64K" in en and "[busbw_drop]" in en
    assert main(["history", "coll", "--store", db, "--lang", "zh"]) == 0
    assert "总线带宽下降" in capsys.readouterr().out
    page = tmp_path / "r.html"
    assert main(["report", "coll", "@coll", "-o", str(page), "--store", db, "--lang", "zh"]) == 0
    html = page.read_text()
    assert "busbw_drop" in html and "all_reduce 64K" in html and "node-a×1" in html


def test_compare_at_name_of_rank_groups_flags_a_new_straggler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.db")
    with Store(db) as st:
        st.save(rank_group(100_000.0, 101_000.0), "mm")
        st.save(rank_group(100_000.0, 150_000.0), "mm")
    assert main(["compare", "@mm", "--store", db, "--fail-if-slower", "5%"]) == 1
    err = capsys.readouterr().err
    assert "error [new_straggler]: matmul: rank 1 (node-b/0) is a straggler" in err
    assert main(["history", "mm", "--store", db]) == 0
    text = capsys.readouterr().out
    assert "spread 40.0%, straggler rank 1" in text and "[new_straggler]" in text


def test_collectives_refuses_a_bad_budget_and_output_before_measuring(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["collectives", "--nproc", "2", "--budget", "0"]) == 2
    assert "--budget" in capsys.readouterr().err
    assert main(["collectives", "--nproc", "2", "-o", str(tmp_path)]) == 2  # a directory
    assert "output" in capsys.readouterr().err


def test_under_torchrun_bench_and_live_compare_run_on_every_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    from measurefirst.cli.parser import build_parser
    from measurefirst.cli import distributed as dcli
    from measurefirst.results.errors import UsageError

    parser = build_parser("0")
    bench = parser.parse_args(["bench", "x.sum()", "--count", "instructions"])
    live, saved = parser.parse_args(["compare", "a()", "b()"]), parser.parse_args(["compare", "@mm"])
    assert dcli.ranked(bench) is None and dcli.ranked(parser.parse_args(["collectives"])) is None  # not under torchrun
    for key, value in {"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}.items():
        monkeypatch.setenv(key, value)
    assert dcli.ranked(bench) is dcli.cmd_bench_ranks and dcli.ranked(live) is dcli.cmd_compare_ranks
    assert dcli.ranked(saved) is None  # a check of saved runs is the same on any rank
    with pytest.raises(UsageError, match="--count is not available"):
        dcli.cmd_bench_ranks(bench)


# ---- a 2-rank gloo group ---------------------------------------------------------------------------
def test_two_ranks_compare_disagree_bench_names_the_straggler_and_a_spent_budget_stops() -> None:
    from measurefirst.distributed import spawn

    import distributed_tasks

    out = spawn(distributed_tasks.ranked_task, 2, timeout_seconds=30.0)[0]
    c = RankComparison.from_dict(out["comparison"])
    (b,) = c.verdicts
    assert [v.verdict for v in b.per_rank] == ["faster", "slower"] and b.verdict == DISAGREE
    assert any(f.code == "ranks_disagree" and f.context["split"] == "0: faster · 1: slower" for f in c.findings)
    host = socket.gethostname()
    assert c.world_size == 2 and c.backend == "gloo" and c.nodes == ({"host": host, "local_rank": 0},
                                                                     {"host": host, "local_rank": 1})
    g = RankResult.from_dict(out["group"])
    assert g.summary.straggler == 1 and g.backend == "gloo" and g.nodes[1]["local_rank"] == 1
    spent = CollectivesResult.from_dict(out["spent"])
    assert spent.points == () and spent.env["skipped"] == 2 and not spent.complete


def test_compare_under_torchrun_prints_one_group_verdict_and_saves_it(tmp_path: Path) -> None:
    script = tmp_path / "cands.py"
    script.write_text("import os, time\nSLOW = 0.004 if os.environ['RANK'] == '1' else 0.001\n"
                      "def a():\n    time.sleep(0.002)\n\ndef b():\n    time.sleep(SLOW)\n")
    db = tmp_path / "s.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "-m", "measurefirst", "compare",
           f"{script}:a", f"{script}:b", "--label", "a", "--label", "b", "--budget", "1.5", "--min-time", "0.3",
           "--save", "ab", "--store", str(db), "--lang", "en"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.count("compare on 2 ranks (gloo)") == 1  # rank 0 alone prints
    assert "b vs a: the ranks disagree" in p.stdout and "rank 1 on" in p.stdout
    with Store(db) as st:
        (row,) = st.list("ab")
        assert row.kind == "rank_comparison"
