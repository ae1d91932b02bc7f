"""Writing files safely, and JSON that every parser reads.

* :func:`check_destination` is called *before* anything is measured: a file that cannot be written
  costs no results. It refuses a directory, a missing folder and a folder that cannot be written
  (probed by creating a file there, which also catches read-only file systems and root's bypass
  of permission bits), and an existing SQLite database (any results store, in use or not:
  :func:`is_database`), which no output replaces.
* :func:`write_atomic` and :func:`atomic_path` write the whole file or nothing: a unique temporary
  file in the destination's folder (``tempfile.mkstemp``: created exclusively, so a link planted
  under a predictable name is never followed), then ``os.replace``. A failure or Ctrl-C removes the
  temporary file. A symbolic link at the destination is replaced by the file, never written through.
* A destination that is a stream (``-`` or ``/dev/stdout`` for standard output, a character device such
  as ``/dev/null``, a FIFO, or a link to one of those) is written to as a stream, as every Unix tool
  does: never replaced by a regular file (:func:`is_stream`).
* :func:`check_not_inputs` refuses an output that is the same file as one the command reads (the
  results store, an input file), compared by device and inode, links included.
* :func:`strict_json` writes RFC 8259 JSON: a non-finite number (NaN, ±Infinity, which Python's
  ``json`` would print as bare ``NaN``/``Infinity``) becomes ``null`` and the object holding it
  gains a :data:`NON_FINITE_KEY` entry saying which field was what.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

#: Key added to a JSON object whose non-finite numbers were written as null: ``{"ci_high": "inf"}``.
NON_FINITE_KEY = "non_finite_as_null"


class DestinationError(ValueError):
    """A file cannot be written where asked; the message (one line) says why and what to do."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


#: Paths that mean this process's own standard streams: written through the open stream, never reopened.
_STD_STREAMS = {"-": 1, "/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/1": 1, "/dev/fd/2": 2,
                "/proc/self/fd/1": 1, "/proc/self/fd/2": 2}


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is written as a stream: ``-`` (standard output), ``/dev/stdout``, a character
    device, a FIFO or a socket (a link to one included); such a destination is never replaced."""
    if os.fspath(path) in _STD_STREAMS:
        return True
    try:
        mode = os.stat(path).st_mode  # follows links: a link to /dev/null is a stream
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    try:
        return os.path.samefile(a, b)  # device and inode: hard and symbolic links included
    except (OSError, ValueError):
        try:  # neither exists yet: the same path once links and ``..`` are resolved
            return os.path.realpath(a) == os.path.realpath(b)
        except (OSError, ValueError):
            return False


def check_not_inputs(path: str | os.PathLike[str] | None, inputs: Iterable[tuple[Any, str]],
                     what: str = "output") -> None:
    """Raise :class:`DestinationError` when ``path`` (a file to write) is the same file as one of
    ``inputs`` (``(path, what it is)`` pairs, e.g. the results store): writing would replace it."""
    if path is None or is_stream(path):
        return
    for other, name in inputs:
        if other is not None and same_file(path, other):
            raise DestinationError(f"the {what} {path} is the {name} {other}; writing it would replace it: "
                                   f"give the {what} another path")


#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


def is_database(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an existing SQLite database (a measurefirst results store, or any other):
    read by its first bytes, a link followed."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except (OSError, ValueError):
        return False


def check_destination(path: str | os.PathLike[str], what: str = "output", *, stream_ok: bool = True) -> Path:
    """Raise :class:`DestinationError` unless a file can be written at ``path``; return it as a Path.
    A stream (see :func:`is_stream`) is accepted as it is (not opened: a FIFO would block) unless
    ``stream_ok`` is False. An existing SQLite database (:func:`is_database`: a results store, whether
    or not this command uses it) is never replaced."""
    p = Path(path)
    if stream_ok and is_stream(path):
        return p
    if p.is_file() and is_database(p):
        raise DestinationError(f"the {what} {p} is a SQLite database (a results store?); writing it would "
                               f"replace it: give the {what} another path")
    if str(path) == "" or p.name in ("", ".", ".."):
        raise DestinationError(f"the {what} path {str(path)!r} names no file; give a file name such as results.json")
    if p.is_dir():
        raise DestinationError(f"the {what} path {p} is a directory; give a file name inside it, e.g. {p / 'out.json'}")
    parent = p.parent
    if not parent.exists():
        raise DestinationError(f"cannot write the {what} {p}: folder {parent} does not exist; create it first")
    if not parent.is_dir():
        raise DestinationError(f"cannot write the {what} {p}: {parent} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{p.name}.", suffix=".probe")
    except OSError as exc:
        raise DestinationError(f"cannot write the {what} {p}: {_reason(exc)} (folder {parent}); "
                               f"choose another path") from exc
    os.close(fd)
    os.unlink(probe)
    return p


def _file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_path(path: str | os.PathLike[str], what: str = "output") -> Iterator[Path]:
    """Yield a fresh temporary path beside ``path`` for a writer that needs a file name; on success
    it replaces ``path``, on any failure (Ctrl-C included) it is removed."""
    p = check_destination(path, what)
    if is_stream(p):  # a device, FIFO or standard output: the writer writes a file, then it is streamed
        fd, name = tempfile.mkstemp(prefix="measurefirst-", suffix=".tmp")
        os.close(fd)
        try:
            yield Path(name)
            _write_stream(p, Path(name).read_bytes(), what)
        finally:
            os.unlink(name)
        return
    try:
        fd, name = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as exc:
        raise DestinationError(f"cannot write the {what} {p}: {_reason(exc)}") from exc
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        try:
            os.chmod(tmp, _file_mode())
            os.replace(tmp, p)
        except OSError as exc:
            raise DestinationError(f"cannot write the {what} {p}: {_reason(exc)}") from exc
    finally:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        except OSError:  # pragma: no cover - nothing more to do
            pass


def _write_stream(path: str | os.PathLike[str], raw: bytes, what: str) -> None:
    """Write ``raw`` to a stream destination (see :func:`is_stream`): opened for writing, never created,
    truncated or replaced; standard output and error through the streams already open."""
    std = _STD_STREAMS.get(os.fspath(path))
    try:
        if std is not None:
            stream = sys.stdout if std == 1 else sys.stderr
            stream.flush()
            out = getattr(stream, "buffer", None)
            if out is not None:
                out.write(raw)
                out.flush()
            else:
                stream.write(raw.decode("utf-8", "replace"))
                stream.flush()
            return
        fd = _open_for_writing(path, what)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
    except OSError as exc:
        raise DestinationError(f"cannot write the {what} {path}: {_reason(exc)}") from exc


#: How long a write to a named pipe (FIFO) waits for a reader, counted in pauses of :data:`FIFO_PAUSE_S`
#: (no clock is read here), before it is an error: a plain open would wait without end (issue 38).
FIFO_READER_WAIT_S = 30.0
FIFO_PAUSE_S = 0.1


def _open_for_writing(path: str | os.PathLike[str], what: str) -> int:
    """A stream destination opened for writing. A FIFO is opened without blocking first: with no reader the
    open fails (ENXIO), so it is retried for :data:`FIFO_READER_WAIT_S`, then refused naming the fix; once a
    reader is there the descriptor is made blocking again for the write."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0)
    try:
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        fifo = False
    if not fifo:
        return os.open(path, flags)
    import errno
    import fcntl
    import time
    for _ in range(int(FIFO_READER_WAIT_S / FIFO_PAUSE_S) + 1):
        try:
            fd = os.open(path, flags | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                raise
            time.sleep(FIFO_PAUSE_S)
            continue
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return fd
    raise DestinationError(f"cannot write the {what} {path}: it is a named pipe (FIFO) and nothing read it for "
                           f"{FIFO_READER_WAIT_S:.0f} s; start its reader first (such as `cat {path} &`) or give a "
                           f"file")


def write_atomic(path: str | os.PathLike[str], data: str | bytes, what: str = "output") -> Path:
    """Write ``data`` to ``path`` whole or not at all (see the module docstring); a stream destination
    (a device, a FIFO, ``-``) is written to as a stream."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if is_stream(path):
        _write_stream(path, raw, what)
        return Path(path)
    with atomic_path(path, what) as tmp:
        try:
            # the temporary file was created exclusively by mkstemp; O_NOFOLLOW guards the reopen
            fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise DestinationError(f"cannot write the {what} {path}: {_reason(exc)}") from exc
    return Path(path)


# ---- strict JSON ----------------------------------------------------------------------------------
def _non_finite_name(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def finite_or_none(x: Any) -> Any:
    """``x`` unless it is a non-finite float (then None)."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def strict(obj: Any) -> Any:
    """A copy of ``obj`` (dicts, lists, tuples, scalars) in which every non-finite float is None;
    each dict that held one gains ``NON_FINITE_KEY: {field: "nan"|"inf"|"-inf"}``. Lists of
    numbers keep their length; the containing object's note names ``field[i]``."""
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        notes: dict[str, str] = dict(obj.get(NON_FINITE_KEY) or {}) if isinstance(obj.get(NON_FINITE_KEY), dict) else {}
        for k, v in obj.items():
            if k == NON_FINITE_KEY:
                continue
            if isinstance(v, float) and not math.isfinite(v):
                out[k] = None
                notes[str(k)] = _non_finite_name(v)
            elif isinstance(v, (list, tuple)):
                items: list[Any] = []
                for i, x in enumerate(v):
                    if isinstance(x, float) and not math.isfinite(x):
                        notes[f"{k}[{i}]"] = _non_finite_name(x)
                        items.append(None)
                    else:
                        items.append(strict(x))
                out[k] = items
            else:
                out[k] = strict(v)
        if notes:
            out[NON_FINITE_KEY] = notes
        return out
    if isinstance(obj, (list, tuple)):
        return [None if isinstance(x, float) and not math.isfinite(x) else strict(x) for x in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return finite_or_none(float(obj))
    if isinstance(obj, np.ndarray):
        return strict(obj.tolist())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    return str(obj)


def strict_json(obj: Any, indent: int | None = 2) -> str:
    """``json.dumps`` that never writes NaN or Infinity (see :func:`strict`)."""
    try:
        return json.dumps(strict(obj), indent=indent, allow_nan=False, default=_default)
    except ValueError:
        # a non-finite value produced by ``default`` (numpy scalars inside tuples etc.): normalise first
        return json.dumps(strict(json.loads(json.dumps(obj, default=_default))), indent=indent, allow_nan=False)
