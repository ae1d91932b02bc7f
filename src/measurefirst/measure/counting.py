"""Deterministic counts for CI gates: the user-space instructions that calls of a function execute.

``benchmark(fn, count="instructions")`` (and ``measurefirst bench --count instructions``) count
instead of timing. The rules:

* **A fresh process.** The function is pickled and run in a new interpreter with the parent's
  ``sys.path`` and working directory (a function of a script's ``__main__`` is found the way
  multiprocessing's spawn finds it), ``PYTHONHASHSEED=0`` (dict and set order, and so the work,
  do not change from run to run) and one thread (``OMP_NUM_THREADS=1``, ``torch.set_num_threads(1)``:
  instruction counts of a thread pool depend on who wins each race). Lambdas and closures pickle
  only with ``cloudpickle`` installed; otherwise pass a module-level function.
* **Warm-up, then counts.** ``warmup`` calls uncounted; then ``repeats + 1`` repeats, the first
  discarded (first-time paths), each counting an *empty* bracket (the counter's own start and stop)
  and a bracket of ``calls`` calls; a repeat's count is the difference. Garbage collection is off
  while counting.
* **Backends.** ``"perf"``: hardware counters through ``perf_event_open`` (user space only, the
  calling thread), when the kernel allows it (``kernel.perf_event_paranoid`` ≤ 2 and a probe that
  reads a non-zero count). ``"callgrind"``: the child runs under ``valgrind --tool=callgrind`` with
  instrumentation off until the function is warm, and collection toggled around each bracket by
  client requests (about 50-100x slower than native while counting). ``"auto"`` takes perf where it
  works, else callgrind, else raises :class:`CountError` naming the fix.

Counts do not drift with load, so regression checks on them use a tight threshold
(:data:`~measurefirst.results.regression_checks.COUNT_THRESHOLD`).
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from . import _counters
from ..results.kinds import Count

EVENTS = ("instructions",)
BACKENDS = ("auto", "perf", "callgrind")
#: Defaults: calls per repeat, repeats, and warm-up calls before counting.
DEFAULT_CALLS = 10
DEFAULT_REPEATS = 3
DEFAULT_WARMUP = 3
#: Seconds the child may take (callgrind runs the function 50-100x slower than native).
CHILD_TIMEOUT_SECONDS = 900.0


class CountError(RuntimeError):
    """Counting cannot be done as asked; the message says what to do."""


class CountedCallRaised(Exception):
    """The counted function raised in the counting process (its message); ``benchmark(count=...)``
    raises it as a :class:`~measurefirst.measure.engine.BenchmarkError`."""


def valgrind_path() -> str | None:
    return shutil.which("valgrind")


def backend_problems() -> dict[str, str | None]:
    """For each backend, None when it works here, else why not (with the fix)."""
    why_cg = _counters.callgrind_supported_machine()
    if why_cg is None and valgrind_path() is None:
        why_cg = "valgrind is not installed (Debian/Ubuntu: apt-get install valgrind)"
    return {"perf": _counters.probe_perf(), "callgrind": why_cg}


def choose_backend(backend: str) -> str:
    """The backend to use: ``backend`` if it works here, or for ``"auto"`` perf, then callgrind."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    problems = backend_problems()
    if backend != "auto":
        why = problems[backend]
        if why is not None:
            raise CountError(f"cannot count with {backend}: {why}")
        return backend
    for name in ("perf", "callgrind"):
        if problems[name] is None:
            return name
    raise CountError("cannot count instructions on this machine: hardware counters: "
                     f"{problems['perf']}; callgrind: {problems['callgrind']}. Install valgrind "
                     "(apt-get install valgrind) or run where the kernel exposes counters")


def _pickle_function(fn: Callable[[], object], label: str) -> bytes:
    try:
        return pickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as plain:
        try:
            import cloudpickle  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            raise CountError(
                f"count={EVENTS[0]!r} runs {label!r} in a fresh process (under valgrind where there are no "
                f"hardware counters), so the function must pickle: {type(plain).__name__}: {plain}. Pass a "
                "module-level function (functools.partial of one works), or pip install cloudpickle to send "
                "lambdas and closures") from plain
        try:
            data: bytes = cloudpickle.dumps(fn, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - cloudpickle's errors vary
            raise CountError(f"cannot send {label!r} to the counting process: {type(exc).__name__}: {exc}") from exc
        return data


def main_reference() -> dict[str, str]:
    """How a child process finds the parent's ``__main__`` (as multiprocessing's spawn does): the counting
    process here, the fresh workers of ``benchmark(processes=K)`` (:mod:`measurefirst.measure.workers`)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and getattr(spec, "name", None) and spec.name != "__main__":
        return {"main_name": spec.name}
    path = getattr(main, "__file__", None)
    if path and os.path.exists(path):
        return {"main_path": os.path.abspath(path)}
    return {}


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return env


def _read_dump_total(path: Path) -> int:
    """The event total of one callgrind dump file (its ``totals:`` or ``summary:`` line)."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise CountError(f"callgrind wrote no totals to {path}")


def count_events(fn: Callable[[], object], *, label: str, event: str = "instructions", calls: int = DEFAULT_CALLS,
                 repeats: int = DEFAULT_REPEATS, warmup: int = DEFAULT_WARMUP, backend: str = "auto",
                 env: dict[str, Any] | None = None, timeout: float = CHILD_TIMEOUT_SECONDS) -> Count:
    """Count ``event`` over calls of ``fn`` in a fresh process (see the module docstring)."""
    if event not in EVENTS:
        raise ValueError(f"count must be one of {', '.join(repr(e) for e in EVENTS)}; got {event!r}")
    for name, value, minimum in (("calls", calls, 1), ("repeats", repeats, 1), ("warmup", warmup, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    internal = backend == "perf-task-clock"  # the perf plumbing on a software event, for tests
    chosen = backend if internal else choose_backend(backend)
    fn_bytes = _pickle_function(fn, label)
    main = main_reference() if b"__main__" in fn_bytes else {}
    payload = {"sys_path": list(sys.path), "cwd": os.getcwd(), **main, "fn": fn_bytes, "calls": calls, "repeats": repeats, "warmup": warmup,
               "backend": chosen}
    work = Path(tempfile.mkdtemp(prefix="measurefirst-count-"))
    try:
        result_path = work / "result.json"
        payload["result"] = str(result_path)
        (work / "payload.pkl").write_bytes(pickle.dumps(payload))
        child = [sys.executable, "-c", _counters.BOOTSTRAP, os.path.abspath(_counters.__file__),
                 str(work / "payload.pkl")]
        cg_out = work / "callgrind.out"
        if chosen == "callgrind":
            child = [valgrind_path() or "valgrind", "--tool=callgrind", "--instr-atstart=no",
                     "--collect-atstart=no", "--dump-line=no", f"--callgrind-out-file={cg_out}", "-q"] + child
        log = work / "log.txt"
        try:
            with open(log, "wb") as f:
                proc = subprocess.run(child, stdout=f, stderr=subprocess.STDOUT, env=_child_env(), timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise CountError(f"counting {label!r} took over {timeout:g} s ({chosen}); count fewer calls "
                             "(number=... / --number) or a smaller input") from exc
        import json

        if not result_path.exists():
            tail = log.read_text(errors="replace")[-2000:].strip()
            raise CountError(f"the counting process for {label!r} ended (exit {proc.returncode}) without a result: {tail}")
        result = json.loads(result_path.read_text())
        if "error" in result:
            if result["error"] == "call":
                raise CountedCallRaised(result["message"])
            raise CountError(f"the counting process could not load {label!r}: {result['message']}"
                             + (" (the child imports it by name: is it defined at module level, and is its "
                                "module importable from the working directory?)" if result["error"] == "load" else ""))
        if chosen == "callgrind":
            totals = [_read_dump_total(work / f"callgrind.out.{i}") for i in range(1, 2 * (repeats + 1) + 1)]
            empty, full = totals[0::2][1:], totals[1::2][1:]
        else:
            empty, full = result["empty"][:repeats], result["full"][:repeats]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = tuple(max(0, int(f) - int(e)) for f, e in zip(full, empty))
    options = {"count": event, "calls": calls, "repeats": repeats, "warmup": warmup, "backend": chosen,
               "threads": 1, "hash_seed": 0}
    env = dict(env or {})
    if chosen == "callgrind":
        env["valgrind_version"] = _valgrind_version()
    return Count(label=label, event=event, backend=chosen, counts=counts, baselines=tuple(int(e) for e in empty),
                 calls=calls, warmup=warmup, options=options, env=env)


def _valgrind_version() -> str | None:
    try:
        out = subprocess.run([valgrind_path() or "valgrind", "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None
