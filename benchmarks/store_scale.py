"""Does the results store answer as fast at 100,000 runs as at 1,000? Both backends, as users run it.

    python benchmarks/store_scale.py                          # SQLite and PostgreSQL, 1,000 / 10,000 / 100,000 runs
    python benchmarks/store_scale.py --sizes 1000,10000 --backends sqlite     # quicker
    python benchmarks/store_scale.py --log                    # also write docs/store-scale-DATE.txt
    python benchmarks/store_scale.py --sizes 100000 --backends sqlite --keep /tmp/mf-scale   # build once, reuse

The runs: 50 benchmark names (bench0..bench49), saved in turn, each run of a name a real default-options
measurement of this machine (``benchmark(fn)`` with every option at its default; a pool of a few
workloads measured once at the start, their compact sizes printed). The store is filled up to each
size through the store's own insert (``Store._write_rows``: the statements and the compact form that
``Store.save`` writes, 1,000 runs per transaction, each workload packed once); ``save`` is then timed
apart, as users call it: single ``Store.save`` calls, each its own transaction, into the full store.

Printed per backend and size: the median of 20 saves (ms), the median of 3 runs of each command in a
new process (after one untimed run, with the bytecode cached; CLI start-up included, as users run it: ``measurefirst runs``, ``history bench7``,
``compare @bench7`` and ``report @bench7 -o r.html``), the store's size per run (SQLite: the file
after a checkpoint; PostgreSQL: the runs' and results' tables with their indexes and TOAST), and, for
scale, ``measurefirst --version`` (the start-up alone, measured beside them: on a loaded machine it
is most of each command's time); then the store's part of ``runs``, ``history`` and ``compare`` timed
inside this process (new connection each time), which shows what grows with the store.
PostgreSQL runs on a throwaway local server started from the installed binaries (tests/pg_server.py).
With ``--keep DIR`` (SQLite only) the store is kept in DIR and reused by the next run: a size it already
holds is not filled again, and the saves timed there are deleted afterwards, so it keeps its size.
This is a script, not a test: the machine's load decides the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

NAMES = 50
BATCH = 1000
SAVES = 20
REPEATS = 3


def pool() -> list:
    """Real default-options measurements of a few workloads (each measured once)."""
    import torch

    from measurefirst import benchmark

    torch.set_num_threads(1)
    a, x, v = torch.randn(128, 128), torch.randn(1024), torch.randn(2**20)
    work = {"matmul128": lambda: a @ a, "add1k": lambda: x + 1, "sum1M": lambda: v.sum(),
            "pysum100": lambda: sum(range(100))}
    return [benchmark(fn, label=label) for label, fn in work.items()]


def columns(m, name: str) -> tuple:
    from measurefirst.results.store import summary_of

    env = m.env or {}
    return (name, env.get("timestamp"), m.device, env.get("device_name"), env.get("hostname"), "bench",
            m.median, m.ci[0] if m.ci else None, m.ci[1] if m.ci else None, m.n_samples, int(m.complete), m.kind,
            summary_of(m))


def fill(store, start: int, stop: int, packed: list) -> None:
    """Runs ``start`` to ``stop`` of the series, through the store's insert, BATCH per transaction."""
    for first in range(start, stop, BATCH):
        rows = []
        for i in range(first, min(stop, first + BATCH)):
            m, data = packed[i % NAMES % len(packed)]  # each name, one workload
            rows.append((columns(m, f"bench{i % NAMES}"), data))
        store._write_rows(rows)


def cli(where: str | None, folder: Path, *args: str) -> float:
    """Median wall seconds of REPEATS runs of ``measurefirst ARGS --store WHERE`` in a new process, after
    one untimed run: with the modules' bytecode cached, as an installed package has it (a
    PYTHONDONTWRITEBYTECODE of this shell would have every start compile them all again)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times = []
    for _ in range(REPEATS + 1):
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "measurefirst", *args, *(["--store", where] if where else [])],
                              cwd=folder, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if done.returncode != 0:
            raise SystemExit(f"measurefirst {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return statistics.median(times[1:])


def in_process(where: str) -> tuple[float, float, float]:
    """Seconds of the store's part of ``runs``, ``history bench7`` and ``compare @bench7`` in this process
    (the latest 20 rows and whether there are more; the table of the latest 20 runs of bench7, from their
    columns; its two latest runs and the spread), each the
    median of REPEATS, on a new connection: what grows with the store, if anything does."""
    from measurefirst.results.history import load_history_table
    from measurefirst.results.loading import check_saved
    from measurefirst.results.store import Store

    def timed(fn) -> float:
        times = []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    def listing() -> None:
        with Store(where, create=False) as s:
            s.list(limit=21)

    def history() -> None:
        with Store(where, create=False) as s:
            load_history_table(s, "bench7", 20)

    return timed(listing), timed(history), timed(lambda: check_saved(["@bench7"], store=where))


def size_bytes(store) -> int:
    if store.backend == "sqlite":
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return int(Path(store.path).stat().st_size)
    return int(store.conn.execute("SELECT pg_total_relation_size('runs') + pg_total_relation_size('run_data')")
               .fetchone()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--backends", default="sqlite,postgresql")
    ap.add_argument("--log", action="store_true", help="also write the output to docs/store-scale-DATE.txt")
    ap.add_argument("--keep", metavar="DIR", help="keep the SQLite store in DIR and reuse it next time "
                    "(a size it holds already is not filled again)")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    from measurefirst.results.compact import pack
    from measurefirst.results.store import Store

    measured = pool()
    packed = [(m, pack(json.loads(m.to_json(indent=None)))) for m in measured]
    say("default-options runs (the pool), stored size:")
    for m, data in packed:
        say(f"  {m.label:10s} {m.n_samples:5d} samples, {len(m.warmup.times_ns) if m.warmup else 0:5d} warm-up calls: "
            f"JSON {len(m.to_json(indent=None)) / 1024:6.1f} KiB -> compact {len(data) / 1024:4.1f} KiB")
    for backend in args.backends.split(","):
        kept = args.keep is not None and backend == "sqlite"
        folder = Path(args.keep) if kept else Path(tempfile.mkdtemp(prefix="mf-scale-"))
        folder.mkdir(parents=True, exist_ok=True)
        server = None
        if backend == "sqlite":
            where = str(folder / "results.db")
        else:
            import pg_server

            server = pg_server.start()
            if isinstance(server, str):
                say(f"{backend}: skipped ({server})")
                continue
            where = server.fresh_schema()
        say(f"\n{backend}: {'runs':>7s} {'save ms':>8s} {'runs s':>7s} {'history s':>9s} {'compare s':>9s} "
            f"{'report s':>8s} {'KiB/run':>8s} {'start-up s':>10s} | in process, ms: {'runs':>6s} {'history':>7s} "
            f"{'compare':>7s}")
        try:
            with Store(where) as store:
                have = store.count()
                for n in sizes:
                    if have > n:
                        say(f"{'':{len(backend)}s}  {n:7d} skipped: the kept store holds {have} runs")
                        continue
                    reused = have == n
                    fill(store, have, n - SAVES, packed)
                    saves, saved = [], []
                    for i in range(SAVES):
                        k = (n - SAVES + i) % NAMES
                        m = measured[k % len(measured)]
                        t0 = time.perf_counter()
                        saved.append(store.save(m, f"bench{k}", commit="bench"))
                        saves.append(time.perf_counter() - t0)
                    if reused:  # the kept store keeps its size
                        for run_id in saved:
                            store.delete(run_id)
                    have = n
                    t_runs = cli(where, folder, "runs")
                    t_hist = cli(where, folder, "history", "bench7")
                    t_cmp = cli(where, folder, "compare", "@bench7")
                    t_rep = cli(where, folder, "report", "@bench7", "-o", "r.html")
                    t_start = cli(None, folder, "--version")
                    p_runs, p_hist, p_cmp = in_process(where)
                    say(f"{'':{len(backend)}s}  {n:7d} {statistics.median(saves) * 1e3:8.1f} {t_runs:7.2f} "
                        f"{t_hist:9.2f} {t_cmp:9.2f} {t_rep:8.2f} {size_bytes(store) / n / 1024:8.2f} {t_start:10.2f} | "
                        f"{'':16s}{p_runs * 1e3:6.1f} {p_hist * 1e3:7.1f} {p_cmp * 1e3:7.1f}")
        finally:
            if server is not None:
                server.stop()
            if not kept:
                shutil.rmtree(folder, ignore_errors=True)
    if args.log:
        path = ROOT / "docs" / f"store-scale-{time.strftime('%Y-%m-%d')}.txt"
        path.write_text("$ python benchmarks/store_scale.py " + " ".join(sys.argv[1:]) + "\n" + "\n".join(lines) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
