"""The CI recipe (examples/ci/benchmarks.yml, shown in docs/how-to/ci.md) runs end to end here: its
``run:`` steps, in order, as GitHub Actions would run them (bash, one temporary repository, the store
kept between runs as the cache keeps it), on a tiny pytest-benchmark suite timed on the seeded simulated
clock. A first push to main (no baseline yet) saves one; a pull request that slows one test is gated, and the job
summary gets the regression table in Markdown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML reads the workflow (it comes with mkdocs: pip install mkdocs)")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "ci" / "benchmarks.yml"
SUITE = '''
def test_sum(benchmark):
    benchmark(sum, range(100))


def test_sorted(benchmark):
    assert benchmark(sorted, [3, 1, 2]) == [1, 2, 3]
'''
#: Steps that set up the runner (checkout, Python, pip install): the test's environment is set up already.
SETUP_STEPS = ("Install",)


def run_steps() -> list[tuple[str, str, str | None]]:
    """(name, script, condition) of every ``run:`` step, in order."""
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["benchmarks"]
    return [(s.get("name", ""), s["run"], s.get("if")) for s in job["steps"] if "run" in s]


def test_the_workflow_restores_runs_and_saves_the_store():
    flow = yaml.safe_load(WORKFLOW.read_text())
    steps = flow["jobs"]["benchmarks"]["steps"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("actions/cache/restore@") for u in uses)
    save = next(s for s in steps if s.get("uses", "").startswith("actions/cache/save@"))
    assert save["if"] == "github.ref == 'refs/heads/main'" and save["with"]["path"] == ".measurefirst"
    scripts = "\n".join(script for _, script, _ in run_steps())
    assert "--mf-against origin/$GITHUB_BASE_REF --mf-fail-if-slower 5%" in scripts
    assert "$GITHUB_STEP_SUMMARY" in scripts
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0  # the base branch's commit is there
    assert "--format markdown" in scripts


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _ci_run(repo: Path, ref: str, base_ref: str = "") -> tuple[list[int], str]:
    """One workflow run: each run step in bash, like Actions (a failed step skips the rest, except those
    under ``if: always()``); returns the exit codes and the job summary. Each commit's simulated costs
    are in its own pytest.ini, so the base tree and the head tree of a pull request differ."""
    summary = repo / f"summary-{ref.replace('/', '-')}.md"
    env = {**os.environ, "GITHUB_REF": ref, "GITHUB_BASE_REF": base_ref, "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "org/repo",
           "PYTHONPATH": str(ROOT / "src"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for key in ("MEASUREFIRST_STORE", "MEASUREFIRST_PYTEST_SIMULATE"):
        env.pop(key, None)
    codes: list[int] = []
    failed = False
    for name, script, condition in run_steps():
        if name in SETUP_STEPS or (failed and condition != "always()"):
            continue
        if condition == "github.ref == 'refs/heads/main'" and ref != "refs/heads/main":
            continue
        script = script.replace("pytest ", "pytest -p no:cacheprovider ", 1)  # leave no .pytest_cache behind
        done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300)
        codes.append(done.returncode)
        failed = failed or done.returncode != 0
    return codes, summary.read_text() if summary.exists() else ""


def _commit(repo: Path, simulate: str, message: str) -> None:
    (repo / "pytest.ini").write_text(f"[pytest]\naddopts = --mf-simulate={simulate}\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", message)


def test_the_recipe_runs_end_to_end(tmp_path):
    origin, repo = tmp_path / "origin.git", tmp_path / "repo"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    _git(tmp_path, "clone", "-q", str(origin), str(repo))
    (repo / ".gitignore").write_text(".measurefirst/\nmf.json\nmf-summary.md\nsummary-*.md\nsite/\n")
    (repo / "tests" / "benchmarks").mkdir(parents=True)
    (repo / "tests" / "benchmarks" / "test_tiny.py").write_text(SUITE)
    _git(repo, "checkout", "-qb", "main")
    _commit(repo, "call=10us,seed=1", "main")
    _git(repo, "push", "-q", "origin", "main")
    codes, first = _ci_run(repo, "refs/heads/main")  # a push to main: measured and kept in the history
    assert codes == [0, 0, 0] and (repo / ".measurefirst" / "results.db").exists()
    assert "| test | median | ± |" in first and "test_sum" in first
    assert "### Change points of main" in first and "suite main: 2 benchmark(s)" in first  # issue 36
    index = (repo / "site" / "index.html").read_text()
    assert "2 benchmark series" in index and (repo / "site" / "zh" / "index.html").is_file()
    page = next((repo / "site" / "b").glob("main_tests_benchmarks_test_tiny.py_test_sum*.html")).read_text()
    assert 'href="https://github.com/org/repo/commit/' in page
    _git(repo, "checkout", "-qb", "slower")
    _commit(repo, "call=10us,seed=1;test_sum=12us", "one test 20% slower")
    codes, slow = _ci_run(repo, "refs/pull/1/merge", "main")  # the pull request, judged against origin/main
    assert codes == [1, 0]  # the gate fails the job; the summary is still written
    assert "against origin/main \\(" in slow and "failing beyond 5.0% slower" in slow
    assert "| 1.199x" in slow or "| 1.200x" in slow
    assert "**REGRESSION**" in slow and "**1 regression(s)**: tests/benchmarks/test_tiny.py::test_sum" in slow
    # the floor of two processes, at 97.5%: two comparisons share the run's 5% (the line under the table says so)
    assert "test_sorted | " in slow and "| 1.000x (0.997–1.003; 97.5%) | same |" in slow
    assert "intervals at 97.5% each: the 2 comparisons share one 5% chance" in slow
