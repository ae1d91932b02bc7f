"""What a measuring function is given, checked before anything runs (the function, its label, the timer),
the label of a function given without one, and the device, chosen for ``"auto"`` by observing each
function's first call."""

from __future__ import annotations

import functools
from typing import Any, Callable

import torch

from . import compiling
from .devices import DeviceLike, is_auto, machine, resolve_device, synchronizer
from .failures import ColdCallError, SetupError
from ..results.kinds import CompileEvent
from .timers import TIMER_CHOICES, Timer, host_time


def default_label(fn: Callable[..., Any]) -> str:
    """The label of a function given without one, the same in every measuring function (``benchmark``,
    ``sweep``, ``profile``, ``doctor``, ``benchmark_ranged_step``): its ``__qualname__`` (``Model.forward``,
    ``outer.<locals>.inner``), the wrapped function's for a ``functools.partial``, ``lambda`` for a lambda wherever it is defined."""
    if isinstance(fn, functools.partial):
        return default_label(fn.func)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return "lambda" if str(name).endswith("<lambda>") else str(name)


def choose_device(fns: list[Callable[[], object]], setup: Callable[[], object] | None,
                  device: DeviceLike, *, compiles: list[list[CompileEvent]] | None = None
                  ) -> tuple[torch.device, list[float | None], dict[str, Any]]:
    """Resolve ``device``. For ``"auto"`` on a machine with a GPU, each function's first (cold) call
    is observed: if none of them touched a tensor on the GPU but some touched CPU tensors, the CPU
    is chosen (timing CPU work with GPU events reads nothing); if no tensor op was seen at all, the
    GPU stays and a finding says so. Returns the device, each function's cold-call time (ns, None
    when not observed) and notes for the result's options; ``compiles``, when given, gets what torch
    compiled during each cold call (for :class:`Sampler`'s ``cold_compiles``)."""
    dev = resolve_device(device)
    if not is_auto(device) or dev.type == "cpu":
        return dev, [None] * len(fns), {}
    m = machine()
    sync = synchronizer(dev)
    seen: set[str] = set()
    colds: list[float | None] = []
    for index, fn in enumerate(fns):
        if setup is not None:
            try:
                setup()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                raise SetupError(f"setup raised: {type(exc).__name__}: {exc}") from exc
        failed: list[BaseException] = []

        def cold(fn: Callable[[], object] = fn) -> None:
            try:
                with m.observe() as touched:
                    fn()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                failed.append(exc)
                return
            seen.update(touched)

        log = compiling.log_for(None)
        mark = log.mark()
        elapsed = host_time(cold, sync)
        if failed:
            raise ColdCallError(index) from failed[0]
        colds.append(elapsed)
        if compiles is not None:
            compiles.append(log.since(mark))
    # what "auto" chose, as a code: "device" (the call worked there), "cpu" (it touched only tensors of
    # the types in "auto_device_seen"), "none" (no tensor op at all)
    if dev.type in seen:
        return dev, colds, {"auto_device": "device", "auto_device_seen": sorted(seen)}
    if seen:
        return torch.device("cpu"), colds, {"auto_device": "cpu", "auto_device_seen": sorted(seen)}
    return dev, colds, {"auto_device": "none", "auto_device_seen": []}


def check_function(fn: object, what: str = "benchmark()") -> None:
    """Refuse what cannot be timed by calling it: a non-callable, or a generator or coroutine function
    (calling one only creates the generator or coroutine, so the time would be that of creating it)."""
    import inspect

    if not callable(fn):
        raise TypeError(f"{what} needs a callable that takes no arguments, such as `lambda: a @ b`; "
                        f"got {type(fn).__name__}. Wrap an expression in a lambda.")
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        kind = "a coroutine function" if inspect.iscoroutinefunction(fn) else "a generator function"
        raise TypeError(f"{what}: {getattr(fn, '__name__', 'the function')} is {kind}: calling it only creates a "
                        f"{kind.split()[1]} object, so the time would be that of creating it; time a function that "
                        f"runs it to the end (e.g. `lambda: list(gen())` or `lambda: asyncio.run(coro())`)")


def check_label(label: object) -> None:
    """A label is text (or None for the function's name)."""
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string such as 'matmul 512'; got {type(label).__name__}")


def check_timer(timer: object) -> None:
    """Refuse anything but a timer name or a Timer instance, naming the choices."""
    if isinstance(timer, str):
        if timer not in TIMER_CHOICES:
            raise ValueError(f"timer must be one of {', '.join(TIMER_CHOICES)} or a Timer; got {timer!r}")
    elif not isinstance(timer, Timer):
        raise TypeError(f"timer must be 'auto', 'wall', 'event' or a Timer instance; got {type(timer).__name__}")
