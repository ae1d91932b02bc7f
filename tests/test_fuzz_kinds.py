"""Seeded fuzzing of a valid file of *every* result kind (issue 25: 23 of 600 fuzzed files broke the
loader contract, 15 of 731 CLI runs over them ended in a traceback).

Each valid document (one of every kind the report renders, from ``report_kinds``) is mutated: a value
swapped for one of another type (text for a number, a list for text, a number for a list), wrapped in a
list, made huge, NaN, infinite or negative; a key deleted; a list cut; a ``kind`` or ``schema_version``
changed. The contract:

* ``measurefirst.load`` raises ``ValueError`` (nothing else), or returns a result that renders: its text
  view, its HTML report and strict JSON;
* ``measurefirst report FILE``, ``compare FILE FILE`` and ``runs show ID`` (the mutation stored as a run)
  exit 0, 1 or 2, and a 2 is exactly one line starting with ``error:``: no exception escapes ``main``.

Both are seeded and bounded: a fixed number of mutations, and a time limit after which the rest are
skipped (the count run is printed and must reach a floor).
"""

from __future__ import annotations

import copy
import json
import math
import random
import sqlite3
import time

import pytest

import measurefirst
from measurefirst.cli.commands import main
from measurefirst.results.protocol import KINDS
from measurefirst.render.report import report
from measurefirst.render.views import view
from measurefirst.results.store import Store

import report_kinds
from json_paths import holder, paths, truncate_a_list

N_LOADER = 600
N_CLI = 300
TIME_LIMIT_S = 240.0  # generous: the whole test takes well under a minute on two busy cores

HUGE = [2**70, -(2**70), 1e308, -1e308, 10**400 // 10**300]
NASTY = [None, True, False, -1, 0, 1, 1.5, math.nan, math.inf, -math.inf, "", "x" * 50, "1e300", [], {}, [None],
         [[1, 2], [3]], [1, "a"], {"a": 1}, {"kind": []}, "[/]", "\x1b[31mred", "NaN", *HUGE]


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """kind -> a valid stored document of that kind (lists of results as a list)."""
    d = tmp_path_factory.mktemp("kinds")
    docs = {}
    for kind, result in report_kinds.every_kind(d).items():
        items = result if isinstance(result, list) else [result]
        doc = [json.loads(r.to_json()) for r in items]
        docs[kind] = doc if isinstance(result, list) else doc[0]
        assert measurefirst.load(_write(d / f"{kind}.json", docs[kind])), kind  # each original loads
    return d, docs


def _write(path, doc):
    path.write_text(json.dumps(doc))  # NaN and Infinity as Python's json writes them: not strict JSON
    return path


def _swap_type(value, rng):
    """A value of another JSON type that a careless reader might still take."""
    if isinstance(value, bool):
        return rng.choice(["true", 1, [value]])
    if isinstance(value, (int, float)):
        return rng.choice([str(value), [value], {"value": value}, rng.choice(HUGE), -abs(value) - 1, math.nan])
    if isinstance(value, str):
        return rng.choice([[value], 5, 1e300, {"text": value}, [[value]]])
    if isinstance(value, list):
        return rng.choice([5, "list", {"0": value[:1]}, [value], value * 3])
    if isinstance(value, dict):
        return rng.choice([[value], list(value), "dict", 0])
    return rng.choice(NASTY)


def mutate(doc, rng):
    """One mutated document (a deep copy)."""
    doc = copy.deepcopy(doc)
    spots = [p for p, _ in paths(doc) if p]
    path = rng.choice(spots)
    parent = holder(doc, path)
    op = rng.randrange(8)
    if op == 0:
        parent.pop(path[-1])
    elif op in (1, 2):
        parent[path[-1]] = _swap_type(parent[path[-1]], rng)
    elif op == 3:
        parent[path[-1]] = copy.deepcopy(rng.choice(NASTY))
    elif op == 4:
        truncate_a_list(doc, rng)
    elif op == 5:
        versions = [p for p, _ in paths(doc) if p and p[-1] == "schema_version"] or [path]
        holder(doc, p := rng.choice(versions))[p[-1]] = rng.choice([-1, 0, 2, 99, "1", 1.0, True, None, 2**64])
    elif op == 6:
        kinds = [p for p, _ in paths(doc) if p and p[-1] == "kind"] or [path]
        holder(doc, p := rng.choice(kinds))[p[-1]] = rng.choice([*KINDS, [], None, 1])
    else:  # several values at once
        for _ in range(3):
            p = rng.choice(spots)
            try:
                holder(doc, p)[p[-1]] = _swap_type(holder(doc, p)[p[-1]], rng)
            except (KeyError, IndexError, TypeError):
                pass
    return doc


def _renders(result):
    """A loaded result must be fully usable: no error later, when shown."""
    items = result if isinstance(result, list) else [result]
    view(items)
    report(items, generated="2026-01-01T00:00:00+00:00")
    for r in items:
        json.loads(r.to_json(), parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))


def test_loading_every_kind_raises_only_value_error(documents):
    d, docs = documents
    rng = random.Random(25)
    target = d / "fuzzed.json"
    stats = {"mutations": 0, "refused": 0, "loaded": 0}
    failures = []
    deadline = time.monotonic() + TIME_LIMIT_S
    for i in range(N_LOADER):
        if time.monotonic() > deadline:
            break
        kind = rng.choice(sorted(docs))
        _write(target, mutate(docs[kind], rng))
        stats["mutations"] += 1
        try:
            _renders(measurefirst.load(target))
            stats["loaded"] += 1
        except ValueError:
            stats["refused"] += 1
        except Exception as exc:  # noqa: BLE001 - the finding
            failures.append(f"#{i} {kind}: {type(exc).__name__}: {exc}"[:300])
    print(f"\nevery-kind loader fuzz: {stats}, broke the contract: {len(failures)}")
    assert stats["mutations"] >= N_LOADER // 2 and stats["refused"] > stats["mutations"] // 5
    assert failures == [], "\n".join(failures)


def _one_line_or_success(code, err):
    if code not in (0, 1, 2):
        return f"exit {code}"
    if code == 2:
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return f"exit 2 with {err[-300:]!r}"
    return None


def test_cli_verbs_over_fuzzed_files_of_every_kind_give_one_line(documents, capsys, tmp_path):
    d, docs = documents
    rng = random.Random(2525)
    target = tmp_path / "fuzzed.json"
    store_path = tmp_path / "runs.db"
    with Store(store_path) as store:
        run_id = store.save(measurefirst.load(d / "measurement.json")[0], "fuzz")
    stats = {"runs": 0, 0: 0, 1: 0, 2: 0}
    failures = []
    deadline = time.monotonic() + TIME_LIMIT_S
    for i in range(N_CLI):
        if time.monotonic() > deadline:
            break
        kind = rng.choice(sorted(docs))
        doc = mutate(docs[kind], rng)
        verb = rng.choice(["report", "compare", "runs show"])
        if verb == "report":
            argv = ["report", str(_write(target, doc)), "-o", str(tmp_path / "out.html")]
        elif verb == "compare":
            base = d / f"{kind}.json"
            argv = ["compare", str(base), str(_write(target, doc))]
            argv += ["--json"] if rng.random() < 0.3 else []
        else:
            with sqlite3.connect(store_path) as conn:  # the mutation as a stored run, as a damaged store holds it
                conn.execute("UPDATE runs SET kind = ? WHERE id = ?", (str(kind), run_id))
                conn.execute("UPDATE run_data SET data = ? WHERE id = ?", (json.dumps(doc), run_id))
            conn.close()
            argv = ["runs", "show", str(run_id), "--store", str(store_path)]
        stats["runs"] += 1
        try:
            code = main(argv)
        except BaseException as exc:  # noqa: BLE001 - the finding
            capsys.readouterr()
            failures.append(f"#{i} {verb} {kind}: {type(exc).__name__}: {exc}"[:300])
            continue
        captured = capsys.readouterr()
        stats[code] = stats.get(code, 0) + 1
        problem = _one_line_or_success(code, captured.err)
        if problem:
            failures.append(f"#{i} {verb} {kind}: {problem}")
    print(f"\nevery-kind CLI fuzz: {stats}, tracebacks: {len(failures)}")
    assert stats["runs"] >= N_CLI // 2 and stats[2] > stats["runs"] // 5 and stats[0] > stats["runs"] // 10
    assert failures == [], "\n".join(failures)
