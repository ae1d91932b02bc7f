"""Seeded fuzzing of the result-file loaders and of ``measurefirst compare A.json B.json``.

Valid files (a measurement, a list of measurements, a comparison, a sweep, a ``runs export``) are
mutated: fields deleted, retyped, set to huge, negative, non-finite or markup values, lists cut or
grown, schema versions changed, the text truncated, bytes flipped, nesting made absurd. The contract:

* the loaders raise ``ValueError`` (nothing else), or return measurements that are fully usable
  (statistics, rendering and strict JSON work);
* the CLI exits 0, 1 or 2, and when 2, prints exactly one line starting with ``error:``; no
  exception escapes ``main``.

Before issue 13 the CLI gave 9 tracebacks in 800 such files, and from_json raised TypeError,
KeyError and IndexError.
"""

import copy
import json
import math
import random

import pytest

from measurefirst.cli.commands import main
from measurefirst.results.loading import load_measurements
from measurefirst.results.kinds import Measurement, parse_json
from measurefirst.measure.simulate import SimWorld
from measurefirst.tools.sweep import SweepResult, sweep

from json_paths import holder, paths, truncate_a_list

N_LOADER = 600
N_CLI = 240
NASTY = [None, True, False, -1, 0, 1, -1e308, 1e308, math.nan, math.inf, -math.inf, "", "x" * 50, [], {}, [None],
         [1, "a"], {"a": 1}, 2**70, -(2**70), 1.5, "[/]", "\x1b[31mred", "NaN", "1"]


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    sim = ["--simulate", "call=10us,noise=0.02,seed=3,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]
    assert main(["bench", *sim, "-o", str(d / "m.json")]) == 0
    assert main(["bench", *sim, "a", "b", "--label", "a", "--label", "b", "-o", str(d / "list.json")]) == 0
    assert main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "x", "--budget", "0.5",
                 "-o", str(d / "c.json")]) == 0
    w = SimWorld(call_ns=1000.0, noise=0.01, seed=4)
    s = sweep(lambda n: w.function(1000.0 * n), [1, 2, 4], timer=w.timer(), device="cpu", min_time=0.0,
              warmup_min_time=0.0, label="simulated")
    (d / "s.json").write_text(s.to_json())
    docs = {name: json.loads((d / f"{name}.json").read_text()) for name in ("m", "list", "c", "s")}
    for name, doc in docs.items():
        assert load_measurements(doc), name  # each original loads
    return d, docs


def _set(doc, path, value):
    holder(doc, path)[path[-1]] = value


def _delete(doc, path):
    holder(doc, path).pop(path[-1])


def mutate(doc, rng):
    """One mutated file, as bytes."""
    doc = copy.deepcopy(doc)
    spots = [p for p, _ in paths(doc) if p]
    op = rng.randrange(10)
    path = rng.choice(spots)
    if op == 0:
        _delete(doc, path)
    elif op in (1, 2, 3):
        _set(doc, path, copy.deepcopy(rng.choice(NASTY)))
    elif op == 4:
        truncate_a_list(doc, rng)
    elif op == 5:
        versions = [p for p, _ in paths(doc) if p and p[-1] == "schema_version"]
        _set(doc, rng.choice(versions), rng.choice([-1, 0, 2, 99, "1", 1.0, True, None, 2**64]))
    elif op == 6:
        kinds = [p for p, _ in paths(doc) if p and p[-1] == "kind"]
        _set(doc, rng.choice(kinds), rng.choice(["measurement", "comparison", "sweep", "profile", None, 1]))
    elif op == 7:
        doc = [doc, copy.deepcopy(doc)] if rng.random() < 0.5 else [doc, 5]
    text = json.dumps(doc)  # NaN and Infinity written as Python's json writes them: not strict JSON
    raw = text.encode()
    if op == 8:
        raw = raw[: rng.randrange(len(raw))]
    elif op == 9:
        i = rng.randrange(len(raw))
        kind = rng.randrange(4)
        if kind == 0:
            raw = raw[:i] + bytes([rng.randrange(256)]) + raw[i + 1:]
        elif kind == 1:
            raw = b"[" * 100_000 + b"]" * 100_000
        elif kind == 2:
            raw = b"\xff\xfe" + raw
        else:
            raw = b""
    return raw


def _usable(m):
    """A loaded measurement must be fully usable: no error later, on use."""
    m.summary, m.median, m.ci, m.used_mask, m.host_median, m.n_preempted, str(m), repr(m)
    json.loads(m.to_json(), parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))


def test_loaders_raise_only_value_error(documents):
    _, docs = documents
    rng = random.Random(13)
    stats = {"mutations": 0, "refused": 0, "loaded": 0}
    failures = []
    for i in range(N_LOADER):
        name = rng.choice(sorted(docs))
        raw = mutate(docs[name], rng)
        stats["mutations"] += 1
        try:
            found = load_measurements(parse_json(raw), "fuzz")
            for m in found:
                _usable(m)
            if isinstance(parse_json(raw), dict) and parse_json(raw).get("kind") == "measurement":
                Measurement.from_json(raw)
            if isinstance(parse_json(raw), dict) and parse_json(raw).get("kind") == "sweep":
                SweepResult.from_dict(parse_json(raw))
            stats["loaded"] += 1
        except ValueError:
            stats["refused"] += 1
        except Exception as exc:  # noqa: BLE001 - the finding
            failures.append(f"#{i} {name}: {type(exc).__name__}: {exc}")
    print(f"\nloader fuzz: {stats}, tracebacks: {len(failures)}")
    assert stats["mutations"] == N_LOADER and stats["refused"] > N_LOADER // 3
    assert failures == []


def test_compare_of_fuzzed_files_never_gives_a_traceback(documents, capsys):
    d, docs = documents
    rng = random.Random(1313)
    target = d / "fuzzed.json"
    stats = {"mutations": 0, 0: 0, 1: 0, 2: 0}
    failures = []
    for i in range(N_CLI):
        name = rng.choice(["m", "m", "list", "c", "s"])
        base = d / f"{name}.json"  # the file as written, against its mutation: labels match
        target.write_bytes(mutate(docs[name], rng))
        argv = ["compare", str(base), str(target)] if rng.random() < 0.5 else ["compare", str(target), str(base)]
        if rng.random() < 0.3:
            argv += ["--json"]
        stats["mutations"] += 1
        try:
            code = main(argv)
        except BaseException as exc:  # noqa: BLE001 - the finding
            failures.append(f"#{i} {name}: {type(exc).__name__}: {exc}")
            capsys.readouterr()
            continue
        captured = capsys.readouterr()
        stats[code] = stats.get(code, 0) + 1
        if code not in (0, 1, 2):
            failures.append(f"#{i} {name}: exit {code}")
        if code == 2:
            lines = captured.err.splitlines()
            if len(lines) != 1 or not lines[0].startswith("error: "):
                failures.append(f"#{i} {name}: exit 2 with {captured.err!r}")
        if "--json" in argv and code != 2:
            json.loads(captured.out, parse_constant=lambda c: failures.append(f"#{i}: {c} in --json output"))
    print(f"\ncompare fuzz: {stats}, tracebacks: {len(failures)}")
    assert stats["mutations"] == N_CLI and stats[2] > N_CLI // 4 and stats[0] > N_CLI // 10
    assert failures == []
