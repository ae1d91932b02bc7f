"""A fork server per worker pair of ``--mf-against`` (and ``compare --against``, ``bisect``): one fresh
interpreter imports torch and pytest once, and both workers of the pair are forked from it.

Why: a worker's start-up is most of the gate's fixed cost, and most of a start-up is importing torch
(1.4 s of CPU here, of about 2 s for a pytest worker). A pair forked from one server pays it once.
Why per pair and not one server for all: children of one interpreter keep its mode (address layout,
allocator state; measured here, five children of one interpreter timed a 1-element add within 0.2-0.5%
of each other where fresh interpreters spread over 1%), so pairs forked from one server would not be
independent draws and the interval between pairs would be too narrow. Each pair's server is a fresh
interpreter, so the pairs still draw their modes independently; inside a pair, base and head now share
one mode, which is what an A/B pair wants (a layout that favours one side is no longer drawn per side).

What is imported in the server is only what neither tree provides (:func:`preloadable`: torch, pytest and,
for pytest's workers, measurefirst's plugin): a tree that holds torch or pytest (a checkout of either) gets
fresh interpreters (one that holds measurefirst, a server without measurefirst), as does any platform other than
Linux (fork after importing torch is what its DataLoader does there; macOS's runtime does not allow it), and
``MEASUREFIRST_FORK_SERVER=0``. A server that fails to start or import is replaced by fresh
interpreters for its pair, and its output kept beside the workers'.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import IO, Any, Mapping, Protocol, Sequence

#: What a server imports before it forks, where neither tree provides it (torch imports numpy).
PRELOAD = ("torch", "pytest")
#: And what the workers of a module (``python -m MODULE``) import of measurefirst, where neither tree provides
#: measurefirst: a pytest worker loads measurefirst's plugin, and pytest rewrites the asserts of every module of
#: a plugin's package as it imports them, anew in every worker where bytecode is not written
#: (``PYTHONDONTWRITEBYTECODE``, common in CI containers): measured here, two forked pytest workers took 1.06-1.19
#: s to collect the gate's suite, 0.46-0.54 s with the plugin imported in their server.
FOR_WORKERS: dict[str, tuple[str, ...]] = {
    "pytest": ("measurefirst.pytest.plugin",),
    "measurefirst.measure._worker": ("measurefirst.measure.engine", "measurefirst.measure.remote")}
#: ``0`` in the environment: every worker a fresh interpreter (no fork server).
ENV_SWITCH = "MEASUREFIRST_FORK_SERVER"
#: Seconds a server may take to import :data:`PRELOAD` (importing torch on a busy machine is slow).
READY_TIMEOUT_S = 300.0
#: Seconds a server may take to answer a fork.
FORK_TIMEOUT_S = 60.0
#: Seconds between two looks at a child whose server is gone (a server says each child's end at once).
WAIT_STEP_S = 0.05


class Process(Protocol):
    """What the workers' code needs of a process: :class:`subprocess.Popen`, or :class:`ForkedChild`."""

    @property
    def pid(self) -> int: ...
    def poll(self) -> int | None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...


def enabled(env: Mapping[str, str]) -> bool:
    """Whether workers may be forked here: Linux, and not switched off (:data:`ENV_SWITCH`)."""
    return sys.platform.startswith("linux") and env.get(ENV_SWITCH, "1") != "0" and hasattr(os, "fork")


def _provides(root: Path, module: str) -> bool:
    top = module.split(".")[0]
    return any((base / name).exists() for base in (root, root / "src") for name in (top, f"{top}.py"))


def preloadable(roots: Sequence[Path], worker: str | None = None) -> list[str]:
    """The modules of :data:`PRELOAD` (and of :data:`FOR_WORKERS` for workers that run ``python -m worker``)
    that none of ``roots`` (the trees, their folders on ``PYTHONPATH``) provides, and that are installed
    elsewhere: what a fresh worker would import from the same place."""
    out = []
    for name in (*PRELOAD, *FOR_WORKERS.get(worker or "", ())):
        if any(_provides(root, name) for root in roots):
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        origin = Path(spec.origin).resolve() if spec is not None and spec.origin else None
        if origin is None or any(origin.is_relative_to(root.resolve()) for root in roots):
            continue  # not installed, or installed from one of the trees (an editable install)
        out.append(name)
    return out


def tree_roots(sides: Sequence[tuple[Path, Mapping[str, str]]]) -> list[Path]:
    """The folders that tell the sides apart: each side's folder, and the ``PYTHONPATH`` entries that not
    every side has (the trees' own)."""
    paths = [[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p] for _, env in sides]
    common = set.intersection(*(set(p) for p in paths)) if paths else set()
    return sorted({cwd for cwd, _ in sides} | {Path(p) for ps in paths for p in ps if p not in common})


class Zygote:
    """One fork server (see the module docstring): started at once, :meth:`ready` waits for its imports."""

    def __init__(self, modules: Sequence[str], env: Mapping[str, str], log: Path) -> None:
        source = (Path(__file__).with_name("_zygote.py")).read_text(encoding="utf-8")
        self.log = log
        with open(log, "wb") as out:
            self.process = subprocess.Popen([sys.executable, "-c", source, json.dumps(list(modules))],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=out,
                                            env=dict(env), text=True)
        self.exits: dict[int, int] = {}
        self._ended = threading.Condition()
        self._replies: Queue[dict[str, Any]] = Queue()
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str] | None) -> None:
        assert stream is not None
        for line in stream:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "exit" in message:
                with self._ended:
                    self.exits[int(message["exit"])] = int(message["code"])
                    self._ended.notify_all()
            else:
                self._replies.put(message)
        self._replies.put({"failed": "the fork server ended"})
        with self._ended:
            self._ended.notify_all()

    def _reply(self, timeout: float) -> dict[str, Any]:
        try:
            return self._replies.get(timeout=timeout)
        except Empty:
            return {"failed": f"the fork server said nothing for {timeout:g} s"}

    def ready(self, timeout: float = READY_TIMEOUT_S) -> bool:
        """Wait until the server has imported its modules: False (and the server stopped) if it failed."""
        if self._reply(timeout).get("ready"):
            return True
        self.close()
        return False

    def fork(self, module: str, args: Sequence[str], cwd: Path, env: Mapping[str, str], log: Path
             ) -> "ForkedChild | None":
        """A child that runs ``python -m module args`` in ``cwd`` with ``env``, its output in ``log``
        (``None``: the server failed; the caller starts a fresh interpreter instead)."""
        request = {"module": module, "args": list(args), "cwd": str(cwd), "env": dict(env), "log": str(log)}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            return None
        reply = self._reply(FORK_TIMEOUT_S)
        return ForkedChild(int(reply["pid"]), self) if "pid" in reply else None

    def status(self, pid: int) -> int | None:
        """A child's exit status once it ended (as :class:`subprocess.Popen` says it), else ``None``."""
        with self._ended:
            if pid in self.exits:
                return self.exits[pid]
        if self.process.poll() is not None and not _alive(pid):
            return -signal.SIGKILL  # the server ended before it could say how its child did
        return None

    def wait_child(self, pid: int, timeout: float | None) -> int:
        """Wait for a child's end (woken by the server's word of it; in steps of 50 ms where the server is
        gone): its status, or :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        waited = 0.0
        while True:
            code = self.status(pid)
            if code is not None:
                return code
            if timeout is not None and waited >= timeout:
                raise subprocess.TimeoutExpired(f"worker {pid}", timeout)
            with self._ended:
                if pid not in self.exits:
                    self._ended.wait(WAIT_STEP_S)
            waited += WAIT_STEP_S

    def close(self) -> None:
        """End the server: the end of its input (it kills any child still running), then, after 10 s, a kill."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ForkedChild:
    """A worker forked by a :class:`Zygote`: what :class:`subprocess.Popen` offers the workers' code."""

    def __init__(self, pid: int, zygote: Zygote) -> None:
        self.pid, self.zygote = pid, zygote

    def poll(self) -> int | None:
        return self.zygote.status(self.pid)

    def _signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        return self.zygote.wait_child(self.pid, timeout)
