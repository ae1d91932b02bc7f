"""A fork server for one pair of ``--mf-against`` workers (run as ``python -c <this file's text> MODULES``):
it imports ``MODULES`` (torch, pytest: what neither tree provides), then forks a worker per request.

Standalone on purpose: it imports nothing of measurefirst but the ``MODULES`` it is given (measurefirst's
only where neither tree provides measurefirst), so that a tree that *is* measurefirst gets its own copy in its
worker. The protocol, one JSON line each way:

* it says ``{"ready": true}`` once the modules are imported (``{"failed": "traceback"}`` if one fails);
* a request ``{"module", "args", "cwd", "env", "log"}`` forks a child that becomes ``python -m module
  args`` run in ``cwd`` with ``env``, its output in ``log``; the reply is ``{"pid": N}``;
* a child's end is said as ``{"exit": pid, "code": C}`` (``C`` as :class:`subprocess.Popen` says it:
  negative for a signal);
* at the end of its input it kills the children still running and exits at once.

In the child, the interpreter is made to look as a fresh ``python -m module`` with ``env`` would: the
environment, ``sys.path`` (the folder, then ``PYTHONPATH``, then the interpreter's own paths), the
bytecode settings, ``sys.argv``, the standard streams and the default signal handlers.
"""

import json
import os
import signal
import sys
import traceback
import warnings

_OUT = sys.stdout


def _say(message: dict) -> None:  # type: ignore[type-arg]
    _OUT.write(json.dumps(message) + "\n")
    _OUT.flush()


def _own_path() -> list:  # type: ignore[type-arg]
    """The interpreter's paths, without the folder it was started in and without ``PYTHONPATH``'s."""
    given = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    return [p for p in sys.path if p and os.path.abspath(p) not in given]


def _become(request: dict, base_path: list) -> None:  # type: ignore[type-arg]
    """In the child: become ``python -m module args`` (never returns)."""
    code = 1
    try:
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        fd = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.close(null)
        sys.stdin = open(os.devnull)  # the server's input may sit in the old object's buffer
        env = request["env"]
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(env)
        front = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [os.getcwd(), *front, *base_path]
        sys.pycache_prefix = env.get("PYTHONPYCACHEPREFIX") or None
        sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
        sys.argv = [request["module"], *request["args"]]
        import runpy

        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - the child's error is its output, as a fresh interpreter's is
        traceback.print_exc()
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def main(modules: list) -> None:  # type: ignore[type-arg]
    children: set = set()  # type: ignore[type-arg]

    def reap(*_: object) -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            _say({"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    try:
        for name in modules:
            __import__(name)
    except BaseException:  # noqa: BLE001 - said to the parent, which starts fresh interpreters instead
        _say({"failed": traceback.format_exc()})
        return
    base_path = _own_path()
    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the workers; the server ends with its input
    _say({"ready": True})
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
        with warnings.catch_warnings():  # left on both sides of the fork: the child's filters are a fresh one's
            # numpy's BLAS starts a thread at import: forking then is what torch's DataLoader does on Linux
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            _become(request, base_path)
        children.add(pid)
        _say({"pid": pid})
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
    for pid in list(children):  # the parent is gone or done: no worker outlives it
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _OUT.flush()
    os._exit(0)  # without tearing torch down: half a second here, and the next pair waits on it


if __name__ == "__main__":
    del sys.path[0]  # the folder it was started in: nothing of it is imported
    main(json.loads(sys.argv[1]))
