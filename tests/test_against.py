"""Code against code (``pytest --mf --mf-against REF``): the arithmetic that joins worker pairs and makes
the gate's change (pure), the remote sampler protocol over a pipe on the simulated clock, the worktree's
lifetime, and the whole gate end to end in a throwaway git repository whose two commits simulate
different costs (``--mf-simulate`` in each tree's own pytest.ini), so every verdict is exact."""

from __future__ import annotations

import contextlib
import math
import os
import re
import signal
import subprocess
import sys
import threading
from multiprocessing import Pipe
from pathlib import Path

import pytest

from measurefirst.measure.engine import Options, Sampler
from measurefirst.measure.remote import RemoteError, RemoteSampler, SumClock, Channel, serve
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.results.comparison import Verdict
from measurefirst.results.kinds import Measurement, Stop
from measurefirst.results import stats
from measurefirst.tools.against import change_of, combine, longer_factor, tree_env
from measurefirst.tools.compare import compare_samplers
from measurefirst.tools.worktree import Tree, WorktreeError, validate_ref


def v(ratio: float, lo: float | None, hi: float | None, verdict: str, rounds: int = 20, reason: str | None = None
      ) -> Verdict:
    ci = None if lo is None or hi is None else (lo, hi)
    return Verdict("head", "base", ratio, ci, verdict, None if ci is None else (hi - lo) / 2 / ratio, rounds, reason)


def m(median_ns: float) -> Measurement:
    return Measurement(label="x", device="cpu", timer="wall", samples_ns=(median_ns,) * 5, numbers=(1,) * 5,
                       host_ns=None, preempted=None, warmup=None, calibration=None,
                       stop=Stop("precision", True, 0.01, 0.1), options={"budget": 1.0}, env={})


# -- a worker's environment ------------------------------------------------------------------------------
def test_a_worker_imports_its_tree_first_and_keeps_bytecode_out_of_the_sources(tmp_path: Path):
    (tmp_path / "src").mkdir()
    env = tree_env(tmp_path, {"PYTHONPATH": "/elsewhere", "PYTHONDONTWRITEBYTECODE": "1", "XDG_CACHE_HOME": "/c"})
    assert env["PYTHONPATH"].split(os.pathsep) == [str(tmp_path / "src"), str(tmp_path), "/elsewhere"]
    # no compiling torch anew in each of six workers: bytecode goes to measurefirst's cache, not the sources
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == os.path.join("/c", "measurefirst", "pycache")
    # a prefix of the user's own is kept; without the variable, Python's own ways are left alone
    kept = tree_env(tmp_path, {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/mine"})
    assert kept["PYTHONDONTWRITEBYTECODE"] == "1" and kept["PYTHONPYCACHEPREFIX"] == "/mine"
    plain = tree_env(tmp_path, {})
    assert "PYTHONPYCACHEPREFIX" not in plain and "PYTHONDONTWRITEBYTECODE" not in plain
    assert plain["PYTHONPATH"].split(os.pathsep) == [str(tmp_path / "src"), str(tmp_path)]


# -- joining pairs ------------------------------------------------------------------------------------
def _re(logs, ses, floor):
    """The random-effects arithmetic written out: DerSimonian-Laird's tau^2 (at least the floor's
    2 * log(1 + floor)^2), weights 1 / (se^2 + tau^2), the larger of the weights' variance and
    Hartung-Knapp's, t(k - 1)."""
    k = len(logs)
    w0 = [1 / (se * se) for se in ses]
    fixed = sum(w * x for w, x in zip(w0, logs)) / sum(w0)
    q = sum(w * (x - fixed) ** 2 for w, x in zip(w0, logs))
    tau2 = max((q - (k - 1)) / (sum(w0) - sum(w * w for w in w0) / sum(w0)), 2 * math.log1p(floor) ** 2)
    w = [1 / (se * se + tau2) for se in ses]
    mean = sum(a * x for a, x in zip(w, logs)) / sum(w)
    hk = sum(a * (x - mean) ** 2 for a, x in zip(w, logs)) / ((k - 1) * sum(w))
    return mean, stats.t975(k - 1) * math.sqrt(max(1 / sum(w), hk))


def _plain(logs, floor):
    """The plain mean's interval written out: each pair one value, their spread (at least the floor's)
    over sqrt(k), t(k - 1)."""
    k = len(logs)
    mean = sum(logs) / k
    var = max(sum((x - mean) ** 2 for x in logs) / (k - 1), 2 * math.log1p(floor) ** 2)
    return math.exp(mean - stats.t975(k - 1) * math.sqrt(var / k)), math.exp(mean + stats.t975(k - 1) * math.sqrt(var / k))


def _expected_ci(pairs, floor):
    """The interval :func:`_re` gives for pairs that each have their own interval, widened to hold the
    plain mean's (:func:`_plain`)."""
    logs = [math.log(p.ratio) for p in pairs]
    ses = [(math.log(p.ratio_ci[1]) - math.log(p.ratio_ci[0])) / 2 / stats.Z95 for p in pairs]
    mean, half = _re(logs, ses, floor)
    lo, hi = _plain(logs, floor)
    return min(math.exp(mean - half), lo), max(math.exp(mean + half), hi)


def test_combine_is_a_random_effects_mean_over_the_pairs():
    pairs = [v(1.10, 1.08, 1.12, "slower"), v(1.20, 1.15, 1.25, "slower"), v(1.12, 1.10, 1.14, "slower")]
    c = combine(pairs, "t", "base", floor=0.005, floor_dof=2)
    logs = [math.log(p.ratio) for p in pairs]
    ses = [(math.log(p.ratio_ci[1]) - math.log(p.ratio_ci[0])) / 2 / stats.Z95 for p in pairs]
    mean, half = _re(logs, ses, 0.005)
    assert c.ratio == pytest.approx(math.exp(mean))
    lo, hi = _plain(logs, 0.005)
    assert c.ratio_ci == pytest.approx((min(math.exp(mean - half), lo), max(math.exp(mean + half), hi)))
    assert c.ratio_ci[0] < 1.08 and c.ratio_ci[1] > 1.25  # and it holds every pair's own interval
    assert c.rounds == 60 and c.verdict == "slower"


def test_two_pairs_agreeing_by_chance_are_widened_by_the_floor():
    # measured here: both pairs of an unchanged 1-element add agreed on 1.034 (1.029-1.038)
    pairs = [v(1.034, 1.029, 1.038, "slower"), v(1.034, 1.029, 1.038, "slower")]
    c = combine(pairs, "t", "base", floor=0.009, floor_dof=2)
    se = (math.log(1.038) - math.log(1.029)) / 2 / stats.Z95
    # the floor is the least spread between pairs; the factor is the pairs' own t(1), the floor lends none
    mean, half = _re([math.log(1.034)] * 2, [se, se], 0.009)
    assert half == pytest.approx(stats.t975(1) * math.sqrt((se * se + 2 * math.log1p(0.009) ** 2) / 2))
    assert c.ratio_ci == pytest.approx((1.034 * math.exp(-half), 1.034 * math.exp(half)))
    assert c.verdict == "no difference"
    # no floor and one pair: nothing bounds the spread between processes
    assert combine(pairs[:1], "t", "base").verdict == "undecided"


def test_three_pairs_agreeing_by_chance_do_not_borrow_the_floors_weight():
    # measured here under drifting load: an unchanged 1-element add, three pairs each sure of its own ratio,
    # all three below 1 by chance; the prior's floor at 2.7 us is 1.1%. Lending the floor its two degrees of
    # freedom gave t(4): 0.969 (0.944-0.996), "faster". The pairs' own t(2) holds 1.
    pairs = [v(0.988, 0.986, 0.990, "faster"), v(0.964, 0.962, 0.966, "faster"), v(0.956, 0.954, 0.958, "faster")]
    c = combine(pairs, "t", "base", floor=0.0108, floor_dof=2)
    assert c.ratio_ci == pytest.approx(_expected_ci(pairs, 0.0108))
    assert c.verdict == "no difference" and c.ratio_ci[0] < 0.93 and c.ratio_ci[1] > 1.0


def test_a_pair_disturbed_in_its_own_halves_counts_less_instead_of_widening_the_whole():
    # measured here under drifting load, softmax doing 5% more work: three pairs read 1.052, 1.039 and 1.033,
    # one of them with a wide interval of its own; the plain mean's variance, sum(se^2) / k^2, let that
    # pair widen the whole to 0.967-1.130 (undecided); weighed by 1 / (se^2 + tau^2), it counts less
    pairs = [v(1.052, 0.90, 1.23, "no difference"), v(1.039, 1.030, 1.048, "slower"), v(1.033, 1.025, 1.041, "slower")]
    c = combine(pairs, "t", "base", floor=0.0005, floor_dof=2)
    assert c.ratio_ci == pytest.approx(_expected_ci(pairs, 0.0005))
    assert c.verdict == "slower" and 1.0 < c.ratio_ci[0] and c.ratio_ci[1] < 1.07


def test_precise_pairs_that_share_a_bias_do_not_outweigh_the_rest():
    # measured here (an unchanged 1-element add, fresh interpreters, both cores busy): eight pairs in two
    # groups by the CPU they were bound to, the tight ones near +3%; weighed by their precision alone the
    # mean was a false regression at 2%; the plain mean's interval holds 1
    ratios = [1.029, 0.9906, 1.0241, 0.99, 1.0355, 0.9876, 1.0335, 0.9877]
    pairs = [v(r, r * math.exp(-stats.Z95 * (0.005 if r > 1 else 0.035)),
               r * math.exp(stats.Z95 * (0.005 if r > 1 else 0.035)), "no difference") for r in ratios]
    logs, ses = [math.log(r) for r in ratios], [0.005 if r > 1 else 0.035 for r in ratios]
    mean, half = _re(logs, ses, 0.0098)
    assert math.exp(mean - half) > 1.0  # the weighted interval alone: slower, and above 2% (a regression)
    c = combine(pairs, "t", "base", floor=0.0098, floor_dof=2)
    assert c.ratio_ci == pytest.approx(_expected_ci(pairs, 0.0098))
    assert c.ratio_ci[0] < 1.0 and c.verdict == "no difference"
    assert change_of(c, m(1.0), m(1.0), threshold=0.02, label="t").regression is False


def test_a_pair_in_another_mode_widens_the_interval_to_no_difference():
    c = combine([v(1.00, 0.99, 1.01, "no difference"), v(1.08, 1.06, 1.10, "slower")], "t", "base",
                floor=0.005, floor_dof=2)
    assert c.ratio_ci[0] < 0.99 and c.ratio_ci[1] > 1.10 and c.verdict == "no difference"


def test_pairs_pointing_opposite_ways_are_the_spread_between_processes():
    # measured here, quiet: three pairs of an unchanged 1-element add, each interval ±0.1%
    pairs = [v(0.989, 0.987, 0.991, "faster"), v(0.957, 0.956, 0.958, "faster"), v(1.058, 1.057, 1.060, "slower")]
    c = combine(pairs, "t", "base", floor=0.0106, floor_dof=2)
    assert c.verdict == "no difference" and c.ratio_ci[0] < 0.957 and c.ratio_ci[1] > 1.058


def test_a_pair_without_an_interval_enters_with_the_widest_error_of_the_others():
    # under drifting load a pair can end with too few batches of rounds for an interval of its own; its
    # estimate still counts (with the widest standard error of the other pairs), so that two such pairs of
    # four no longer leave a 20% slowdown undecided; an estimate far from the others widens the whole
    pairs = [v(1.10, 1.08, 1.12, "slower"), v(1.11, 1.09, 1.13, "slower"), v(1.12, None, None, "undecided",
                                                                                reason="too_few_rounds")]
    c = combine(pairs, "t", "base", floor=0.001, floor_dof=2)
    ses = [(math.log(hi) - math.log(lo)) / 2 / stats.Z95 for lo, hi in ((1.08, 1.12), (1.09, 1.13))]
    mean, half = _re([math.log(1.10), math.log(1.11), math.log(1.12)], ses + [max(ses)], 0.001)
    assert c.ratio_ci == pytest.approx((math.exp(mean - half), math.exp(mean + half))) and c.verdict == "slower"
    far = combine(pairs[:2] + [v(0.5, None, None, "undecided", reason="too_few_rounds")], "t", "base", floor=0.001,
                  floor_dof=2)
    assert far.verdict == "no difference" and far.ratio_ci[0] < 0.6 and far.ratio_ci[1] > 1.1
    # no pair with an interval: the scatter of the estimates alone, over t(k - 1)
    bare = [v(r, None, None, "undecided", reason="too_few_rounds") for r in (1.20, 1.22, 1.21, 1.19)]
    c = combine(bare, "t", "base", floor=0.001, floor_dof=2)
    assert c.verdict == "slower" and 1.15 < c.ratio_ci[0] < 1.2 < 1.21 < c.ratio_ci[1] < 1.26


def test_fewer_than_two_estimates_leave_the_whole_undecided():
    c = combine([v(1.1, 1.08, 1.12, "slower"), v(math.nan, None, None, "undecided", reason="too_few_rounds")], "t", "b")
    assert c.verdict == "undecided" and c.reason == "too_few_rounds"
    c = combine([v(1.1, None, None, "undecided", reason="too_few_rounds")], "t", "b", floor=0.01, floor_dof=2)
    assert c.verdict == "undecided" and c.reason == "too_few_rounds"  # one pair, no interval: nothing to go on


def test_the_gates_change_follows_the_regression_rule():
    base, head = m(100.0), m(110.0)
    ch = change_of(v(1.10, 1.07, 1.13, "slower"), base, head, threshold=0.05, label="t")
    assert ch.regression and not ch.improvement and ch.ratio == 1.10 and (ch.ci_low, ch.ci_high) == (1.07, 1.13)
    assert not ch.undecided
    # slower beyond the interval, yet not beyond the threshold: no regression
    ch = change_of(v(1.03, 1.02, 1.04, "slower"), base, head, threshold=0.05, label="t")
    assert not ch.regression and ch.verdict(True) == "slower"
    ch = change_of(v(0.8, 0.78, 0.82, "faster"), base, head, threshold=0.05, label="t")
    assert ch.improvement and not ch.regression


def test_an_undecided_change_says_how_much_longer_it_would_take():
    # estimate 1.02 with half-width ~0.04 (log): its high end falls below 1 + 5% once the half-width is
    # below log(1.05 / 1.02), before its low end passes 1 (below log 1.02): the farther line decides first
    verdict = v(1.02, 0.98, 1.06, "undecided", reason="too_few_rounds")
    factor = longer_factor(verdict, 0.05)
    half = (math.log(1.06) - math.log(0.98)) / 2
    assert factor == pytest.approx((half / math.log(1.05 / 1.02)) ** 2)
    # an estimate beyond the threshold leaves only by 1 (its low end passing 1 makes the regression)
    assert longer_factor(v(1.081, 0.991, 1.179, "no difference"), 0.02) == pytest.approx(
        ((math.log(1.179) - math.log(0.991)) / 2 / math.log(1.081)) ** 2)
    # one below 1 only by the threshold's line (its high end falling below it passes the gate)
    assert longer_factor(v(0.99, 0.95, 1.03, "no difference"), 0.02) == pytest.approx(
        ((math.log(1.03) - math.log(0.95)) / 2 / (math.log(1.02) - math.log(0.99))) ** 2)
    ch = change_of(verdict, m(100.0), m(102.0), threshold=0.05, label="t")
    assert ch.undecided and not ch.regression and ch.disturbed[0].code == "interleaved"
    d = ch.disturbed[0]
    assert (d.value / d.limit) ** 2 == pytest.approx(factor)
    from measurefirst.render.words import undecided_words

    text = undecided_words(ch, "en")
    assert f"{factor:.1f}x as many worker pairs" in text and "--mf-against-pairs" in text
    assert "交错运行的两侧" in undecided_words(ch, "zh")


def test_a_ratio_on_the_line_never_decides():
    assert longer_factor(v(1.0, 0.99, 1.01, "undecided"), 0.0) == math.inf


# -- the remote sampler over a pipe, on the simulated clock ------------------------------------------
def _served(call_ns: float, seed: int, compile_ns: float = 0.0):
    parent, child = Pipe()
    world = SimWorld(SimSpec(call_ns=call_ns, noise=0.01, seed=seed, compile_ns=compile_ns), seed=seed)
    fn = world.function(call_ns, "f")

    def make(o):
        return Sampler(fn, world.timer(), Options(precision=o["precision"], budget=o["budget"], min_time=o["min_time"]),
                       label="x", device="cpu", env={})

    out: dict[str, object] = {}

    def run() -> None:
        try:
            out.update(r=serve(child, make))
        except (EOFError, OSError):  # the test ended without "done" (a Ctrl-C case) and its end of the pipe went
            pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return Channel(parent, "sim", lambda: "", 30.0), t, out


def _compare_served(base: Channel, head: Channel):
    """The parent's interleaved comparison of two served samplers (budget 2 s); its clock."""
    clock = SumClock()
    opts = {"budget": 2.0, "precision": 0.005, "min_time": 0.5}
    states = [RemoteSampler(base, "base", clock, 2.0), RemoteSampler(head, "head", clock, 2.0)]
    for st in states:
        st.begin(opts)
    return compare_samplers(states, clock, Options(precision=0.005, budget=2.0, min_time=0.5), seed=3), clock


def _finish_served(*served) -> None:
    """Tell each served sampler's worker the measurement is done, and wait for it."""
    for ch, _, _ in served:
        ch.send(("done",))
    for _, t, _ in served:
        t.join(5)


def test_two_served_samplers_compare_like_two_functions():
    (base, tb, ob), (head, th, oh) = _served(100_000.0, 1), _served(120_000.0, 2)
    c, clock = _compare_served(base, head)
    verdict = c.verdicts[1]
    assert verdict.verdict == "slower" and verdict.ratio_ci[0] < 1.2 < verdict.ratio_ci[1]
    assert verdict.ratio == pytest.approx(1.2, rel=0.01)
    assert c.measurements[0].median == pytest.approx(100e-6, rel=0.02)
    # the parent's clock is the simulated time its workers spent, within the budget and the last block
    assert 0.5e9 <= clock.now_ns() <= 2.0e9 + 0.05e9
    assert sum(len(b) for b in c.block_values_ns) == 2 * len(c.orders)
    _finish_served((base, tb, ob), (head, th, oh))
    assert ob["r"][0] == "done" and oh["r"][0] == "done"
    assert ob["r"][1].median == c.measurements[0].median  # the worker keeps what the parent was sent


def test_a_worker_that_compiles_spends_none_of_the_parents_budget():
    """A compiled test in a worker: its 30 s first call is kept off the budget there, and reported to the
    parent as no time spent, so the comparison still samples (and never extends the deadline twice)."""
    (base, tb, ob), (head, th, oh) = _served(100_000.0, 1, compile_ns=30e9), _served(120_000.0, 2)
    c, clock = _compare_served(base, head)
    assert c.verdicts[1].ratio == pytest.approx(1.2, rel=0.01) and len(c.orders) >= 10
    assert clock.now_ns() <= 2.0e9 + 0.05e9  # the parent's clock never saw the compile
    _finish_served((base, tb, ob), (head, th, oh))
    m = ob["r"][1]
    assert m.compiled is not None and m.compiled.first_s == pytest.approx(30.0)
    assert m.median == pytest.approx(100e-6, rel=0.02)


def test_a_phase_that_raises_in_the_worker_is_the_parents_error():
    parent, child = Pipe()

    def boom() -> None:
        raise ValueError("bad input")

    world = SimWorld(SimSpec(call_ns=1000.0, seed=1), seed=1)

    def make(o):
        return Sampler(boom, world.timer(), Options(budget=o["budget"], precision=o["precision"],
                                                    min_time=o["min_time"]), label="x", device="cpu", env={})

    t = threading.Thread(target=lambda: serve(child, make), daemon=True)
    t.start()
    rs = RemoteSampler(Channel(parent, "base", lambda: "", 30.0), "base", SumClock(), 1.0)
    rs.begin({"budget": 1.0, "precision": 0.01, "min_time": 0.1})
    with pytest.raises(RemoteError, match="ValueError: bad input"):
        rs.warm_up(None)
    parent.send(("abort",))
    t.join(5)


# -- the worktree --------------------------------------------------------------------------------------
def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_a_worktree_is_made_apart_and_removed_on_every_way_out(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("base\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-qm", "base")
    (repo / "a.txt").write_text("head, uncommitted\n")
    with Tree.of("HEAD", repo) as tree:
        assert (tree.root / "a.txt").read_text() == "base\n" and tree.made
        root = tree.root
    assert not root.exists() and "a.txt" in _git(repo, "status", "--porcelain")  # the user's change untouched
    assert _git(repo, "worktree", "list").count("\n") == 0
    with pytest.raises(KeyboardInterrupt):
        with Tree.of("HEAD", repo) as tree:
            root = tree.root
            raise KeyboardInterrupt
    assert not root.exists() and _git(repo, "worktree", "list").count("\n") == 0
    with pytest.raises(WorktreeError, match="not a branch, tag or commit"):
        validate_ref("no-such-branch", repo)
    with pytest.raises(WorktreeError, match="not inside a git checkout"):
        validate_ref("main", tmp_path)


# -- end to end: a throwaway repository, two commits with different simulated costs -------------------
SUITE = """
def work():
    return 1

def test_a(benchmark):
    assert benchmark(work) == 1

def test_b(benchmark):
    benchmark(work)

def test_plain():
    pass
"""
INI = "[pytest]\naddopts = --mf-simulate=call=1ms,noise=0.01,seed=1;test_a={a};test_b=1ms\n"


def _repo(tmp_path: Path, a_base: str, a_head: str, extra_head: str = "") -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "test_suite.py").write_text(SUITE)
    (repo / "pytest.ini").write_text(INI.format(a=a_base))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "pytest.ini").write_text(INI.format(a=a_head))
    if extra_head:
        (repo / "test_suite.py").write_text(SUITE + extra_head)
    return repo


def _pytest(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: val for k, val in os.environ.items() if not k.startswith(("PYTEST_", "MEASUREFIRST_PYTEST"))}
    env["MEASUREFIRST_STORE"] = str(repo.parent / "results.db")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--mf", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_slower_head_fails_the_gate_and_the_worktree_is_gone(tmp_path: Path):
    repo = _repo(tmp_path, "1ms", "1.2ms", extra_head="\ndef test_new(benchmark):\n    benchmark(work)\n")
    done = _pytest(repo, "--mf-against", "HEAD", "--mf-fail-if-slower", "5%", "--mf-json", "out.json")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "FAILED test_suite.py::test_a" in out and "test_b" not in out.split("short test summary")[-1]
    assert re.search(r"test_a: (19|20)\.\d% slower \(ratio 1\.(19|20)\d", out), out
    assert "code against code: 2 benchmark(s) compared with HEAD (" in out and "4 pair(s)" in out
    assert "1 new test(s), not in HEAD" in out and "test_suite.py::test_new" in out
    assert "nothing timed" not in out
    assert _git(repo, "worktree", "list").count("\n") == 0
    import json

    data = json.loads((repo / "out.json").read_text())
    by = {b["name"]: b for b in data["benchmarks"]}
    assert by["test_suite.py::test_a"]["change"]["regression"] is True
    assert by["test_suite.py::test_b"]["change"]["regression"] is False


def test_unchanged_code_passes_and_a_base_failure_is_listed_not_failed(tmp_path: Path):
    repo = _repo(tmp_path, "1ms", "1ms")
    # the base's test_b fails; this tree's passes
    (repo / "test_suite.py").write_text(SUITE)
    _git(repo, "commit", "-qam", "x", "--allow-empty")
    base_suite = SUITE.replace("    benchmark(work)\n\ndef test_plain", "    benchmark(work)\n    assert False, 'old bug'\n\n"
                               "def test_plain")
    (repo / "test_suite.py").write_text(base_suite)
    _git(repo, "commit", "-qam", "base with a bug")
    (repo / "test_suite.py").write_text(SUITE)
    done = _pytest(repo, "--mf-against", "HEAD", "--mf-fail-if-slower", "5%", "--mf-against-pairs", "1")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "test_suite.py::test_b failed on the base (not compared)" in out and "old bug" in out
    assert "no regression beyond 5.0%" in out


def test_bad_refs_and_options_are_refused_before_anything_is_measured(tmp_path: Path):
    repo = _repo(tmp_path, "1ms", "1ms")
    done = _pytest(repo, "--mf-against", "no-such-ref")
    assert done.returncode == 4 and "--mf-against: 'no-such-ref' is not a branch, tag or commit" in done.stderr
    # an existing file outside the checkout given as an option's value moves pytest's rootdir above it: said
    (tmp_path / "out.json").write_text("{}")
    done = _pytest(repo, "--mf-against", "HEAD", "--mf-json", "../out.json")
    assert done.returncode == 4 and f"pytest's rootdir is {tmp_path}, above your checkout {repo}" in done.stderr
    assert f"give it as --option=value, or add --rootdir={repo}" in done.stderr
    done = _pytest(repo, "--mf-against", "HEAD", "--mf-compare", "base")
    assert done.returncode == 4 and "choose one" in done.stderr


# -- the command line, on the real clock (a 2x slower head: an ordering with a wide margin) ----------
SLOW_MODULE = """
import time

def f():
    end = time.perf_counter() + {us} * 1e-6
    while time.perf_counter() < end:
        pass
"""


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: val for k, val in os.environ.items() if not k.startswith(("PYTEST_", "MEASUREFIRST_PYTEST"))}
    return subprocess.run([sys.executable, "-m", "measurefirst", "compare", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.realclock
def test_compare_against_on_the_command_line(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "slowmod.py").write_text(SLOW_MODULE.format(us=50))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "slowmod.py").write_text(SLOW_MODULE.format(us=100))  # this tree: twice as slow, uncommitted
    done = _cli(repo, "--against", "HEAD", "slowmod:f", "--fail-if-slower", "5%", "--budget", "1",
                "--against-pairs", "2", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    import json

    (change,) = json.loads(done.stdout)["changes"]
    assert change["regression"] and change["verdict"] == "regression"
    assert 1.5 < change["ci_low"] <= change["ratio"] <= change["ci_high"] < 2.5
    assert _git(repo, "worktree", "list").count("\n") == 0
    assert (repo / "slowmod.py").read_text() == SLOW_MODULE.format(us=100)  # the user's change untouched
    # a target that fails on one side: a clear error, nothing left behind
    (repo / "slowmod.py").write_text(SLOW_MODULE.format(us=100) + "\ndef g():\n    return 1\n")
    done = _cli(repo, "--against", "HEAD", "slowmod:g")
    assert done.returncode == 2 and "slowmod:g: failed on the base side: AttributeError" in done.stderr
    assert _git(repo, "worktree", "list").count("\n") == 0


@pytest.mark.realclock
def test_bisect_names_the_commit_that_doubled_a_call(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for i in range(4):  # commit 2 doubles the call (two steps: CI's time is kept short; the 64-commit search is
        (repo / "slowmod.py").write_text(SLOW_MODULE.format(us=80 if i >= 2 else 40))  # benchmarks/bisect.py's)
        (repo / "log.txt").write_text(f"commit {i}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"commit {i}")
    env = {k: val for k, val in os.environ.items() if not k.startswith(("PYTEST_", "MEASUREFIRST_PYTEST"))}
    done = subprocess.run([sys.executable, "-m", "measurefirst", "bisect", "HEAD~3", "HEAD", "slowmod:f", "--budget",
                           "1"], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    line = next(x for x in said.splitlines() if x.startswith("first slow commit"))
    assert "(3 searched)" in line and " commit 2: median ratio " in line, said
    ratio = float(re.search(r"median ratio (\d+\.\d+)", line).group(1))
    assert 1.5 < ratio < 2.5
    assert "4 worker pairs" in said and "slower half measured" in line  # each step decided at its first look
    assert _git(repo, "worktree", "list").count("\n") == 0
    (repo / "log.txt").write_text("uncommitted\n")
    done = subprocess.run([sys.executable, "-m", "measurefirst", "bisect", "HEAD~3", "HEAD", "slowmod:f"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "uncommitted changes (log.txt)" in done.stderr


def test_ctrl_c_between_a_request_and_its_reply_is_an_interruption_not_a_crash():
    # issue 38: Ctrl-C under --mf-against read the interrupted block's reply as the partial result's
    # ("measurement must be an object; got tuple", an INTERNALERROR); now the comparison is interrupted
    from measurefirst.measure.engine import Interrupted

    (base, _, _), (head, _, _) = _served(10_000, 1), _served(10_000, 2)
    real, n = head.request, [0]

    def request(message):
        n[0] += 1
        if n[0] == 6:
            head.send(message)  # the request goes out; Ctrl-C comes before its reply is read
            raise KeyboardInterrupt
        return real(message)

    head.request = request
    with pytest.raises(Interrupted) as info:
        _compare_served(base, head)
    assert info.value.partial is None


def test_bisect_follows_one_pytest_benchmark_and_refuses_a_selection_of_two(tmp_path: Path):
    # issue 33: `measurefirst bisect GOOD BAD -- pytest FILE -k NAME`; simulated costs (pytest.ini's
    # --mf-simulate), so the figures are exact: commit 1 makes test_a twice as slow
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for i in range(3):  # one step (CI's time; the steps' logic is tested on the real clock and in test_bisect_ranks)
        (repo / "test_suite.py").write_text(SUITE)
        (repo / "pytest.ini").write_text(INI.format(a="2ms" if i >= 1 else "1ms"))
        (repo / "log.txt").write_text(f"commit {i}\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"commit {i}")
    env = {k: val for k, val in os.environ.items() if not k.startswith(("PYTEST_", "MEASUREFIRST_PYTEST"))}

    def bisect(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "measurefirst", "bisect", "HEAD~2", "HEAD", *args], cwd=repo,
                              env=env, capture_output=True, text=True, timeout=600)

    done = bisect("--budget", "1", "--against-pairs", "2", "--json", "--", "pytest", "test_suite.py", "-k", "test_a")
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    line = next(x for x in said.splitlines() if x.startswith("first slow commit"))
    assert "(2 searched)" in line and " commit 1: median ratio " in line, said
    assert 1.9 < float(re.search(r"median ratio (\d+\.\d+)", line).group(1)) < 2.1
    import json

    steps = json.loads(done.stdout[done.stdout.index("["):])
    assert {c["label"] for s in steps for c in s["changes"]} == {"test_suite.py::test_a"}
    assert _git(repo, "worktree", "list").count("\n") == 0
    done = bisect("--", "pytest", "test_suite.py")
    assert done.returncode == 2 and "selects 2 measuring tests" in done.stderr and "narrow it with -k" in done.stderr
    done = bisect("--", "pytest", "test_suite.py", "-k", "nothing_like_this")
    assert done.returncode == 2 and "selects no measuring test" in done.stderr
    done = bisect("-s", "x = 1", "--", "pytest", "test_suite.py", "-k", "test_a")
    assert done.returncode == 2 and "-s/--setup is for a statement" in done.stderr
    done = bisect("mod:f", "extra")
    assert done.returncode == 2 and "bisect takes one TARGET" in done.stderr
    assert _git(repo, "worktree", "list").count("\n") == 0


# -- the second look -------------------------------------------------------------------------------------

def test_an_undecided_comparison_gets_the_fewest_pairs_that_would_decide_it():
    from measurefirst.results.regression import look_level
    from measurefirst.tools.against import pairs_to_decide, t_factor

    # 1.081 (0.974-1.200) over four pairs, threshold 2%: it leaves by its low end passing 1, which needs the
    # half-width (log) below log 1.081; with m more pairs it becomes half * sqrt(4 / (4 + m)) * t(3 + m at
    # 97.5%) / t(3 at 95%): two more do not reach it, three do
    verdict = v(1.081, 1.081 ** 2 / 1.2, 1.2, "no difference")
    half = math.log(1.2 / 1.081)
    shrunk = {m: half * math.sqrt(4 / (4 + m)) * t_factor(3 + m, 0.975) / t_factor(3) for m in (2, 3)}
    assert shrunk[2] > math.log(1.081) >= shrunk[3]
    assert look_level(1) == 0.95 and look_level(1, second=True) == 0.975
    assert pairs_to_decide(verdict, 4, threshold=0.02, most=4) == 3
    assert pairs_to_decide(verdict, 4, threshold=0.02, most=2) == 0  # not within reach of two more: none
    assert pairs_to_decide(v(1.081, 1.081 ** 2 / 1.23, 1.23, "no difference"), 4, threshold=0.02, most=4) == 0
    assert pairs_to_decide(v(1.081, 1.081 ** 2 / 1.23, 1.23, "no difference"), 4, threshold=0.02, most=8) == 5
    # an estimate just past the threshold, far from 1 by a half-width twice as wide: out of reach
    assert pairs_to_decide(v(1.038, 0.975, 1.104, "no difference"), 4, threshold=0.02, most=4) == 0
    # nothing to go on: no interval, or one pair
    assert pairs_to_decide(v(1.05, None, None, "undecided", reason="too_few_rounds"), 4, threshold=0.02, most=4) == 0
    assert pairs_to_decide(verdict, 1, threshold=0.02, most=4) == 0
    # the same interval as the first look of a run of four comparisons (98.75%): its t(3) is already the wide
    # one, and the second look's is t(3 + m) at 99.375%: 1 - half * sqrt(4 / (4 + m)) * t(3 + m, 99.375%) / t(3, 98.75%)
    four = {m: half * math.sqrt(4 / (4 + m)) * t_factor(3 + m, 0.99375) / t_factor(3, 0.9875) for m in (2, 3)}
    assert four[2] <= math.log(1.081) and pairs_to_decide(verdict, 4, threshold=0.02, most=4, comparisons=4) == 2


def test_a_runs_comparisons_share_one_error_so_a_larger_suite_does_not_fail_more_often():
    """Bonferroni's split of the run's 5%: each of m intervals at 1 - 5%/m, the second look's at half that
    error; worked out: four comparisons 98.75%, t(3) 5.39 against 95%'s 3.18."""
    from measurefirst.results.regression import look_level
    from measurefirst.tools.against import t_factor

    assert look_level(0) == look_level(1) == 0.95
    assert look_level(4) == pytest.approx(0.9875) and look_level(4, second=True) == pytest.approx(0.99375)
    assert look_level(50) == pytest.approx(0.999)
    assert t_factor(3, look_level(4)) == pytest.approx(5.392, abs=2e-3)
    # the same four pairs: alone the run calls 1.05 (1.01-1.09 at 95%) a regression at 2%; in a run of four
    # comparisons its interval widens by t(3, 98.75%) / t(3, 95%) and holds 1: undecided
    logs = [math.log(r) for r in (1.02, 1.03, 1.07, 1.08)]
    one = combine([v(math.exp(x), math.exp(x - 0.01), math.exp(x + 0.01), "slower") for x in logs], "t", "base")
    four = combine([v(math.exp(x), math.exp(x - 0.01), math.exp(x + 0.01), "slower") for x in logs], "t", "base",
                   level=look_level(4))
    assert one.ratio == pytest.approx(four.ratio)
    assert one.ratio_ci[0] > 1.0 > four.ratio_ci[0]
    widen = t_factor(3, look_level(4)) / t_factor(3)
    assert math.log(four.ratio_ci[1] / four.ratio) == pytest.approx(widen * math.log(one.ratio_ci[1] / one.ratio),
                                                                       rel=1e-6)
    assert change_of(one, m(100.0), m(105.0), threshold=0.02, label="t").regression
    assert change_of(four, m(100.0), m(105.0), threshold=0.02, label="t").undecided


def test_the_second_looks_level_is_wider_and_named_wherever_its_interval_is_shown():
    from measurefirst.results.regression import look_level
    from measurefirst.tools.against import t_factor
    from measurefirst.render.words import change_words, ratio_cell
    from measurefirst.pytest.against import Outcome
    from measurefirst.pytest.report import against_lines

    second = look_level(1, second=True)
    assert t_factor(7, second) > t_factor(7) and t_factor(3) == stats.t975(3)
    assert t_factor(7, second) == pytest.approx(2.8412, abs=1e-3)  # t(7) at 98.75%, one side
    ch = change_of(v(1.05, 1.02, 1.08, "slower"), m(100.0), m(105.0), threshold=0.02, label="t")
    from dataclasses import replace

    wide = replace(ch, ci_level=second)
    assert "95% CI 1.020–1.080" in change_words(ch, "en") and "97.5% CI 1.020–1.080" in change_words(wide, "en")
    assert "97.5% 置信区间" in change_words(wide, "zh")
    assert ratio_cell(ch, "en") == "1.050x (1.020–1.080)" and ratio_cell(wide, "en") == "1.050x (1.020–1.080; 97.5%)"
    o = Outcome("base (abc)", 4, compared=["t.py::a"], second_look={"t.py::a": 7}, comparisons=1)
    lines = against_lines(o, "en")
    assert "1 of them, undecided after 4 pair(s)" in lines[1] and "97.5%" in lines[1] and "7.5%" in lines[1]
    assert "t.py::a (7 pairs)" in lines[1]
    assert "t.py::a（7 对）" in against_lines(o, "zh")[1]
    # two comparisons: each interval at 97.5%, the second look's at 98.75%, and a line says why
    o = Outcome("base (abc)", 4, compared=["t.py::a", "t.py::b"], second_look={"t.py::b": 7}, comparisons=2)
    lines = against_lines(o, "en")
    assert "intervals at 97.5% each" in lines[1] and "2 comparisons share one 5% chance" in lines[1]
    assert "intervals at 98.75%" in lines[2] and "7.5%" in lines[2]
    zh = against_lines(o, "zh")
    assert "97.5%" in zh[1] and "98.75%" in zh[2]


WAITING_CONFTEST = """
import os, time

def pytest_collection_finish(session):
    if os.environ.get("MEASUREFIRST_AGAINST"):  # a worker: say so, then wait for the Ctrl-C
        side = os.environ["MEASUREFIRST_AGAINST"].rsplit(":", 1)[-1]
        open(os.path.join(os.environ["MARK_DIR"], f"{side}-{os.getpid()}"), "w").close()
        time.sleep(300)
"""


def test_ctrl_c_while_the_workers_start_leaves_no_process_worktree_or_folder(tmp_path: Path):
    # a terminal's Ctrl-C reaches the whole process group: the parent, each pair's fork server, the workers
    repo = _repo(tmp_path, "1ms", "1ms")
    (repo / "conftest.py").write_text(WAITING_CONFTEST)
    _git(repo, "add", "conftest.py")
    _git(repo, "commit", "-qm", "workers wait")
    marks, temp = tmp_path / "marks", tmp_path / "tmp"
    marks.mkdir()
    temp.mkdir()
    env = {k: val for k, val in os.environ.items() if not k.startswith(("PYTEST_", "MEASUREFIRST_PYTEST"))}
    env.update(MEASUREFIRST_STORE=str(tmp_path / "results.db"), MARK_DIR=str(marks), TMPDIR=str(temp))
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--mf", "--mf-against", "HEAD",
                             "--mf-against-pairs", "2"], cwd=repo, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        while len(list(marks.iterdir())) < 2:  # the first pair's workers collected (the second's wait for their plan)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.2)
            assert proc.returncode is None, proc.stdout.read() if proc.stdout else ""
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 2, out
    assert "Traceback" not in out
    pids = [int(p.name.split("-")[1]) for p in marks.iterdir()]
    for _ in range(600):  # every worker gone (each is killed on the way out; a few ms after the parent)
        if not any(_alive(pid) for pid in pids):
            break
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=0.05)
    assert not any(_alive(pid) for pid in pids)
    with pytest.raises(ProcessLookupError):  # nothing of the run's process group is left: no fork server either
        os.killpg(proc.pid, 0)
    assert _git(repo, "worktree", "list").count("\n") == 0
    assert not [p for p in temp.iterdir() if p.name.startswith("measurefirst-against-")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_compare_against_with_several_targets_says_the_level_their_intervals_share(tmp_path: Path, monkeypatch,
                                                                                    capsys):
    """The CLI's run of two targets: each interval at 97.5% (look_level(2)), and a line says why; the pairs
    themselves stubbed (the real ones: test_compare_against_on_the_command_line)."""
    import json

    from measurefirst.cli.commands import main
    from measurefirst.results.regression import Regression, look_level
    from measurefirst.tools import against

    seen = {}

    def fake(ref, specs, labels, **kw):
        seen["labels"] = list(labels)
        level = look_level(len(labels))
        changes = tuple(replace(change_of(v(1.0, 0.99, 1.01, "no difference"), m(100.0), m(100.0), threshold=0.05,
                                          label=label), ci_level=level) for label in labels)
        return Regression(base="HEAD", new="this tree", changes=changes, gate=True)

    from dataclasses import replace

    monkeypatch.setattr(against, "against_targets", fake)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mod.py").write_text("def f():\n    return 1\n")
    code = main(["compare", "--against", str(tmp_path), "mod:f", "mod:f", "--label", "a", "--label", "b",
                 "--fail-if-slower", "5%", "--json"])
    out = capsys.readouterr()
    assert code == 0 and seen["labels"] == ["a", "b"]
    assert "intervals at 97.5% each: the 2 comparisons share one 5% chance" in out.err
    assert [c["ci_level"] for c in json.loads(out.out)["changes"]] == [0.975, 0.975]


def _pairs_of(ratios, own=0.01):
    """Comparisons as worker pairs return them: base and head measured, the head's verdict ``ratio`` with its
    own interval of about ±``own``."""
    from measurefirst.results.comparison import Comparison

    return [Comparison(labels=("base", "head"), baseline="base", measurements=(m(100.0), m(100.0 * r)),
                       block_values_ns=((), ()), orders=(), stop=Stop("precision", True, 0.01, 0.1),
                       verdicts=(v(1.0, None, None, "baseline"),
                                 v(r, r / (1 + own), r * (1 + own), "slower" if r > 1 + own else "no difference")))
            for r in ratios]


def test_pairs_of_which_one_landed_in_another_mode_are_asked_the_pairs_a_typical_pair_would_need(monkeypatch):
    """Measured under a drifting load: a softmax made 5% slower, pairs 1.071, 1.155, 1.049, 1.051. Their scatter
    (the outlier's square dominates it) asks three more pairs even with the estimate staying at 1.081; pairs like
    the typical one so far would decide in two, and the fewer is asked. Unchanged code with one pair in another
    mode is asked none: even typical pairs would leave it between 1 and 1.02."""
    from measurefirst.measure import noise
    from measurefirst.tools import against
    from measurefirst.results.regression import look_level
    from measurefirst.tools.against import more_pairs, pairs_if_typical, pairs_to_decide, t_factor

    monkeypatch.setattr(against, "process_floor", lambda *a, **k: (0.001, 2, "prior"))
    logs = [math.log(r) for r in (1.071, 1.155, 1.049, 1.051)]
    parts = _pairs_of((1.071, 1.155, 1.049, 1.051))
    verdict, _, _, _ = against._joined(parts, "t", True, look_level(4))
    assert verdict.ratio_ci[0] < 1.0 and pairs_to_decide(verdict, 4, threshold=0.02, most=4, comparisons=4) == 3
    # the arithmetic for two more pairs: at the median log-ratio, each with the MAD's variance
    center = (logs[0] + logs[3]) / 2
    spread = (1.4826 * sorted(abs(x - center) for x in logs)[1:3][0] / 2 + 1.4826
              * sorted(abs(x - center) for x in logs)[1:3][1] / 2) ** 2
    mean = (sum(logs) + 2 * center) / 6
    var = (sum((x - mean) ** 2 for x in logs) + 2 * (spread + (center - mean) ** 2)) / 5
    assert mean - t_factor(5, look_level(4, second=True)) * math.sqrt(var / 6) > 0  # decided: slower
    assert pairs_if_typical(logs, 0.001, threshold=0.02, most=4, comparisons=4) == 2
    assert more_pairs(parts, "t", threshold=0.02, most=4, comparisons=4) == 2
    # unchanged, one pair in another mode: none
    assert more_pairs(_pairs_of((0.993, 0.987, 1.132, 1.004)), "t", threshold=0.02, most=4, comparisons=4) == 0
    # no threshold (nothing to decide between), or too few pairs for a typical one: none
    assert pairs_if_typical(logs, 0.001, threshold=0.0, most=4) == 0
    assert pairs_if_typical(logs[:2], 0.001, threshold=0.02, most=4) == 0
    assert noise.process_floor is not against.process_floor


def test_the_markdown_summary_says_why_code_against_codes_intervals_are_wider():
    """The job summary's table shows 97.5% beside each of two code-against-code intervals; the line under it says
    why, as the terminal does. One comparison, or changes at 95% (no pair ratios): no line; a saved-number gate's
    run whose changes share one error (their level below 95%) says so without counting them (the run's measuring
    tests are shared, not the changes shown)."""
    from dataclasses import replace

    from measurefirst.render.markdown import suite_level_lines

    ch = change_of(v(1.0, 0.99, 1.01, "no difference"), m(100.0), m(100.0), threshold=0.05, label="t")
    paired = replace(ch, pair_ratios=(1.0, 1.01, 0.99, 1.0), ci_level=0.975)
    assert suite_level_lines([paired, paired], "@base", "en") == [
        "intervals at 97.5% each: the 2 comparisons share one 5% chance that a run calls any unchanged benchmark "
        "slower or faster (Bonferroni), so that a larger suite does not fail more often on noise", ""]
    assert "97.5%" in suite_level_lines([paired, paired], "@base", "zh")[0]
    assert suite_level_lines([paired], "@base", "en") == [] and suite_level_lines([ch, ch, ch], "@base", "en") == []
    assert "98.75% each: the 4 comparisons" in suite_level_lines([paired] * 4, "@base", "en")[0]
    saved = replace(ch, ci_level=0.99)
    assert suite_level_lines([saved, saved], "@base", "en") == [
        "intervals at 99% each: the run's measuring tests share one 5% chance that it calls any unchanged benchmark "
        "slower or faster than @base (Bonferroni), so that a larger suite does not fail more often on noise", ""]
