"""The fresh worker process: ``python -m measurefirst.measure._worker noise REQUEST`` or ``... bench PAYLOAD``.

* ``noise``: benchmark every workload of the JSON ``REQUEST`` (``workloads``: ``[kind, seconds]`` pairs,
  ``budget``: seconds each, ``threads``: torch threads) and print one JSON line ``{"results": {id:
  {"median": seconds, "within_cv": spread or null}}}`` (see :mod:`measurefirst.measure.noise`).
* ``serve``: a worker of ``measurefirst compare --against`` (:func:`serve_main`).
* ``bench``: read the pickled payload at ``PAYLOAD`` (see :mod:`measurefirst.measure.workers`), rebuild the
  parent's ``__main__`` as multiprocessing's spawn does, unpickle the function, run ``benchmark()`` with
  the options given and write the Measurement's JSON (or ``{"error": ...}``) to the payload's
  ``result`` path. Exit 0 with a result, 1 when the function raised, 3 when it could not be loaded.

This module is never imported by the parent (only run); it imports the engine.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable


def busy_wait(ns: int) -> Callable[[], None]:
    """A pure-Python busy-wait of ``ns`` nanoseconds on the host clock."""
    from .timers import host_clock

    clock = host_clock()

    def python_busy_wait() -> None:
        end = clock() + ns
        while clock() < end:
            pass

    return python_busy_wait


def workload(kind: str, seconds: float | None) -> Callable[[], object]:
    """The call a workload of :data:`measurefirst.measure.noise.WORKLOADS` times."""
    import torch

    if kind == "python":
        assert seconds is not None
        return busy_wait(int(round(seconds * 1e9)))
    if kind == "dispatch":
        x = torch.ones(1)
        return lambda: torch.add(x, x)
    if kind == "compute":
        a = torch.randn(256, 256)
        return lambda: a @ a
    if kind == "memory":
        src = torch.randn(8 * 1024 * 1024)  # 32 MiB of float32
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)
    raise ValueError(f"unknown workload kind {kind!r}")


def noise_main(request: str) -> int:
    import torch

    from .engine import benchmark
    from .noise import workload_id

    req = json.loads(request)
    torch.set_num_threads(int(req["threads"]))
    out: dict[str, Any] = {}
    for kind, seconds in req["workloads"]:
        m = benchmark(workload(kind, seconds), device="cpu", budget=float(req["budget"]), noise_profile=False,
                      label=workload_id(kind, seconds))
        rr = m.run_to_run
        out[workload_id(kind, seconds)] = {"median": m.median, "within_cv": None if rr is None else rr.cv}
    sys.stdout.write(json.dumps({"results": out}) + "\n")
    sys.stdout.flush()
    return 0


def bench_main(payload_path: str) -> int:
    import pickle

    with open(payload_path, "rb") as f:
        data = pickle.load(f)
    result_path = data["result"]

    def finish(obj: dict[str, Any] | str, code: int) -> int:
        with open(result_path, "w", encoding="utf-8") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj))
        return code

    sys.path[:] = list(data["sys_path"])
    os.chdir(data["cwd"])
    try:
        from . import _counters

        _counters._fixup_main(data)
        fn = pickle.loads(data["fn"])
        kwargs = pickle.loads(data["kwargs"])
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        return finish({"error": "load", "message": f"{type(exc).__name__}: {exc}"}, 3)
    import torch

    from .engine import BenchmarkError, benchmark

    torch.set_num_threads(int(data["threads"]))
    open(f"{result_path}.started", "w").close()  # the parent now allows the budget, not the start-up's grace
    try:
        m = benchmark(fn, noise_profile=False, **kwargs)
    except BenchmarkError as exc:
        return finish({"error": "call", "message": str(exc)}, 1)
    return finish(m.to_json(indent=None), 0)


def serve_main() -> int:
    """``serve``: a worker of ``measurefirst compare --against`` (see :mod:`measurefirst.tools.against`).
    It connects back, takes the targets (``kind, where, name`` as :class:`~measurefirst.measure._counters.Target`
    rebuilds them, a file's path relative to this worker's folder, which is the same place in its tree),
    and for each ``("measure", i)`` loads target ``i`` with its first (cold) call, says ``ready`` and
    serves its sampler; ``("end", i, outcome, words)`` after it, ``bye`` ends the worker."""
    import torch

    from ._counters import Target
    from .devices import environment
    from ..results.kinds import CompileEvent
    from .engine import Options, Sampler, choose_device
    from .placement import intra_op_threads
    from .remote import ENV_VAR, connect_back, serve
    from .timers import make_timer

    conn, token, side = connect_back(os.environ[ENV_VAR])
    conn.send(("hello", token, side, os.getpid()))  # torch is imported: ready to measure
    _, specs, device, timer_kind, threads = conn.recv()
    if threads:
        torch.set_num_threads(int(threads))
    targets = [Target(kind, os.path.abspath(where) if kind == "file" else where, name, tuple(setups), device)
               for kind, where, name, setups in specs]
    while True:
        message = conn.recv()
        if message[0] != "measure":
            return 0
        i = int(message[1])
        try:
            compiles: list[list[CompileEvent]] = []
            targets[i].load()  # its import-time thread settings hold before serve() places the worker
            dev, colds, _ = choose_device([targets[i]], None, device, compiles=compiles)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - the target failed to load or on its first call
            cause = exc.__cause__ or exc
            conn.send(("end", i, "failed", f"{type(cause).__name__}: {cause}"))
            continue
        timer, env, fn = make_timer(dev, timer_kind), environment(dev), targets[i]

        cold_compiles = compiles[0] if compiles else []

        def make(o: dict[str, Any]) -> Sampler:
            return Sampler(fn, timer, Options(precision=float(o["precision"]), budget=float(o["budget"]),
                                              min_time=float(o["min_time"])), label=side, device=dev, env=env,
                           cold_compiles=cold_compiles)

        conn.send(("ready", i, str(i), "cli", colds[0], {"threads": intra_op_threads()}))
        serve(conn, make)
        conn.send(("end", i, "passed", ""))


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "noise":
        return noise_main(argv[1])
    if len(argv) == 2 and argv[0] == "bench":
        return bench_main(argv[1])
    if argv == ["serve"]:
        return serve_main()
    sys.stderr.write("usage: python -m measurefirst.measure._worker noise REQUEST | bench PAYLOAD | serve\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
