"""The result of :func:`measurefirst.sweep`: a :class:`SweepResult` of :class:`SweepPoint` (one size of one
implementation), with its fits, bounds and checks computed on request. The types live with the results
(renderers read them); :mod:`measurefirst.tools.sweep` runs the sweep and re-exports them."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

from .base import ResultBase
from .errors import FitError
from .findings import NONMONOTONE_DROP, fit_findings, found
from .fit import ComplexityFit, PowerFit
from .kinds import Finding, Measurement
from .protocol import build, each, migrate
from .roofline import PROVENANCE_FIELDS, Bound, Peaks, classify, over_roof

#: Largest size a sweep accepts (2**40 elements is a terabyte and more on any device).
MAX_SIZE = 2**40
#: Why a size failed, beside the error's own text (:attr:`SweepPoint.error_code`; the words are in
#: :mod:`measurefirst.render.words`): out of memory, or the code called ``sys.exit`` (``error``: its code).
#: ``None``: another exception, whose type and message are the error.
ERROR_CODES = ("out_of_memory", "exit")


@dataclass(frozen=True)
class SweepPoint:
    """One size of one implementation: its measurement, or why it failed (``error``: the error's text, as
    data; ``error_code``: one of :data:`ERROR_CODES` or ``None``)."""

    label: str
    n: int
    measurement: Measurement | None
    error: str | None = None
    flops: float | None = None
    bytes: float | None = None
    error_code: str | None = None

    @property
    def ok(self) -> bool:
        return self.measurement is not None and self.measurement.summary is not None

    @property
    def seconds(self) -> float:
        return self.measurement.median if self.ok else math.nan  # type: ignore[union-attr]

    @property
    def flops_per_s(self) -> float | None:
        return self.flops / self.seconds if (self.ok and self.flops) else None

    @property
    def bytes_per_s(self) -> float | None:
        return self.bytes / self.seconds if (self.ok and self.bytes) else None

    @property
    def intensity(self) -> float | None:
        return self.flops / self.bytes if (self.flops and self.bytes) else None


#: Version of a :class:`SweepResult`'s stored form (see :mod:`measurefirst.results.protocol`). Version 2
#: writes why a size failed as a code (``error_code``) beside the error's own text, where version 1 wrote words.
SCHEMA_VERSION = 2


@dataclass(frozen=True)
class SweepResult(ResultBase):
    """All points of a sweep, with fits and roofline classification computed on request."""

    points: tuple[SweepPoint, ...]
    labels: tuple[str, ...]
    sizes: tuple[int, ...]
    reference: int
    device: str
    peaks: Peaks | None = None
    complete: bool = True
    options: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    kind: ClassVar[str] = "sweep"

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every measured point's findings, in the order of the points, then the sweep's own
        (:meth:`checks`)."""
        return tuple(f for m in self.measurements for f in m.findings) + self.checks()

    def checks(self) -> tuple[Finding, ...]:
        """What the sweep's numbers say against each other, per implementation: a rate above its roof
        (``roof_exceeded``: the roof is the wrong number, named with how it was measured) and a fit whose
        points contradict it (``poor_fit``, ``fit_slope_points``, ``nonmonotone_sizes``)."""
        out: list[Finding] = []
        for label in self.labels:
            roof = self.roof_check(label)
            if roof is not None:
                out.append(roof)
            ok = [p for p in self.series(label) if p.ok]
            try:
                fit = self.fit(label)
            except FitError:
                from .fitting import largest_drop

                drop = largest_drop([p.n for p in ok], [p.seconds for p in ok])
                if drop >= NONMONOTONE_DROP:
                    out += fit_findings([("drop", drop, NONMONOTONE_DROP)], label=label)
                continue
            out += fit_findings(fit.problems(), label=label)
        return tuple(out)

    def roof_check(self, label: str) -> Finding | None:
        """``roof_exceeded`` for ``label`` when a point's rate passes :data:`~measurefirst.results.findings.ROOF_MAX`
        of its roof (:func:`~measurefirst.results.roofline.over_roof`: not a cache-bound point): the value is the highest
        fraction, the context names the point and the roof (its value, dtype, threads, and when and under which load
        it was measured)."""
        pk = self.peaks
        if pk is None:
            return None
        over = [(b.fraction, b.roof, p) for p in self.series(label) if p.ok for b in (self.bound(p),) if over_roof(b)]
        if not over:
            return None
        fraction, roof, p = max(over, key=lambda x: x[0] or 0.0)
        compute = roof == "compute"
        return found("roof_exceeded", fraction, label=label, n=p.n, points=len(over), roof=roof,
                     peak=pk.flops_per_s if compute else pk.bytes_per_s, unit="FLOP/s" if compute else "B/s",
                     rate=p.flops_per_s if compute else p.bytes_per_s, dtype=pk.dtype, threads=pk.threads,
                     measured_at=pk.measured_at or None, load=None if pk.load < 0 else pk.load,
                     cpus=pk.cpus or None)

    def series(self, label: str | None = None) -> list[SweepPoint]:
        label = self.labels[0] if label is None else label
        if label not in self.labels:
            raise KeyError(f"no implementation {label!r} in this sweep; have: {', '.join(self.labels)}")
        return [p for p in self.points if p.label == label]

    def fit(self, label: str | None = None) -> PowerFit:
        """``t(n) = t0 + c·n^k`` for one implementation (default: the first). FitError if unsupported."""
        ok = [p for p in self.series(label) if p.ok]
        if len(ok) < 3:
            raise FitError(f"only {len(ok)} sizes succeeded; a fit needs at least 4 (fewer than 3 leave nothing "
                           f"to fit); see the failed points for why")
        from .fitting import fit_power

        return fit_power([p.n for p in ok], [p.seconds for p in ok])

    def complexity(self, label: str | None = None) -> ComplexityFit:
        from .fitting import fit_complexity

        ok = [p for p in self.series(label) if p.ok]
        return fit_complexity([p.n for p in ok], [p.seconds for p in ok])

    def relative(self, point: SweepPoint) -> tuple[float | None, float | None]:
        """(time relative to the reference size, the work ratio the flops/bytes predict)."""
        ref = next((p for p in self.series(point.label) if p.n == self.reference and p.ok), None)
        if ref is None or not point.ok:
            return None, None
        work = None
        if point.flops and ref.flops:
            work = point.flops / ref.flops
        elif point.bytes and ref.bytes:
            work = point.bytes / ref.bytes
        return point.seconds / ref.seconds, work

    def bound(self, point: SweepPoint, overhead_s: float | None = None) -> Bound:
        pk, m = self.peaks, point.measurement
        if pk is not None and m is not None and m.options.get("cold_cache"):  # flushed before each sample
            pk = replace(pk, cache_bytes=0)
        return classify(point.seconds, point.flops, point.bytes, pk, overhead_s=overhead_s)

    @property
    def measurements(self) -> tuple[Measurement, ...]:
        return tuple(p.measurement for p in self.points if p.measurement is not None)

    def __repr__(self) -> str:
        ok = sum(p.ok for p in self.points)
        return (f"<SweepResult {', '.join(self.labels)} over {len(self.sizes)} sizes on {self.device}: "
                f"{ok}/{len(self.points)} points measured{'' if self.complete else ', incomplete'}>")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version, "kind": self.kind, "labels": list(self.labels),
            "sizes": list(self.sizes), "reference": self.reference, "device": self.device,
            "peaks": None if self.peaks is None else asdict(self.peaks), "complete": self.complete,
            "options": dict(self.options),
            # the sweep's own findings, written for readers of the file; loading recomputes them
            "findings": [f.to_dict() for f in self.checks()],
            "points": [{"label": p.label, "n": p.n, "error": p.error, "error_code": p.error_code,
                        "flops": p.flops, "bytes": p.bytes,
                        "measurement": None if p.measurement is None else p.measurement.to_dict()}
                       for p in self.points],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SweepResult":
        """Rebuild a sweep from its stored form; anything missing, ill-typed or inconsistent raises
        ``ValueError`` naming the field (and nothing else is raised)."""
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        r = build(cls, {**d, "options": d.get("options") or {}}, "sweep",
                  read={"points": each(_point), "sizes": each(_whole), "reference": _whole, "peaks": _peaks})
        if len(set(r.labels)) != len(r.labels):
            raise ValueError("sweep.labels must be unique")
        for i, p in enumerate(r.points):
            if p.label not in r.labels:
                raise ValueError(f"sweep.points[{i}].label {p.label[:40]!r} is not one of sweep.labels")
        return r


def _point(v: Any, where: str) -> SweepPoint:
    return build(SweepPoint, v, where, read={
        "n": _whole, "flops": _work, "bytes": _work,
        "measurement": lambda m, at: None if m is None else Measurement.from_dict(m, at)})


def _peaks(v: Any, where: str) -> Peaks | None:
    """Stored roofs: every field of :class:`Peaks` (the provenance may be absent), each a positive finite
    number (the provenance: >= its unknown value) or text."""
    if v is None:
        return None
    fields_ = Peaks.__dataclass_fields__
    required = set(fields_) - set(PROVENANCE_FIELDS)
    if not isinstance(v, dict) or not required <= set(v) or not set(v) <= set(fields_):
        raise ValueError(f"{where} must be an object with " + ", ".join(fields_))
    for k, f in fields_.items():
        if k not in v:
            continue
        x = v[k]
        low = -1.0 if k in PROVENANCE_FIELDS else 0.0  # unknown provenance reads -1 or 0
        ok = (isinstance(x, str) if f.type in ("str", str) else
              isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
              and (x > low if k not in PROVENANCE_FIELDS else x >= low))
        if not ok:
            raise ValueError(f"{where}.{k} has an invalid value {str(x)[:40]!r}")
    return Peaks(**v)


def _whole(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_SIZE:
        raise ValueError(f"{path} must be a whole number from 1 to 2**{MAX_SIZE.bit_length() - 1}; got {str(v)[:40]}")
    return v


def _work(v: Any, path: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise ValueError(f"{path} must be a finite number >= 0 or null; got {str(v)[:40]}")
    return float(v)
