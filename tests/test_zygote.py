"""The fork server of a worker pair (``measurefirst.tools.zygote``): what it imports, and a child that looks
like the fresh ``python -m module`` it replaces (its folder, path, environment, arguments, output, exit status),
stopped on every way out."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from measurefirst.tools.zygote import PRELOAD, Zygote, enabled, preloadable, tree_roots

pytestmark = pytest.mark.skipif(not enabled({}), reason="workers are forked on Linux only")

PROBE = """
import json, os, sys
json.dump({"cwd": os.getcwd(), "path0": sys.path[0], "argv": sys.argv[1:], "name": __name__,
           "env": os.environ.get("PROBE_VALUE"), "front": os.environ.get("PYTHONPATH", ""),
           "tree": __import__("treemod").WHERE, "preloaded": "json" in sys.modules}, sys.stdout)
print()
print("to stderr", file=sys.stderr)
sys.exit(int(os.environ.get("PROBE_EXIT", "0")))
"""


def _trees(tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    for root in (base, head):
        (root / "src").mkdir(parents=True)
        (root / "src" / "treemod.py").write_text(f"WHERE = {root.name!r}\n")
        (root / "probe_mod.py").write_text(PROBE)
    return base, head


def _env(root: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)]), **extra}


def test_only_what_neither_tree_provides_is_imported_before_the_fork(tmp_path: Path):
    base, head = _trees(tmp_path)
    assert preloadable([base, head]) == list(PRELOAD) == ["torch", "pytest"]
    # a pytest worker's server imports measurefirst's plugin too, unless a tree is measurefirst
    assert preloadable([base, head], "pytest") == ["torch", "pytest", "measurefirst.pytest.plugin"]
    assert preloadable([base, head], "measurefirst.measure._worker")[2:] == ["measurefirst.measure.engine",
                                                                              "measurefirst.measure.remote"]
    (base / "src" / "measurefirst").mkdir()
    assert preloadable([base, head], "pytest") == ["torch", "pytest"]
    (head / "src" / "torch").mkdir()  # a checkout of torch: its own torch in its worker
    assert preloadable([base, head]) == ["pytest"]
    (base / "pytest.py").write_text("")
    assert preloadable([base, head]) == []
    # the trees are told apart by their folders and the PYTHONPATH entries they do not share
    roots = tree_roots([(base, {"PYTHONPATH": f"{base}/src:{base}:/shared"}),
                        (head, {"PYTHONPATH": f"{head}/src:{head}:/shared"})])
    assert roots == sorted({base, head, base / "src", head / "src"}) and Path("/shared") not in roots
    assert not enabled({"MEASUREFIRST_FORK_SERVER": "0"})


def test_a_forked_child_is_the_fresh_interpreter_it_replaces(tmp_path: Path):
    base, head = _trees(tmp_path)
    server = Zygote(["json"], {**os.environ, "PROBE_VALUE": "server's"}, tmp_path / "server.log")
    try:
        assert server.ready(timeout=120)
        children = {}
        for root, code in ((base, "0"), (head, "3")):
            child = server.fork("probe_mod", ["-k", "x y"], root, _env(root, PROBE_VALUE=root.name, PROBE_EXIT=code),
                                tmp_path / f"{root.name}.log")
            assert child is not None
            children[root.name] = child
        assert children["base"].wait(timeout=120) == 0 and children["head"].wait(timeout=120) == 3
        assert children["head"].poll() == 3
        for root in (base, head):
            out = (tmp_path / f"{root.name}.log").read_text()
            said = json.loads(out.splitlines()[0])
            assert said == {"cwd": str(root), "path0": str(root), "argv": ["-k", "x y"], "name": "__main__",
                            "env": root.name, "front": f"{root / 'src'}{os.pathsep}{root}", "tree": root.name,
                            "preloaded": True}
            assert "to stderr" in out  # both streams in the worker's output file, as a fresh one's are
    finally:
        server.close()
    assert server.process.returncode == 0


def test_a_child_is_stopped_by_its_parent_and_by_the_servers_end(tmp_path: Path):
    (tmp_path / "waits.py").write_text("import time\ntime.sleep(600)\n")
    server = Zygote([], dict(os.environ), tmp_path / "server.log")
    assert server.ready(timeout=120)
    first = server.fork("waits", [], tmp_path, dict(os.environ), tmp_path / "a.log")
    second = server.fork("waits", [], tmp_path, dict(os.environ), tmp_path / "b.log")
    assert first is not None and second is not None and first.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        first.wait(timeout=0.1)
    first.terminate()
    assert first.wait(timeout=60) == -signal.SIGTERM
    server.close()  # the end of its input: the child still running is killed, never left behind
    assert second.wait(timeout=60) == -signal.SIGKILL
    with pytest.raises(ProcessLookupError):
        os.kill(second.pid, 0)


def test_a_server_that_cannot_import_says_so_and_ends(tmp_path: Path):
    server = Zygote(["no_such_module_here"], dict(os.environ), tmp_path / "server.log")
    assert not server.ready(timeout=120)
    assert server.process.poll() is not None
    assert server.fork("json", [], tmp_path, dict(os.environ), tmp_path / "x.log") is None


def test_the_server_imports_nothing_of_measurefirst(tmp_path: Path):
    # a tree that is measurefirst itself gets its own copy in its worker: the server is standalone
    (tmp_path / "mods.py").write_text("import sys\nprint(sorted(m for m in sys.modules if 'measurefirst' in m))\n")
    server = Zygote([], dict(os.environ), tmp_path / "server.log")
    try:
        assert server.ready(timeout=120)
        child = server.fork("mods", [], tmp_path, dict(os.environ), tmp_path / "mods.log")
        assert child is not None and child.wait(timeout=60) == 0
        assert (tmp_path / "mods.log").read_text().strip() == "[]"
    finally:
        server.close()


def test_a_pools_workers_are_forked_from_its_server_and_fresh_without_one(tmp_path: Path, monkeypatch):
    from measurefirst.tools.pool import Side, WorkerPool
    from measurefirst.tools.zygote import ForkedChild

    base, head = _trees(tmp_path)
    sides = [Side(root.name, (sys.executable, "-m", "probe_mod"), root, _env(root, PROBE_VALUE=root.name))
             for root in (base, head)]
    for switch, kind in (("1", ForkedChild), ("0", subprocess.Popen)):
        monkeypatch.setenv("MEASUREFIRST_FORK_SERVER", switch)
        pool = WorkerPool(tmp_path, reply_timeout_s=60, name=f"fork{switch}")
        try:
            pool.serve_forks(sides)
            pool.forks_ready()
            assert (pool.zygote is not None) == (switch == "1")
            workers = [pool.start(s.name, s.argv, s.cwd, s.env) for s in sides]
            assert all(isinstance(w.process, kind) for w in workers)
            assert [w.process.wait(timeout=120) for w in workers] == [0, 0]
            for w, root in zip(workers, (base, head)):  # the same worker either way: its tree, its variables
                said = json.loads(w.tail().splitlines()[0])
                assert said["tree"] == said["env"] == root.name and said["cwd"] == str(root)
                assert w.log.name == f"fork{switch}-{root.name}-{workers.index(w)}.log"
        finally:
            pool.close()
