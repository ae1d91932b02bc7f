"""The result of :func:`measurefirst.selfcheck`: a :class:`SelfCheck` of rows (a known duration against its
truth), traps and the machine's state. The types live with the results (renderers read them);
:mod:`measurefirst.tools.selfcheck` runs the check and re-exports them."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .base import ResultBase
from .findings import MIN_CPU_SHARE, Finding, found
from .kinds import Measurement
from .protocol import build, migrate

#: Version of the stored selfcheck JSON form (2 added how much of a core the check got: each row's and
#: trap's ``cpu_share``, a row's ``off_cpu``, the machine's ``cpu_share``, ``runnable`` and ``state``).
SELFCHECK_SCHEMA_VERSION = 2

PASS, FAIL, NOISY, INFO, SKIP = "pass", "fail", "noisy", "info", "skip"
STATUSES = (PASS, FAIL, NOISY, INFO, SKIP)
#: The machine during the check (:attr:`Machine.state`): the checking thread got a core
#: (:data:`~measurefirst.results.findings.MIN_CPU_SHARE` of it or more) all along; it did not; not measured.
QUIET, BUSY, UNKNOWN = "quiet", "busy", "unknown"
MACHINE_STATES = (QUIET, BUSY, UNKNOWN)
#: Methods that are other tools (shown beside ours, not judged).
REFERENCES = frozenset({"timeit", "blocked_autorange", "do_bench", "do_bench_cudagraph", "profiler"})


# ---- result types ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One estimate of a known duration against its truth.

    ``method``: ``adaptive``, ``fixed``, ``events``, ``wall``, ``cuda_graph``, ``cold_cache``, a reference
    (``timeit``, ``blocked_autorange``, ``do_bench``, ``do_bench_cudagraph``, ``profiler``) or
    ``graph_vs_do_bench_cudagraph``. ``truth_source``: ``self`` (the busy-wait's own clock during the
    run), ``stream`` (synchronized wall time per call of a stream of kernels), ``profiler`` (kernel time),
    ``sleep`` (cycles over the calibrated rate) or ``do_bench_cudagraph``. ``noise``: the relative noise
    measured during the row. ``note``: a code (``not_installed``, ``not_applicable``, ``simulated``,
    ``launch_bound``, ``overhead_bound``, ``error``, ``fallback_truth``, ``busy``) with ``detail`` holding
    any message. ``status``: ``pass``, ``fail``, ``noisy`` (judged); ``info`` (shown, not judged); ``skip``.
    ``cpu_share``: the share of a core the checking thread got while the row ran (CPU time over wall time;
    None where not measured: on CUDA, or a file from before version 2). ``off_cpu``: how far the time the
    thread spent off the CPU, unseen by the busy-wait's own clock, could lengthen the estimate (relative;
    0 on a quiet core; None where not measured): a reading too long by no more than the tolerance, the
    noise and this is ``noisy`` with the note ``busy``.
    """

    duration_s: float
    method: str
    truth_s: float | None
    truth_source: str
    estimate_s: float | None
    rel_error: float | None
    tolerance: float | None
    noise: float | None
    status: str
    note: str = ""
    detail: str = ""
    cpu_share: float | None = None
    off_cpu: float | None = None

    def __post_init__(self) -> None:
        _check_status(self.status)

    @property
    def name(self) -> str:
        """``"200us adaptive"``: the check's name (duration and method)."""
        return _row_id(self)

    @property
    def passed(self) -> bool:
        return self.status == PASS

    @property
    def reference(self) -> bool:
        return self.method in REFERENCES

    @property
    def judged(self) -> bool:
        return self.status in (PASS, FAIL, NOISY)


@dataclass(frozen=True)
class Trap:
    """One classic trap and whether measurefirst caught it: ``status`` is ``pass`` (detected), ``fail``
    (missed), ``noisy`` (a timing trap missed while the checking thread got less than
    :data:`~measurefirst.results.findings.MIN_CPU_SHARE` of a core: ``note`` ``busy``, not judged), ``skip``
    (not applicable here, or could not run: ``note`` says which). ``cpu_share``: the share of a core the
    check's thread got while the trap ran (None where not measured)."""

    code: str  # "cold_start", "implicit_sync", "unsynchronized_timer"
    status: str
    value: float | None = None
    threshold: float | None = None
    note: str = ""
    detail: str = ""
    cpu_share: float | None = None

    def __post_init__(self) -> None:
        _check_status(self.status)


def _check_status(status: str) -> None:
    """A row's or trap's status is one the renderers have words for (a stored file may say anything)."""
    if status not in STATUSES:
        raise ValueError(f"a selfcheck status must be one of {', '.join(STATUSES)}; got {status!r:.40}")


@dataclass(frozen=True)
class Machine:
    """What the machine was like during the check. ``None``: not visible here."""

    timer: str
    timer_resolution_ns: float | None = None  # as the clock states it
    timer_resolution_measured_ns: float | None = None  # the smallest step seen between two reads
    clock_read_ns: float | None = None  # median cost of one clock read
    timer_overhead_ns: float | None = None  # median empty sample (timer + sync), as the engine measures it
    cpu_governor: str | None = None
    cpu_mhz_before: float | None = None
    cpu_mhz_after: float | None = None
    throttle_events: int | None = None  # thermal throttle events during the check
    other_load_cores: float | None = None  # cores other processes used during the check
    steal_cores: float | None = None  # cores' worth of time the hypervisor gave to others
    cores: int | None = None
    gpu_before: dict[str, str] | None = None  # nvidia-smi: clocks.sm, clocks.max.sm, throttle reasons
    gpu_after: dict[str, str] | None = None
    sleep_cycles_per_s: float | None = None  # CUDA: SM cycles per second, calibrated
    peaks: dict[str, Any] | None = None  # measured FLOP/s and bytes/s
    notes: tuple[str, ...] = ()  # codes: "peaks_failed", "nvidia_smi_missing", ...
    cpu_share: float | None = None  # the least share of a core the checking thread got over a row or a trap
    runnable: int | None = None  # the most other tasks ready to run at once (/proc/loadavg), seen between steps
    state: str = UNKNOWN  # quiet, busy (cpu_share under MIN_CPU_SHARE) or unknown (not measured)

    def __post_init__(self) -> None:
        if self.state not in MACHINE_STATES:
            raise ValueError(f"a selfcheck machine state must be one of {', '.join(MACHINE_STATES)}; got "
                             f"{self.state!r:.40}")


def machine_state(cpu_share: float | None) -> str:
    """``busy`` when the checking thread got under :data:`~measurefirst.results.findings.MIN_CPU_SHARE` of a
    core, ``quiet`` when it got more, ``unknown`` when not measured."""
    if cpu_share is None or not math.isfinite(cpu_share):
        return UNKNOWN
    return BUSY if cpu_share < MIN_CPU_SHARE else QUIET


@dataclass(frozen=True)
class SelfCheck(ResultBase):
    """The result of :func:`~measurefirst.selfcheck`: rows, traps, the machine, and the measurements behind them."""

    kind: ClassVar[str] = "selfcheck"

    device: str
    quick: bool
    rows: tuple[Row, ...]
    traps: tuple[Trap, ...]
    machine: Machine
    measurements: tuple[Measurement, ...] = ()
    env: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    simulated: bool = False
    complete: bool = True
    schema_version: int = SELFCHECK_SCHEMA_VERSION

    @property
    def failed_rows(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.status == FAIL)

    @property
    def noisy_rows(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.status == NOISY)

    @property
    def failed_traps(self) -> tuple[Trap, ...]:
        return tuple(t for t in self.traps if t.status == FAIL)

    @property
    def noisy_traps(self) -> tuple[Trap, ...]:
        return tuple(t for t in self.traps if t.status == NOISY)

    @property
    def busy(self) -> bool:
        """Whether a row or a trap could not be judged because the machine was too busy (note ``busy``)."""
        return any(r.note == "busy" for r in self.noisy_rows) or any(t.note == "busy" for t in self.noisy_traps)

    @property
    def status(self) -> str:
        """``fail`` if any row or trap failed; else ``noisy`` (too noisy to judge) if any row or trap could
        not be judged for the machine's noise or load; else ``pass``."""
        if self.failed_rows or self.failed_traps:
            return FAIL
        if self.noisy_rows or self.noisy_traps:
            return NOISY
        return PASS

    @property
    def ok(self) -> bool:
        return self.status == PASS

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Failures and unjudgeable rows as data (the words are the renderer's)."""
        out = [found("selfcheck_failed", r.rel_error, threshold=r.tolerance, row=_row_id(r)) for r in self.failed_rows]
        out += [found("selfcheck_trap_missed", t.value, threshold=t.threshold, trap=t.code) for t in self.failed_traps]
        out += [found("selfcheck_noisy", r.rel_error, threshold=r.tolerance, row=_row_id(r),
                      noise=(r.noise or 0.0) + (r.off_cpu or 0.0) if r.note == "busy" else r.noise)
                for r in self.noisy_rows]
        if self.machine.state == BUSY and self.machine.cpu_share is not None:
            out.append(found("selfcheck_busy", self.machine.cpu_share))
        return tuple(out)

    def __repr__(self) -> str:
        return (f"<SelfCheck {self.device}: {self.status}, {len(self.rows)} rows "
                f"({len(self.failed_rows)} failed, {len(self.noisy_rows)} noisy), machine {self.machine.state}, "
                f"{sum(t.status == PASS for t in self.traps)}/{len(self.traps)} traps caught, {self.seconds:.1f} s>")

    # ---- JSON -----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "kind": self.kind,
            "device": self.device,
            "quick": self.quick,
            "status": self.status,
            "complete": self.complete,
            "simulated": self.simulated,
            "seconds": self.seconds,
            "rows": [_finite_dict(asdict(r)) for r in self.rows],
            "traps": [_finite_dict(asdict(t)) for t in self.traps],
            "machine": _finite_dict(asdict(self.machine)),
            "findings": [f.to_dict() for f in self.findings],
            "env": dict(self.env),
            "measurements": [m.to_dict() for m in self.measurements],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SelfCheck":
        if d.get("kind") != cls.kind:
            raise ValueError('not a measurefirst selfcheck (missing "kind": "selfcheck")')
        d = migrate(d, cls.kind, SELFCHECK_SCHEMA_VERSION)
        stored = d.get("measurements") or []
        if not isinstance(stored, (list, tuple)):
            raise ValueError(f"selfcheck.measurements must be a list; got {type(stored).__name__}")
        measurements = tuple(Measurement.from_dict(x, f"selfcheck.measurements[{i}]") for i, x in enumerate(stored))
        return build(cls, {**d, "measurements": measurements}, "selfcheck")


def _finite_dict(d: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


def duration_code(seconds: float) -> str:
    """``2e-06`` → ``"2us"``, ``0.002`` → ``"2ms"``: the short name used in labels."""
    ns = seconds * 1e9
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:g}{unit}"
    return f"{ns:g}ns"


def _row_id(r: Row) -> str:
    return f"{duration_code(r.duration_s)} {r.method}"
