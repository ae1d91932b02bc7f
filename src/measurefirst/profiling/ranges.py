"""``measurefirst.range(name)``: a named range that shows in torch.profiler and in Nsight Systems."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Protocol

import torch

from ..measure.devices import machine

class RangeListener(Protocol):
    """Something that wants to know when named ranges open and close (``benchmark_step`` uses it to
    time the phases of a single step callable)."""

    def enter(self, name: str) -> None: ...

    def exit(self, name: str, failed: bool = False) -> None: ...


#: The listener active in this context, if any.
listener: contextvars.ContextVar[RangeListener | None] = contextvars.ContextVar("measurefirst_range_listener",
                                                                               default=None)


def _nvtx() -> Any:
    """torch's NVTX bindings when CUDA is usable and the build has them, else None."""
    m = machine()
    if not m.cuda_available():
        return None
    try:
        nvtx = m.cuda.nvtx
        nvtx.range_push  # noqa: B018 - attribute check
        return nvtx
    except (AttributeError, RuntimeError):
        return None


class range(contextlib.ContextDecorator):  # noqa: N801 - reads as measurefirst.range(...)
    """Mark a region: always a ``torch.profiler.record_function`` range (profiler tables and traces),
    plus an NVTX range on CUDA so Nsight Systems shows it. Safe on builds without NVTX.

    Use as ``with measurefirst.range("forward"): ...`` or as a decorator ``@measurefirst.range("step")``.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("range() needs a non-empty name, e.g. measurefirst.range('forward')")
        self.name = name
        self._rf: Any = None
        self._nvtx_pushed: Any = None

    def __enter__(self) -> "range":
        hook = listener.get()
        if hook is not None:
            hook.enter(self.name)
        self._rf = torch.profiler.record_function(self.name)
        self._rf.__enter__()
        nvtx = _nvtx()
        if nvtx is not None:
            try:
                nvtx.range_push(self.name)
                self._nvtx_pushed = nvtx
            except RuntimeError:
                self._nvtx_pushed = None
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._nvtx_pushed is not None:
            try:
                self._nvtx_pushed.range_pop()
            except RuntimeError:
                pass
            self._nvtx_pushed = None
        rf, self._rf = self._rf, None
        if rf is not None:
            rf.__exit__(*exc)
        hook = listener.get()
        if hook is not None:
            hook.exit(self.name, bool(exc and exc[0] is not None))

    def _recreate_cm(self) -> "range":  # a fresh instance per decorated call (re-entrancy)
        return type(self)(self.name)
