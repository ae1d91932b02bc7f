"""The result of :func:`measurefirst.profile`: a :class:`Profile` of op rows (:class:`OpRow`) and device
kernels (:class:`KernelRow`), per step, with its views. The types live with the results (renderers read
them); :mod:`measurefirst.profiling.capture` takes the profile (its docstring says what each view holds)
and re-exports them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Sequence

from . import defaults
from .base import ResultBase
from .errors import check_limit
from .protocol import build, finite_fields, migrate

@dataclass(frozen=True)
class OpRow:
    """One op aggregated over the profiled steps; times in seconds **per step**."""

    name: str
    calls: float
    self_s: float
    total_s: float
    device_s: float
    flops: float
    bytes_est: float
    cpu_mem_bytes: float
    device_mem_bytes: float
    input_shapes: str = ""
    work: bool = False
    top_level: bool = False

    def __post_init__(self) -> None:
        finite_fields(self, f"op {self.name!r:.40}", ("calls", "self_s", "total_s", "device_s", "flops", "bytes_est"))


@dataclass(frozen=True)
class KernelRow:
    """One device kernel aggregated over the profiled steps; times in seconds per step."""

    name: str
    launched_by: str
    calls: float
    total_s: float
    mean_s: float
    decoded: dict[str, Any]

    def __post_init__(self) -> None:
        finite_fields(self, f"kernel {self.name!r:.40}", ("calls", "total_s", "mean_s"))


#: Version of a :class:`Profile`'s stored form (see :mod:`measurefirst.results.protocol`).
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Profile(ResultBase):
    """Where the time of one call of ``fn`` goes. Built by :func:`~measurefirst.profile`."""

    label: str
    device: str
    steps: int
    ops: tuple[OpRow, ...]  # view "all", grouped by name (and shape if asked)
    work: tuple[OpRow, ...]  # the work view
    top: tuple[OpRow, ...]  # top-level ops
    kernels: tuple[KernelRow, ...]
    step_s: float  # wall time of one profiled step (profiler overhead included)
    peak_device_bytes: int | None = None  # CUDA: the largest peak of one active step
    trace_path: str | None = None
    memory_snapshot_path: str | None = None
    flops_by_module: dict[str, float] | None = None
    env: dict[str, Any] = field(default_factory=dict)
    #: the active steps asked for, when Ctrl-C stopped the profile before them (``steps`` were profiled whole)
    steps_asked: int | None = None
    schema_version: int = SCHEMA_VERSION

    kind: ClassVar[str] = "profile"
    #: a profile finds nothing (doctor reads profiles for findings)
    findings: ClassVar[tuple[()]] = ()

    @property
    def complete(self) -> bool:
        """Whether every active step asked for was profiled (Ctrl-C keeps the whole steps before it)."""
        return self.steps_asked is None or self.steps >= self.steps_asked

    @property
    def work_count(self) -> int | float:
        """Working ops (CPU) or kernels (GPU) launched per step: the lecture's count (an int when whole,
        as in :meth:`counts`)."""
        return _whole(sum(k.calls for k in self.kernels) if self.kernels else sum(r.calls for r in self.work))

    def counts(self, view: str = "work") -> dict[str, int | float]:
        """``{"aten::mul": 6, ...}`` per step, for a view (``work``, ``all``, ``top`` or ``kernels``): an
        int where every profiled step made the same calls, else the mean over the steps (``7/3``)."""
        if view == "kernels":
            return {k.name: _whole(k.calls) for k in self.kernels}
        rows = self.rows(view)
        out: dict[str, float] = defaultdict(float)
        for r in rows:
            out[r.name] += r.calls
        return {name: _whole(calls) for name, calls in out.items()}

    def rows(self, view: str = "work", sort: str = "self", limit: int | None = None) -> list[OpRow]:
        if view not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}; got {view!r}")
        check_limit(limit)
        rows = list({"work": self.work, "all": self.ops, "top": self.top}[view])
        return sort_rows(rows, sort)[:limit]

    def total_s(self, view: str = "top") -> float:
        return sum(r.total_s for r in self.rows(view))

    def __repr__(self) -> str:
        unit = "kernels" if self.kernels else "work ops"
        return f"<Profile {self.label!r} on {self.device}: {self.work_count:g} {unit} per step, {self.steps} steps>"

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": self.schema_version, "kind": self.kind, **{
            k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if k != "schema_version"}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Profile":
        return build(cls, migrate(d, cls.kind, SCHEMA_VERSION), "profile")


VIEWS = defaults.VIEWS
SORTS = defaults.SORTS
ROW_LIMIT = defaults.ROW_LIMIT


def _whole(calls: float) -> int | float:
    """A count of calls per step as an int when it is whole (the mean over steps is a float)."""
    return int(calls) if float(calls).is_integer() else calls


def sort_rows(rows: Sequence[OpRow], key: str) -> list[OpRow]:
    if key not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}; got {key!r}")
    if key == "name":
        return sorted(rows, key=lambda r: r.name)
    attr = {"self": "self_s", "total": "total_s", "calls": "calls", "device": "device_s", "flops": "flops",
            "bytes": "bytes_est", "memory": "cpu_mem_bytes"}[key]
    return sorted(rows, key=lambda r: (-getattr(r, attr), r.name))
