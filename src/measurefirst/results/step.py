"""The results of a training step's timing: a :class:`StepResult` (phase by phase, with its
:class:`Throughput`), a :class:`StepComparison` of variants and a :class:`RangedStepResult` (a step timed
by its ``measurefirst.range`` phases). The types live with the results (renderers read them);
:mod:`measurefirst.tools.step` measures them and re-exports them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .base import ResultBase
from .findings import Finding
from .protocol import build, each, migrate, of_kind

if TYPE_CHECKING:  # pragma: no cover
    from .comparison import Comparison

#: The phases of a step, in order.
PHASES = ("data", "forward", "backward", "optimizer")


@dataclass(frozen=True)
class Throughput:
    micro_batch: int | None
    seq_len: int | None
    grad_accum: int
    world_size: int
    samples_per_s_device: float | None
    samples_per_s_global: float | None
    tokens_per_s_device: float | None
    tokens_per_s_global: float | None
    note: str = ""  # a code: "no_seq_len" (tokens/s needs seq_len), or "" (the renderer has the words)


#: Where a step's FLOPs came from (:attr:`StepResult.flops_source`; the renderer has the words): none asked
#: for, given as a number, 6·N·tokens, "6N" asked for without micro_batch and seq_len, "count" asked for
#: with no batch seen, counted by FlopCounterMode (forward + backward).
FLOPS_SOURCES = ("not_given", "given", "6n", "6n_needs_tokens", "no_batch", "counted")
#: :attr:`StepResult.mfu_table_peak` when there is no datasheet peak: on a CPU, or a GPU not in the table
#: (otherwise it names the table's peak: ``"H100 SXM bf16 dense 989.4 TFLOP/s"``).
NO_TABLE_PEAK_CPU, NOT_IN_TABLE = "none_cpu", "not_in_table"
#: Version of a :class:`StepResult`'s stored form; version 0 (none written) is version 1's form; version 1
#: gave the FLOPs source, the throughput note and a missing datasheet peak in English words (see
#: :data:`measurefirst.results.protocol.STEP_WORDS_V1`).
SCHEMA_VERSION = 2
#: Version of a :class:`StepComparison`'s stored form; version 0 was ``{"steps", "comparison"}`` without a kind.
COMPARISON_SCHEMA_VERSION = 1
#: Version of a :class:`RangedStepResult`'s stored form.
RANGED_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class StepResult(ResultBase):
    """Phase times (median seconds per step), the step, memory, throughput, FLOPs, MFU, findings."""

    label: str
    device: str
    variant: str
    dtype: str
    steps: int
    warmup_steps: int
    phase_s: dict[str, float]
    step_s: float
    step_samples_s: tuple[float, ...]
    warmup_step_s: tuple[float, ...]
    compile_s: float | None
    recompiles: int
    memory: dict[str, dict[str, int]] | None
    peak_phase: str | None
    alloc_retries: int | None
    ooms: int | None
    throughput: Throughput
    flops_per_step: float | None
    flops_source: str
    mfu_table: float | None
    mfu_table_peak: str
    mfu_measured: float | None
    mfu_measured_peak: float | None
    findings: tuple[Finding, ...]
    env: dict[str, Any] = field(default_factory=dict)

    kind: ClassVar[str] = "step"
    schema_version: ClassVar[int] = SCHEMA_VERSION
    #: a step result is measured whole or raises (StepError)
    complete: ClassVar[bool] = True

    def __post_init__(self) -> None:
        missing = [p for p in PHASES if p not in self.phase_s]
        if missing:
            raise ValueError(f"step.phase_s must time every phase ({', '.join(PHASES)}); {missing[0]!r} is missing")
        if self.peak_phase is not None and not (self.memory and "peak_allocated" in self.memory.get(self.peak_phase, {})):
            raise ValueError(f"step.peak_phase {self.peak_phase!r:.40} has no peak_allocated in step.memory")
        if self.mfu_measured is not None and self.mfu_measured_peak is None:
            raise ValueError("step.mfu_measured needs the peak it was measured against: step.mfu_measured_peak is null")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, **asdict(self)}

    def __repr__(self) -> str:
        return f"<StepResult {self.label!r} on {self.device}: step {self.step_s * 1e3:.3f} ms, {len(self.findings)} finding(s)>"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StepResult":
        """Load a step result written by :meth:`to_dict` (``measurefirst step --json``)."""
        if not isinstance(d, dict) or d.get("kind") != cls.kind:
            raise ValueError("not a measurefirst step result (missing \"kind\": \"step\")")
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        findings = d.get("findings") or ()
        if not isinstance(findings, (list, tuple)):
            raise ValueError(f"step.findings must be a list; got {type(findings).__name__}")
        return build(cls, {**d, "findings": tuple(Finding.from_dict(f, f"step.findings[{i}]")
                                                  for i, f in enumerate(findings))}, "step")


@dataclass(frozen=True)
class StepComparison(ResultBase):
    """The result of :func:`~measurefirst.tools.step.compare_steps`: each variant's :class:`StepResult`, and the interleaved
    comparison of their whole steps (``None`` with a single variant). ``stopped``: Ctrl-C came before
    every variant was measured and compared (the steps are those measured; incomplete)."""

    steps: tuple[StepResult, ...]
    comparison: "Comparison | None" = None
    stopped: bool = False

    kind: ClassVar[str] = "step_comparison"
    schema_version: ClassVar[int] = COMPARISON_SCHEMA_VERSION

    @property
    def complete(self) -> bool:
        return not self.stopped and (self.comparison is None or self.comparison.complete)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for r in self.steps for f in r.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "steps": [r.to_dict() for r in self.steps],
                "comparison": None if self.comparison is None else self.comparison.to_dict(), "stopped": self.stopped}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StepComparison":
        """Load what :meth:`to_dict` (``measurefirst step --json``) wrote, of any version."""
        from .comparison import Comparison

        d = migrate(d, cls.kind, COMPARISON_SCHEMA_VERSION)
        return build(cls, d, "step_comparison", {"Comparison": Comparison},
                     read={"steps": each(lambda v, _: StepResult.from_dict(v)),
                           "comparison": lambda v, _: None if v is None else Comparison.from_dict(v)})


@dataclass(frozen=True)
class RangedStepResult(ResultBase):
    """A single step callable timed by its ``measurefirst.range`` phases (median seconds per step)."""

    label: str
    device: str
    steps: int
    warmup_steps: int
    phase_s: dict[str, float]
    step_s: float
    unmarked_s: float
    step_samples_s: tuple[float, ...]
    warmup_step_s: tuple[float, ...]

    kind: ClassVar[str] = "ranged_step"
    schema_version: ClassVar[int] = RANGED_SCHEMA_VERSION
    #: a ranged step is measured whole or raises (StepError)
    complete: ClassVar[bool] = True
    #: nothing is checked on a ranged step (its phases are the user's own)
    findings: ClassVar[tuple[Finding, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, **asdict(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RangedStepResult":
        """Load what :meth:`to_dict` wrote, of any version."""
        return build(cls, of_kind(d, cls.kind, RANGED_SCHEMA_VERSION), "ranged_step")
