"""Low-level event counters for :mod:`measurefirst.measure.counting`, and the child process that uses them.

Standard library only: this file is also loaded by path in a fresh interpreter (the *child*), often
under valgrind, where importing the package (and so torch) would cost tens of seconds.

Two counters of the user-space instructions a stretch of Python executes:

* **hardware counters** through ``perf_event_open(2)`` (via ctypes), for the calling thread only,
  kernel and hypervisor excluded;
* **callgrind** client requests, issued by a few bytes of x86-64 machine code mapped executable and
  called through ctypes (the ``rol rdi`` preamble and ``xchg rbx, rbx`` of ``valgrind.h``), so that
  no compiler and no torch build with valgrind support are needed.

The child protocol: the parent writes a pickled dict (``sys_path``, ``cwd``, ``main_path`` or
``main_name``, ``fn`` as pickled bytes, ``calls``, ``repeats``, ``warmup``, ``backend``, ``result``);
the child imports what the function needs, warms it up, then for each repeat (plus one discarded
first repeat) counts an empty bracket and a bracket of ``calls`` calls, and writes a JSON result.
"""

from __future__ import annotations

import ctypes
import errno
import gc
import json
import mmap
import os
import platform
import struct
import sys
from itertools import repeat as _repeat
from typing import Any, Callable

# ---- perf_event_open ------------------------------------------------------------------------------
PERF_TYPE_HARDWARE = 0
PERF_TYPE_SOFTWARE = 1
PERF_COUNT_HW_INSTRUCTIONS = 1
PERF_COUNT_SW_TASK_CLOCK = 1
#: perf_event_attr as of PERF_ATTR_SIZE_VER0 (every kernel with perf events accepts it).
PERF_ATTR_SIZE = 64
_FLAG_DISABLED, _FLAG_EXCLUDE_KERNEL, _FLAG_EXCLUDE_HV = 1 << 0, 1 << 5, 1 << 6
PERF_FLAG_FD_CLOEXEC = 8
PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_RESET = 0x2400, 0x2401, 0x2403
_PERF_SYSCALL = {"x86_64": 298, "amd64": 298, "aarch64": 241, "arm64": 241}
PARANOID_PATH = "/proc/sys/kernel/perf_event_paranoid"


class CounterUnavailable(OSError):
    """This counter cannot be used here; the message says why and what would fix it."""


class PerfCounter:
    """A user-space event counter of the calling thread (``perf_event_open``, ``pid=0, cpu=-1``)."""

    def __init__(self, event_type: int = PERF_TYPE_HARDWARE, config: int = PERF_COUNT_HW_INSTRUCTIONS) -> None:
        machine = platform.machine().lower()
        nr = _PERF_SYSCALL.get(machine)
        if not sys.platform.startswith("linux") or nr is None:
            raise CounterUnavailable(f"perf_event_open is wired here for Linux on x86-64 and arm64 only "
                                     f"(this is {sys.platform} on {machine})")
        attr = bytearray(PERF_ATTR_SIZE)
        struct.pack_into("=IIQ", attr, 0, event_type, PERF_ATTR_SIZE, config)
        struct.pack_into("=Q", attr, 40, _FLAG_DISABLED | _FLAG_EXCLUDE_KERNEL | _FLAG_EXCLUDE_HV)
        buf = (ctypes.c_char * PERF_ATTR_SIZE).from_buffer(attr)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        fd = libc.syscall(ctypes.c_long(nr), ctypes.byref(buf), ctypes.c_int(0), ctypes.c_int(-1),
                          ctypes.c_int(-1), ctypes.c_ulong(PERF_FLAG_FD_CLOEXEC))
        if fd < 0:
            err = ctypes.get_errno()
            raise CounterUnavailable(f"perf_event_open failed: {errno.errorcode.get(err, err)} ({os.strerror(err)})")
        self.fd = int(fd)

    def _ioctl(self, request: int) -> None:
        import fcntl

        fcntl.ioctl(self.fd, request, 0)

    def reset(self) -> None:
        self._ioctl(PERF_EVENT_IOC_RESET)

    def enable(self) -> None:
        self._ioctl(PERF_EVENT_IOC_ENABLE)

    def disable(self) -> None:
        self._ioctl(PERF_EVENT_IOC_DISABLE)

    def read(self) -> int:
        value: int = struct.unpack("=Q", os.read(self.fd, 8))[0]
        return value

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def perf_paranoid() -> int | None:
    """``kernel.perf_event_paranoid`` (None where it cannot be read)."""
    try:
        with open(PARANOID_PATH) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def probe_perf() -> str | None:
    """None when hardware instruction counts work here; else why not (with the fix)."""
    level = perf_paranoid()
    if level is not None and level > 2:
        return (f"kernel.perf_event_paranoid is {level}: user-space counters are off "
                f"(sysctl kernel.perf_event_paranoid=2 turns them on)")
    try:
        c = PerfCounter()
    except CounterUnavailable as exc:
        return f"{exc}: the kernel exposes no instruction counter here (common in virtual machines)"
    try:
        c.reset()
        c.enable()
        sum(range(1000))
        c.disable()
        if c.read() <= 0:
            return "the instruction counter reads 0 here (a virtual machine without counter passthrough?)"
    finally:
        c.close()
    return None


# ---- callgrind client requests --------------------------------------------------------------------
#: ``uint64_t request(uint64_t *args, uint64_t default)`` for x86-64 (System V): valgrind.h's
#: VALGRIND_DO_CLIENT_REQUEST_EXPR with rax = args, rdx = default, result in rdx.
_X86_64_REQUEST = bytes.fromhex(
    "4889f8"      # mov rax, rdi
    "4889f2"      # mov rdx, rsi
    "48c1c703"    # rol rdi, 3
    "48c1c70d"    # rol rdi, 13
    "48c1c73d"    # rol rdi, 61
    "48c1c733"    # rol rdi, 51
    "4887db"      # xchg rbx, rbx
    "4889d0"      # mov rax, rdx
    "c3"          # ret
)
RUNNING_ON_VALGRIND = 0x1001
_CT = (ord("C") << 24) | (ord("T") << 16)
CALLGRIND_DUMP_STATS, CALLGRIND_ZERO_STATS, CALLGRIND_TOGGLE_COLLECT = _CT, _CT + 1, _CT + 2
CALLGRIND_START_INSTRUMENTATION, CALLGRIND_STOP_INSTRUMENTATION = _CT + 4, _CT + 5


def callgrind_supported_machine() -> str | None:
    """None when client requests can be issued here; else why not."""
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64") or not sys.platform.startswith("linux"):
        return f"callgrind client requests are wired for Linux on x86-64 only (this is {sys.platform} on {machine})"
    return None


class ClientRequests:
    """Valgrind client requests from Python (a no-op returning the default when not under valgrind)."""

    def __init__(self) -> None:
        why = callgrind_supported_machine()
        if why:
            raise CounterUnavailable(why)
        self._mem = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self._mem.write(_X86_64_REQUEST)
        address = ctypes.addressof(ctypes.c_char.from_buffer(self._mem))
        self._fn = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64)(address)
        self._args = (ctypes.c_uint64 * 6)()
        self._ptr = ctypes.addressof(self._args)

    def __call__(self, request: int, default: int = 0) -> int:
        self._args[0] = request
        value: int = self._fn(self._ptr, default)
        return value


# ---- targets the child rebuilds ------------------------------------------------------------------
#: This module's name in the child (loaded by path, outside the package), and its alias in the parent,
#: so that a pickled :class:`Target` refers to it without importing the package.
MODULE_ALIAS = "_measurefirst_counters"
sys.modules.setdefault(MODULE_ALIAS, sys.modules[__name__])


class Target:
    """A function the child process rebuilds on its first call, as the command line loads it:
    ``module:attr`` (``kind="module"``), ``file.py:attr`` (``"file"``), or a statement run in a
    namespace with ``torch`` imported, ``device`` set and the setup statements run (``"statement"``)."""

    def __init__(self, kind: str, where: str, name: str, setups: tuple[str, ...] = (), device: str = "cpu") -> None:
        self.kind, self.where, self.name, self.setups, self.device = kind, where, name, tuple(setups), device
        self._fn: Callable[[], object] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_fn"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._fn = None

    def _load(self) -> Callable[[], object]:
        import importlib
        import importlib.util
        import textwrap

        if self.kind == "statement":
            import torch

            namespace: dict[str, Any] = {"torch": torch, "device": self.device, "__name__": "__measurefirst__"}
            for setup in self.setups:
                exec(compile(textwrap.dedent(setup), "<setup>", "exec"), namespace)
            body = textwrap.indent(textwrap.dedent(self.name).strip() or "pass", "    ")
            exec(compile(f"def __measurefirst_stmt__():\n{body}\n", "<statement>", "exec"), namespace)
            fn: Callable[[], object] = namespace["__measurefirst_stmt__"]
            return fn
        if self.kind == "file":
            spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(self.where))[0], self.where)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(spec.name, module)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(self.where)
        obj: Any = module
        for part in self.name.split("."):
            obj = getattr(obj, part)
        loaded: Callable[[], object] = obj
        return loaded

    def load(self) -> None:
        """Import or build the function now (a module's import-time settings, such as
        ``torch.set_num_threads(1)``, take effect before anything is measured), without calling it."""
        if self._fn is None:
            self._fn = self._load()

    def __call__(self) -> object:
        self.load()
        assert self._fn is not None
        return self._fn()


Target.__module__ = MODULE_ALIAS


# ---- the child -----------------------------------------------------------------------------------
def _fixup_main(data: dict[str, Any]) -> None:
    """Make ``__main__`` of the parent importable here, as multiprocessing's spawn does (the script
    runs under the name ``__mp_main__``, so its ``if __name__ == "__main__":`` block does not)."""
    import runpy
    import types

    path, name = data.get("main_path"), data.get("main_name")
    if not path and not name:
        return
    main = types.ModuleType("__mp_main__")
    if name:
        main.__dict__.update(runpy.run_module(name, run_name="__mp_main__", alter_sys=True))
    else:
        main.__dict__.update(runpy.run_path(str(path), run_name="__mp_main__"))
    sys.modules["__main__"] = sys.modules["__mp_main__"] = main


def _one_thread() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def run_counts(fn: Callable[[], object], *, calls: int, repeats: int,
               start: Callable[[], None], stop: Callable[[], int]) -> tuple[list[int], list[int]]:
    """For ``repeats + 1`` repeats (the first discarded: first-time paths), count an empty bracket
    and a bracket of ``calls`` calls between ``start()`` and ``stop()``. Returns the brackets of
    calls and the empty brackets, first repeat dropped."""

    def bracket(k: int) -> int:
        start()
        for _ in _repeat(None, k):
            fn()
        return stop()

    full, empty = [], []
    for _ in range(repeats + 1):
        empty.append(bracket(0))
        full.append(bracket(calls))
    return full[1:], empty[1:]


def child_main(payload_path: str) -> int:
    import pickle

    with open(payload_path, "rb") as f:
        data = pickle.load(f)
    out = data["result"]

    def finish(result: dict[str, Any], code: int) -> int:
        with open(out, "w") as f:
            json.dump(result, f)
        return code

    sys.path[:] = list(data["sys_path"])
    os.chdir(data["cwd"])
    try:
        _fixup_main(data)
        fn = pickle.loads(data["fn"])
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        return finish({"error": "load", "message": f"{type(exc).__name__}: {exc}"}, 3)
    calls, repeats, warmup, backend = data["calls"], data["repeats"], data["warmup"], data["backend"]
    try:
        _one_thread()
        for _ in range(warmup):
            fn()
        _one_thread()  # the function may have imported torch
    except BaseException as exc:  # noqa: BLE001
        return finish({"error": "call", "message": f"{type(exc).__name__}: {exc}"}, 1)
    gc.collect()
    gc.disable()
    try:
        if backend == "callgrind":
            req = ClientRequests()
            if req(RUNNING_ON_VALGRIND) == 0:
                return finish({"error": "setup", "message": "the child is not running under valgrind"}, 4)
            req(CALLGRIND_START_INSTRUMENTATION)

            def start() -> None:
                req(CALLGRIND_TOGGLE_COLLECT)

            def stop() -> int:
                req(CALLGRIND_TOGGLE_COLLECT)
                req(CALLGRIND_DUMP_STATS)
                return -1  # the counts are in the dump files; the parent reads them

            full, empty = run_counts(fn, calls=calls, repeats=repeats, start=start, stop=stop)
            return finish({"dumps": 2 * (repeats + 1)}, 0)
        event = (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) if backend == "perf-task-clock" else \
            (PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS)
        counter = PerfCounter(*event)

        def pstart() -> None:
            counter.reset()
            counter.enable()

        def pstop() -> int:
            counter.disable()
            return counter.read()

        full, empty = run_counts(fn, calls=calls, repeats=repeats, start=pstart, stop=pstop)
        counter.close()
        return finish({"full": full, "empty": empty}, 0)
    except BaseException as exc:  # noqa: BLE001
        return finish({"error": "call", "message": f"{type(exc).__name__}: {exc}"}, 1)
    finally:
        gc.enable()


#: How the parent starts the child: this file loaded by path, never the package (no torch import).
BOOTSTRAP = ("import sys, importlib.util as u; s = u.spec_from_file_location('_measurefirst_counters', sys.argv[1]); "
             "m = u.module_from_spec(s); sys.modules['_measurefirst_counters'] = m; s.loader.exec_module(m); "
             "sys.exit(m.child_main(sys.argv[2]))")
