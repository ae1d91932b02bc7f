"""The code a command line measures: a Python statement (run after the ``-s`` setup statements,
with ``torch`` imported and ``device`` set) or ``module:function`` / ``file.py:function``, loaded and
checked before anything is measured. Nothing here measures or prints.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, NoReturn, Sequence

#: What ``measurefirst step`` needs of a target's build() (here, torch-free, so that ``step --help`` shows
#: it without importing torch).
STEP_CONTRACT = ("build() must return a dict (or an object with these attributes): model (torch.nn.Module), "
                 "optimizer (torch.optim.Optimizer), batches (an iterable of batches, or a callable returning the next "
                 "batch), and optionally loss_fn(model, batch) -> loss (default: model(*inputs) where batch is "
                 "(inputs, targets) and the loss is cross-entropy), micro_batch, seq_len")

#: ``module:function`` or ``path/to/file.py:function`` (attributes may be dotted).
TARGET_RE = re.compile(r"^(?P<mod>[\w.]+|[^:\s]+\.py):(?P<attr>[\w.]+)$")


class TargetError(ValueError):
    """A target or a setup statement cannot be loaded as given; the message says what to give instead."""


class SetupFailed(Exception):
    """The user's setup raised: a failure of the code under test."""


class UserExit(Exception):
    """The code under test called ``sys.exit()`` or ``os._exit()``: a failure of that code, never a
    silent way out of measurefirst with its exit status."""


def _user_exit(exc: SystemExit) -> NoReturn:
    raise UserExit(f"the code called sys.exit({exc.code!r}); code under measurement must return, not exit")


def is_function_target(target: str) -> bool:
    return TARGET_RE.match(target.strip()) is not None


def load_target(target: str, namespace: dict[str, Any]) -> tuple[str, Callable[[], object]]:
    import ast  # here: every start of the command (the parser imports this module) need not pay for them
    import inspect

    m = TARGET_RE.match(target.strip())
    if m:
        attr, obj = load_callable(target.strip())
        if inspect.isgeneratorfunction(obj) or inspect.iscoroutinefunction(obj) or inspect.isasyncgenfunction(obj):
            kind = "a coroutine function" if inspect.iscoroutinefunction(obj) else "a generator function"
            raise TargetError(f"{target} is {kind}: calling it only creates a {kind.split()[1]} object, so the "
                              f"time would be that of creating it; time a function that runs it to the end")
        try:
            sig = inspect.signature(obj)
            required = [p.name for p in sig.parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        except (TypeError, ValueError):
            required = []
        if required:
            raise TargetError(f"{target} needs arguments ({', '.join(required)}); benchmark a function that takes none, "
                              f"e.g. one that builds its inputs in setup and calls {attr}")
        return attr, obj
    text = textwrap.dedent(target).strip() or "pass"
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise TargetError(f"statement {target!r} is not valid Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise TargetError(f"statement {target!r} is not valid Python: {type(exc).__name__}") from None
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.GeneratorExp):
        raise TargetError(f"statement {target!r} is a generator expression: evaluating it only creates the "
                          f"generator, so the time would be that of creating it; time list(...) of it instead")
    # The statement becomes the body of a function. SystemExit inside it is turned into a failure of
    # the statement; a try block costs nothing when nothing is raised (Python 3.11+).
    body = textwrap.indent(text, " " * 8)
    source = ("def __measurefirst_stmt__():\n    try:\n" + body + "\n"
              "    except SystemExit as __measurefirst_exc__:\n        __measurefirst_exit__(__measurefirst_exc__)\n")
    try:
        code = compile(source, "<statement>", "exec")
    except SyntaxError as exc:
        raise TargetError(f"statement {target!r} is not valid Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise TargetError(f"statement {target!r} is not valid Python: {type(exc).__name__}") from None
    namespace["__measurefirst_exit__"] = _user_exit
    exec(code, namespace)
    fn = namespace.pop("__measurefirst_stmt__")
    if fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise TargetError(f"statement {target!r} contains yield or await: as a function body it only creates a "
                          f"generator, so the time would be that of creating it; time code that runs to the end")
    return target.strip() or "pass", fn  # an empty statement times `pass` (timeit's default), and says so


def prepare(device: str, setups: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The resolved device string and the namespace the setup statements ran in."""
    from ..measure.devices import DeviceError, resolve_device

    try:
        resolved = str(resolve_device(device))
    except DeviceError as exc:
        raise TargetError(str(exc)) from exc
    try:
        return resolved, _run_setup(setups, resolved)
    except (TargetError, KeyboardInterrupt):
        raise
    except SystemExit as exc:
        raise SetupFailed(f"setup failed: it called sys.exit({exc.code!r})") from None
    except BaseException as exc:  # noqa: BLE001 - the user's setup failed
        raise SetupFailed(f"setup failed: {type(exc).__name__}: {exc}") from exc


def load_all(targets: Sequence[str], labels: Sequence[str], device: str, setups: Sequence[str], *,
             unique: bool = True) -> tuple[str, list[tuple[str, Callable[[], object]]]]:
    """The device, and every target loaded (labelled by ``labels`` in order, else by itself) before
    anything is measured: a bad one costs no results."""
    check_labels(labels, len(targets))
    resolved, namespace = prepare(device, setups)
    return resolved, labelled([load_target(t, namespace) for t in targets], labels, unique=unique)


def check_labels(labels: Sequence[str], n_targets: int) -> None:
    if len(labels) > n_targets:
        raise TargetError(f"{len(labels)} --label options for {n_targets} target(s); give at most one label per "
                          f"target, in order")


def labelled(loaded: Sequence[tuple[str, Callable[[], object]]], labels: Sequence[str], *,
             unique: bool = True) -> list[tuple[str, Callable[[], object]]]:
    """Each loaded target under its label (``labels`` in order, else its own); labels must be unique
    where results are told apart by them (``unique``)."""
    check_labels(labels, len(loaded))
    out = [(labels[i] if i < len(labels) else label, fn) for i, (label, fn) in enumerate(loaded)]
    names = [label for label, _ in out]
    dupes = sorted({x for x in names if names.count(x) > 1})
    if unique and dupes:
        raise TargetError(f"labels must be unique; {dupes[0]!r} appears twice (use --label)")
    return out


def _run_setup(setups: Sequence[str], device: str) -> dict[str, Any]:
    import torch

    namespace: dict[str, Any] = {"torch": torch, "device": device, "__name__": "__measurefirst__"}
    for s in setups:
        try:
            code = compile(textwrap.dedent(s), "<setup>", "exec")
        except SyntaxError as exc:
            raise TargetError(f"setup {s!r} is not valid Python: {exc.msg}") from exc
        except (ValueError, RecursionError, MemoryError) as exc:
            raise TargetError(f"setup {s!r} is not valid Python: {type(exc).__name__}") from None
        exec(code, namespace)
    return namespace


def load_callable(target: str) -> tuple[str, Any]:
    """module:attr or file.py:attr → (attr, object), without calling or checking its signature."""
    m = TARGET_RE.match(target)
    if m is None:
        raise TargetError(f"{target!r} is not module:function or file.py:function")
    mod_name, attr = m.group("mod"), m.group("attr")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise TargetError(f"{mod_name} is not a regular file (a named pipe, a device or a folder); give a .py file"
                                  if path.exists() else f"no such file: {mod_name}")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise TargetError(f"cannot load {mod_name} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            try:
                spec.loader.exec_module(module)
            except (TargetError, KeyboardInterrupt):
                raise
            except BaseException as exc:  # noqa: BLE001 - the user's file failed to load (sys.exit too)
                raise TargetError(f"cannot load {mod_name}: {type(exc).__name__}: {exc}") from exc
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            try:
                module = importlib.import_module(mod_name)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - ImportError, or the module raised (or exited) importing
                raise TargetError(f"cannot import {mod_name!r}: {type(exc).__name__}: {exc}") from exc
    except UserExit as exc:
        raise TargetError(f"cannot load {mod_name}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise TargetError(f"{mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise TargetError(f"{target} is a {type(obj).__name__}, not a function")
    return attr, obj


def bench_jobs(targets: Sequence[str], labels: Sequence[str], device: str, setups: Sequence[str], timer: Any, *,
               simulate: str | None = None, count: str | None = None,
               rebuilt: bool = False) -> tuple[str, list[tuple[str, Any, Any]]]:
    """What ``measurefirst bench`` times: the device and (label, what to time, timer) per target, all
    loaded before anything is measured. ``simulate``: one seeded simulated function per target (at least
    one) on its own simulated clock. ``count`` (or ``rebuilt``, for ``--processes``): each target as a
    fresh process rebuilds it from its text."""
    if rebuilt and (count or simulate):
        raise TargetError("--processes measures in fresh interpreters on the real clock; drop --count (it already "
                          "counts in a fresh process)" if count else "--processes cannot run on the simulated clock")
    if not targets and not simulate:
        raise TargetError('give a statement or module:function to time, e.g. measurefirst bench -s '
                          '"a = torch.randn(512, 512)" "a @ a"')
    if simulate:
        if count is not None:
            raise TargetError("--count counts real instructions; it cannot be simulated")
        from ..measure.simulate import world

        worlds = [world(simulate) for _ in targets or ["simulated"]]
        loaded = labelled([("simulated", w.function()) for w in worlds], labels, unique=False)
        return "cpu", [(label, fn, w.timer()) for (label, fn), w in zip(loaded, worlds)]
    # the rows, the saved runs' names and -o tell targets apart by label: `bench 1 1` is refused (issue 38)
    dev, found = load_all(targets, labels, device, setups)
    if count is not None or rebuilt:
        return dev, [(label, count_target(t, setups, dev), timer) for (label, _), t in zip(found, targets)]
    return dev, [(label, fn, timer) for label, fn in found]


def target_spec(target: str, setups: Sequence[str]) -> tuple[str, str, str, tuple[str, ...]]:
    """What ``compare --against`` sends its workers: ``kind, where, name, setups`` (a file's path as given,
    relative to the folder each worker runs in, the same place in its tree)."""
    m = TARGET_RE.match(target.strip())
    if m is None:
        return "statement", "", target, tuple(setups)
    mod, attr = m.group("mod"), m.group("attr")
    return ("file" if mod.endswith(".py") else "module"), mod, attr, ()


def count_target(target: str, setups: Sequence[str], device: str) -> Any:
    """What --count sends to the counting process: the target, rebuilt there as it was loaded here."""
    from ..measure._counters import Target

    m = TARGET_RE.match(target.strip())
    if m is None:
        return Target("statement", "", target, tuple(setups), device)
    mod, attr = m.group("mod"), m.group("attr")
    if mod.endswith(".py"):
        return Target("file", str(Path(mod).resolve()), attr)
    return Target("module", mod, attr)


@contextmanager
def exits_are_failures() -> Iterator[None]:
    """While measurefirst runs the user's code, ``os._exit()`` raises :class:`UserExit` instead of
    ending the process with the code's exit status (a forked child still exits for real)."""
    real = os._exit
    pid = os.getpid()

    def guarded(status: int) -> NoReturn:
        if os.getpid() != pid:
            real(status)
        raise UserExit(f"the code called os._exit({status!r}); code under measurement must return, not exit")

    setattr(os, "_exit", guarded)
    try:
        yield
    finally:
        setattr(os, "_exit", real)
