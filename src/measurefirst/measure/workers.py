"""``benchmark(fn, processes=K)``: measure in ``K`` fresh interpreters, as pyperf's workers do.

Repetitions inside one process share its address layout, allocator state and thread placement; a
fresh process draws them anew. So ``processes=K`` starts ``K`` fresh interpreters (spawned, never
forked: a fork copies the parent's address layout), **one after the other** (at the same time they
would compete for the cores), each running ``benchmark()`` with the same options and a ``budget / K``
share of the budget (each process's start-up, importing torch, is not counted: it is not the
function's time). The parent merges what they return into one Measurement (:func:`merge`):

* the samples, loop counts and the rest concatenated in process order; ``repeats`` = the per-process
  sample counts;
* ``run_to_run`` measured from the processes: the sample standard deviation of the log per-process
  medians (``source="processes"``, ``n=K``, the 95% factor for ``K`` values);
* the options of the first process, with ``processes=K``, the whole ``budget`` and the per-process
  ``process_budget``; ``trials``, ``max_samples``, ``min_time`` and ``repeats`` hold per process.

The function travels by reference (pickled: a module-level function, or a callable object whose class
is importable); the worker imports it, rebuilding the parent's ``__main__`` as multiprocessing's spawn
does. A lambda or a closure cannot travel: ``ValueError`` says what to pass instead. The command line
sends statements and ``module:function`` targets as text, which the worker rebuilds
(:class:`measurefirst.measure._counters.Target`). A worker that fails raises ``BenchmarkError`` naming it and
holding its stderr tail; Ctrl-C kills the running worker (``Interrupted`` holds the processes done).

Nothing here imports the engine (the worker, :mod:`measurefirst.measure._worker`, does).
"""

from __future__ import annotations

import json
import math
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from . import progress
from .counting import main_reference
from ..results import defaults
from ..results.kinds import Compiled, Measurement, RunToRun, Stop, spread_from_medians

if TYPE_CHECKING:  # pragma: no cover
    from .options import Options

#: A worker that takes longer than its budget plus this many seconds has hung.
WORKER_GRACE_S = 300.0
#: A worker still measuring this many seconds past its share of the budget, once it has started measuring
#: (imported torch, loaded the function), is stopped: a call that never returns (``time.sleep(1000)`` with
#: ``--budget 2``) must not hold the command for the start-up's grace.
MEASURE_GRACE_S = 60.0
#: Seconds between two looks at a running worker (the wait is counted in these steps: no clock is read
#: outside the timers).
POLL_S = 0.5
#: How much of a failed worker's stderr the error shows (characters, from the end).
STDERR_TAIL_CHARS = 2000


def refusal() -> str:
    """Why a function cannot go to fresh interpreters, and what to do."""
    return ("processes=K runs fn in fresh interpreters; pass a module-level function, or use the CLI: "
            "measurefirst bench 'stmt' -s 'setup' --processes K")


def check_processes(processes: Any) -> int:
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise ValueError(f"processes must be an integer >= 1 (fresh interpreters, one after the other); "
                         f"got {processes!r}")
    return processes


def share_refusal(processes: int, budget: float, option: str = "budget= / --budget") -> str | None:
    """Why ``processes`` fresh interpreters cannot share ``budget`` seconds (each would get less than
    :data:`~measurefirst.results.defaults.MIN_PROCESS_SHARE_S`), and what to give instead (the budget's
    ``option`` as the caller spells it); ``None`` when they can."""
    floor = defaults.MIN_PROCESS_SHARE_S
    if budget / processes >= floor:
        return None
    most = max(1, math.floor(budget / floor + 1e-9))
    return (f"{processes} processes share the budget of {budget:g} s: {budget / processes * 1e3:.3g} ms each, less "
            f"than the {floor * 1e3:g} ms a process needs to warm up and sample; give a budget of at least "
            f"{processes * floor:g} s ({option}), or at most {most} processes")


def pickled(obj: Any, what: str) -> bytes:
    """``obj`` pickled by reference, or ``ValueError`` (:func:`refusal`) for a lambda or closure."""
    qualname = getattr(obj, "__qualname__", "")
    if isinstance(qualname, str) and ("<lambda>" in qualname or "<locals>" in qualname):
        raise ValueError(f"{what} is {'a lambda' if '<lambda>' in qualname else 'a local function'} "
                         f"({qualname}): {refusal()}")
    try:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ValueError(f"{what} cannot be sent to a fresh interpreter ({type(exc).__name__}: {exc}): "
                         f"{refusal()}") from exc


def run(fn: Callable[[], object], processes: int, opts: "Options", *, label: str, device: Any,
        setup: Callable[[], object] | None, timer: Any, reference: Any, failed: Callable[..., Exception],
        interrupted: Callable[[Measurement | None], BaseException], compile: str | None = None) -> Measurement:
    """Measure ``fn`` in ``processes`` fresh interpreters and merge (see the module docstring).
    ``compile``: a torch.compile mode each worker compiles ``fn`` with, all of them on one inductor cache
    made empty for this call: the first process's compile is a cold one, the next ones' warm.
    ``failed(message, label=, phase=, index=, partial=)`` and ``interrupted(partial)`` make the errors
    raised (the engine's ``BenchmarkError`` and ``Interrupted``: passed in, so that this module does not
    import the engine)."""
    k = check_processes(processes)
    refused = share_refusal(k, opts.budget)
    if refused is not None:
        raise ValueError(refused)
    if not isinstance(timer, str):
        raise ValueError("processes=K measures in fresh interpreters, each with its own clock; drop the "
                         "Timer instance (timer='auto', 'wall' or 'event')")
    fn_bytes = pickled(fn, f"fn {label!r}")
    options = {f.name: getattr(opts, f.name) for f in fields(opts)}
    options["budget"] = opts.budget / k
    kwargs = {**options, "label": label, "device": str(device), "timer": timer,
              "setup": setup, "reference": reference, "compile": compile or False}
    if setup is not None:
        pickled(setup, "setup")
    if callable(reference):
        pickled(reference, "reference")
    try:
        kw_bytes = pickle.dumps(kwargs, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ValueError(f"the options cannot be sent to a fresh interpreter ({exc}): {refusal()}") from exc
    needs_main = b"__main__" in fn_bytes or b"__main__" in kw_bytes
    import torch

    payload = {"sys_path": list(sys.path), "cwd": os.getcwd(), **(main_reference() if needs_main else {}),
               "fn": fn_bytes, "kwargs": kw_bytes, "threads": int(torch.get_num_threads())}
    done: list[Measurement] = []
    work = Path(tempfile.mkdtemp(prefix="measurefirst-workers-"))
    env = {"TORCHINDUCTOR_CACHE_DIR": str(work / "inductor-cache")} if compile else {}
    grace = WORKER_GRACE_S + (opts.compile_limit if compile else 0.0)
    try:
        for i in range(k):
            progress.report("bench", label, i, k)  # on a terminal: which process of k starts (each a few seconds)
            result = work / f"result-{i}.json"
            (work / "payload.pkl").write_bytes(pickle.dumps({**payload, "result": str(result)}))
            share = opts.budget / k
            marker = Path(f"{result}.started")
            try:
                code, tail = _spawn(work / "payload.pkl", timeout=share + grace, env=env,
                                    measuring=(marker, share + MEASURE_GRACE_S + (opts.compile_limit if compile else 0.0)))
            except KeyboardInterrupt as exc:
                raise interrupted(merge(done, budget=opts.budget, complete=False) if done else None) from exc
            except Overtime as exc:
                partial = merge(done, budget=opts.budget, complete=False) if done else None
                what = (f"was still measuring {exc.seconds:.0f} s after it started (its share of the budget is "
                        f"{share:g} s): a call that never returns, or one longer than the budget allows; it was "
                        f"stopped. Raise --budget (budget=) above the call's time, or measure in this process"
                        if exc.measuring else f"had not finished {exc.seconds:.0f} s after it was started; it was stopped")
                raise failed(f"benchmark {label!r}: worker process {i + 1} of {k} {what}", label=label,
                             phase="worker", index=i, partial=partial) from None
            text = result.read_text(encoding="utf-8") if result.exists() else ""
            data = json.loads(text) if text else {"error": "crash", "message": ""}
            if isinstance(data, dict) and "error" in data:
                partial = merge(done, budget=opts.budget, complete=False) if done else None
                if data["error"] == "call":
                    raise failed(f"{data['message']} (in worker process {i + 1} of {k})", label=label,
                                         phase="worker", index=i, partial=partial)
                why = data.get("message") or exit_words(code)
                raise failed(f"benchmark {label!r}: worker process {i + 1} of {k} failed ({why})"
                                     + (f"; its stderr ends: {tail}" if tail else ""),
                                     label=label, phase="worker", index=i, partial=partial)
            done.append(Measurement.from_json(text))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return merge(done, budget=opts.budget)


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker process: this one's (and ``extra``), with this package first on
    ``PYTHONPATH`` (so that ``python -m measurefirst.measure._worker`` runs this very package)."""
    env = {**os.environ, **(extra or {})}
    src = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([src, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]])
    return env


class Overtime(Exception):
    """A worker stopped for running past its time: ``measuring`` (it had started measuring) and the
    seconds it was given for that phase."""

    def __init__(self, measuring: bool, seconds: float) -> None:
        super().__init__(f"worker stopped after {seconds:g} s {'measuring' if measuring else 'in all'}")
        self.measuring, self.seconds = measuring, seconds


def run_worker(args: Sequence[str], timeout: float, env: dict[str, str] | None = None,
               measuring: tuple[Path, float] | None = None) -> tuple[int, str, str]:
    """Run ``python -m measurefirst.measure._worker ARGS`` in a fresh interpreter to its end: its exit status, its
    stdout and its stderr. Killed on Ctrl-C (the exception goes on) or after ``timeout`` seconds in all, or,
    with ``measuring = (marker, seconds)``, ``seconds`` after the worker created ``marker`` (it started
    measuring): :class:`Overtime`. A worker never outlives the call. :func:`benchmark_in_processes` and the
    noise profile's processes (:func:`measurefirst.measure.noise.measure_profile`) run through it."""
    cmd = [sys.executable, "-m", "measurefirst.measure._worker", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(env), text=True,
                            errors="replace")
    waited = since_start = 0.0
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=POLL_S)  # retried: no output is lost
                return proc.returncode, out, err
            except subprocess.TimeoutExpired:
                waited += POLL_S
                if measuring is not None and measuring[0].exists():
                    since_start += POLL_S
                    if since_start > measuring[1]:
                        raise Overtime(True, measuring[1]) from None
                if waited > timeout:
                    raise Overtime(False, timeout) from None
    except BaseException:  # Ctrl-C or a hang: the worker must not outlive the call
        proc.kill()
        proc.wait()
        raise


def _spawn(payload: Path, timeout: float, env: dict[str, str] | None = None,
           measuring: tuple[Path, float] | None = None) -> tuple[int, str]:
    """Run one worker to its end; its exit status and the tail of its stderr."""
    code, _, err = run_worker(["bench", str(payload)], timeout, env, measuring)
    return code, err.strip()[-STDERR_TAIL_CHARS:]


def exit_words(code: int) -> str:
    """A worker's exit status in words: ``exit 3``, or the signal that killed it by name, a crash in native
    code said as one (``killed by SIGSEGV (a crash in native code...)``)."""
    if code >= 0:
        return f"exit {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"killed by signal {-code}"
    if name in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"):
        return (f"killed by {name}: a crash in native code (a C/C++/CUDA extension, or torch itself); run the "
                f"function once in a plain python to see where")
    if name == "SIGKILL":
        return "killed by SIGKILL (the out-of-memory killer, or another process)"
    return f"killed by {name}"


def process_spread(medians_ns: Sequence[float]) -> RunToRun | None:
    """The run-to-run spread measured by fresh processes (:func:`~measurefirst.results.kinds.spread_from_medians`
    of the per-process medians, source ``"processes"``); None with fewer than two usable medians."""
    return spread_from_medians(medians_ns, "processes")


def _concat(ms: Sequence[Measurement], name: str, fill: float | None) -> tuple[Any, ...] | None:
    """One per-sample field over the processes; None when none has it; ``fill`` for those without (None:
    the field is dropped unless every process has it)."""
    seqs = [getattr(m, name) for m in ms]
    if all(s is None for s in seqs):
        return None
    if fill is None and any(s is None for s in seqs):
        return None
    out: list[Any] = []
    for m, s in zip(ms, seqs):
        out += list(s) if s is not None else [fill] * m.n_samples
    return tuple(out)


def merge(ms: Sequence[Measurement], *, budget: float | None = None, complete: bool = True) -> Measurement:
    """One Measurement from the measurements of fresh processes (see the module docstring). Pure: no
    process is started. ``budget``: the whole budget they shared (default: the sum of theirs)."""
    if not ms:
        raise ValueError("merge needs at least one measurement")
    first = ms[0]
    k = len(ms)
    samples = tuple(x for m in ms for x in m.samples_ns)
    numbers = tuple(x for m in ms for x in m.numbers)
    medians = [m.median * 1e9 for m in ms]
    stops = [m.stop for m in ms]
    reasons = {s.reason for s in stops}
    stop = Stop(reason=stops[-1].reason if len(reasons) > 1 else stops[0].reason,
                target_met=all(s.target_met for s in stops), precision=first.stop.precision,
                seconds=sum(s.seconds for s in stops))
    per_process = first.options.get("budget")
    total = budget if budget is not None else sum(float(m.options.get("budget", 0.0)) for m in ms)
    options = {**first.options, "processes": k, "budget": total, "process_budget": per_process}
    return Measurement(
        label=first.label, device=first.device, timer=first.timer, samples_ns=samples, numbers=numbers,
        host_ns=_concat(ms, "host_ns", None), preempted=_concat(ms, "preempted", -1),
        warmup=first.warmup, calibration=first.calibration, stop=stop, options=options,
        env={**first.env, "processes": k}, complete=complete and all(m.complete for m in ms),
        discard_preempted=first.discard_preempted, synced_ns=_concat(ms, "synced_ns", None),
        reference=None, run_to_run=process_spread(medians) if k > 1 else first.run_to_run,
        repeats=tuple(m.n_samples for m in ms) if k > 1 else first.repeats,
        compiled=_compiled(ms),
    )


def _compiled(ms: Sequence[Measurement]) -> Compiled | None:
    """The compiles of fresh processes in one record: their events in process order, and each process's
    compile before sampling with its cache's state (``per_process``)."""
    parts = [m.compiled for m in ms]
    if all(c is None for c in parts):
        return None
    if len(ms) == 1:
        return parts[0]
    return Compiled(calls_s=sum(c.calls_s for c in parts if c is not None),
                    events=tuple(e for c in parts if c is not None for e in c.events),
                    resampled=sum(c.resampled for c in parts if c is not None),
                    per_process=tuple((c.first_s, c.cache) if c is not None else (0.0, "none") for c in parts))


__all__ = ["run", "merge", "process_spread", "pickled", "refusal", "check_processes", "share_refusal"]
