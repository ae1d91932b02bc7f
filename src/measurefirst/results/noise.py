"""A machine's noise profile as data: a :class:`NoiseProfile` of :class:`ProfileEntry` (one workload's
fresh-process and in-process spreads), with the floor and inflation it gives a run. The types live with
the results (renderers read them); :mod:`measurefirst.measure.noise` measures and applies a profile (its
docstring says why and how) and re-exports them."""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from typing import Any

#: Version of the stored profile's form.
PROFILE_SCHEMA_VERSION = 1
#: The kinds of work (codes; their words are in :mod:`measurefirst.render.words`, ``noise.kind.*``):
#: a pure-Python busy-wait (the quietest work: it sets the floor), a 1-element ``torch.add`` (dispatch
#: overhead), a 256x256 float32 matmul (compute), a copy of 32 MiB (memory bandwidth).
KINDS = ("python", "dispatch", "compute", "memory")
#: The inflation is clamped to this range: never below 1 (fresh processes do not spread less than
#: repetitions in one), never above 3 (a wider ratio is a sign of a disturbed profile, not of the work).
INFLATION_RANGE = (1.0, 3.0)
#: The prior's inflation by kind (``noise_prior.PRIOR_INFLATION``) within this range: not a profile of
#: minutes but studies of fresh estimates on different days, which saw a compute kernel's processes land
#: in modes 3% apart against 0.2% repetitions (5.1x; a profile of that machine read 2x).
PRIOR_INFLATION_RANGE = (1.0, 6.0)
#: A stored profile is checked like any other input: a spread (``cv``, ``within_cv``) above 1 (fresh
#: processes 100% apart) is a disturbed or edited file, not a machine (``cv: 50`` widened every interval
#: to ±3.2e4, ``1e300`` gave [0, null]); a workload is at most an hour long; a profile has a few entries.
MAX_CV = 1.0
MAX_SECONDS = 3600.0
MAX_ENTRIES = 1000


def prior_widening(cv: float, factor: float, within: float) -> tuple[float, float]:
    """The factor on a run's repetition spread ``cv`` and the level it stopped multiplying at (0: it did not):
    ``factor`` (the prior's inflation for the call's kind, or a profile's where larger) multiplies a spread up to
    ``within``, what the repetitions it was measured with spread (the reference machine's, or this machine's
    profile's where larger, for that kind); the part beyond is added once, in quadrature:
    ``sqrt((factor * within)^2 + cv^2 - within^2)``. Where repetitions spread that little, a fresh process's mode
    is most of the difference; repetitions spread wider are spread by load, which a fresh run shares and averages
    over its own seconds, not multiplies (measured under a drifting load: a 512 matmul's repetitions 0.4-17.7% apart,
    its fresh estimates 6.4%: the plain factor gave a run 15% off a spread of ±90%). Never below 1; two decimals,
    as it is shown."""
    if not (cv > within > 0 and factor > 1.0):
        return factor, 0.0
    widened = math.sqrt((factor * within) ** 2 + cv * cv - within * within)
    return max(1.0, round(widened / cv, 2)), within


@dataclass(frozen=True)
class ProfileEntry:
    """One workload's spread: ``kind`` (one of :data:`KINDS`), its median call time ``seconds`` (the
    median of the processes' medians), the fresh-process spread ``cv``, the in-process spread
    ``within_cv`` (None where no process measured one) and the ``processes`` it came from."""

    kind: str
    seconds: float
    cv: float
    within_cv: float | None
    processes: int

    @property
    def ratio(self) -> float | None:
        """How many times wider fresh processes spread than repetitions inside one (None: unknown)."""
        if self.within_cv is None or not self.within_cv > 0:
            return None
        return self.cv / self.within_cv

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "seconds": self.seconds, "cv": self.cv, "within_cv": self.within_cv,
                "processes": self.processes}


def log_log(points: list[tuple[float, float]], seconds: float) -> float:
    """The value at ``seconds`` of ``(seconds, value)`` points, interpolated linearly in log-duration and
    log-value between the two around it (linearly in the value where one is 0: its log is not defined;
    the larger of two at the same duration), clamped to the first and last outside their range."""
    points = sorted(points)
    if seconds <= points[0][0]:
        return points[0][1]
    if seconds >= points[-1][0]:
        return points[-1][1]
    for (t0, c0), (t1, c1) in zip(points, points[1:]):
        if t0 <= seconds <= t1:
            if t1 == t0:
                return max(c0, c1)
            w = (math.log(seconds) - math.log(t0)) / (math.log(t1) - math.log(t0))
            if c0 > 0 and c1 > 0:
                return math.exp(math.log(c0) + w * (math.log(c1) - math.log(c0)))
            return c0 + w * (c1 - c0)
    return points[-1][1]  # pragma: no cover - the loop covers every duration in range


@dataclass(frozen=True)
class NoiseProfile:
    """The machine's noise profile (see :mod:`measurefirst.measure.noise`). ``key`` names the machine, device kind
    and torch threads it holds for (:func:`~measurefirst.measure.noise.profile_key`); ``created`` is an ISO 8601 time."""

    key: str
    created: str
    torch_threads: int
    entries: tuple[ProfileEntry, ...]
    processes: int

    kind = "noise_profile"
    schema_version = PROFILE_SCHEMA_VERSION

    def floor(self, seconds: float) -> float:
        """The fresh-process spread to expect at least for a call ``seconds`` long: the busy-wait
        entries' ``cv`` interpolated linearly in log-duration *and* log-spread, clamped to the first and
        last entry outside their range (0 without busy-wait entries).

        Log-log, because the two ways a spread behaves are straight lines there: a fixed jitter in
        time (a cache line, a timer tick) gives a relative spread falling as 1/duration, a change of
        speed gives a constant one; the interpolation is exact in each regime and follows the bend
        between them. Clamped, not extrapolated: beyond the measured durations nothing says which
        regime goes on. The busy-wait is the quietest work: any call that long spreads at least as
        much between processes, whatever else it does."""
        points = [(e.seconds, e.cv) for e in self.entries if e.kind == "python" and e.seconds > 0]
        if not points or not math.isfinite(seconds) or not seconds > 0:
            return 0.0
        return log_log(points, seconds)

    def inflation(self, seconds: float | None = None, kind: str | None = None) -> float:
        """How much more fresh processes spread than repetitions inside one, for work whose own spread
        the floor does not already cover, for a call ``seconds`` long: the ratio each entry of the kinds
        of work other than the busy-wait needs (``cv / within_cv`` where ``cv`` is above
        ``floor(seconds)``; 1 where the floor already covers its fresh-process spread), interpolated in
        log-duration between the entries and clamped to the first and last outside their range, then
        clamped to :data:`INFLATION_RANGE`; 1 without such entries. ``seconds`` None: the median of the
        ratios (one figure for a profile as a whole, as the profile's table shows it).

        By duration, because on a CPU a call's length says what kind of work it is: a call of a
        microsecond or two is torch's dispatch (the 1-element add's entry), a few hundred microseconds a
        kernel's compute, milliseconds a sweep through memory; the three kinds draw very different
        states in a fresh process (measured here: the add spread 4.6x wider between processes than
        within one, the matmul not at all beyond the floor). One median for all (the rule before)
        gave the add a factor of 1.3 and its interval covered 8 runs of 10. Between two kinds the
        ratio is interpolated, as the floor is.

        Not the plain ratio of every entry: the busy-wait's in-process spread is tiny (0.02% at 20 µs
        here) and its fresh-process spread is the additive floor, so its ratio is large (4x and more) and
        says nothing about how spreads *scale*; the floor already carries it. Scaling a torch.add's 15%
        by the busy-wait's 4x would give an interval four times too wide.

        ``kind``: the call's kind of work where it is known (:mod:`measurefirst.measure.workkind`, told from
        the torch functions it calls): that kind's entry when the profile has one, whatever the call's length."""
        lo, hi = INFLATION_RANGE
        needed: list[tuple[float, float]] = []
        for e in self.entries:
            r = e.ratio
            if e.kind == "python" or r is None or not math.isfinite(r):
                continue
            needed.append((e.seconds, min(max(r if e.cv > self.floor(e.seconds) else 1.0, lo), hi)))
            if e.kind == kind:
                return needed[-1][1]
        if not needed:
            return lo
        if seconds is None or not math.isfinite(seconds) or not seconds > 0:
            return statistics.median(r for _, r in needed)
        return log_log(needed, seconds)

    def kind_floor(self, kind: str | None) -> float:
        """The fresh-process spread the profile's workload of ``kind`` showed, for a call known to do that
        kind of work (:mod:`measurefirst.measure.workkind`): a floor for compute- and memory-bound calls,
        whose repetitions can agree to 0.1% in a process that drew a speed mode 16% away (a 256x256 matmul
        here); 0 for other kinds (a busy-wait's is :meth:`floor`; a dispatch-bound call's own spread is
        wide, and the 1-element add's fresh spread is its 1 µs length's, not every dispatch-bound call's)
        and without an entry."""
        e = self.entry(kind) if kind in ("compute", "memory") else None
        return e.cv if e is not None else 0.0

    def within_at(self, seconds: float, kind: str | None = None) -> float:
        """The in-process spread the profile's kinds of work (not the busy-wait) showed at a call
        ``seconds`` long, interpolated in log-duration between them as :meth:`inflation` is (``kind``: that
        kind's entry where the profile measured one); 0 where none measured one. What a run's own repetitions are held against (:func:`measurefirst.measure.noise.
        apply_profile`): a run whose repetitions spread far wider than that is not the work, or not the
        machine, the profile measured."""
        points = [(e.seconds, e.within_cv, e.kind) for e in self.entries if e.kind != "python"
                  and e.within_cv is not None and e.within_cv > 0 and e.seconds > 0]
        mine = [float(w or 0.0) for _, w, k in points if k == kind]
        if mine:
            return mine[0]
        if not points or not math.isfinite(seconds) or not seconds > 0:
            return 0.0
        return log_log([(t, float(w or 0.0)) for t, w, _ in points], seconds)

    def entry(self, kind: str, seconds: float | None = None) -> ProfileEntry | None:
        """The entry of ``kind`` (the one closest to ``seconds`` in log-duration, for the busy-waits)."""
        found = [e for e in self.entries if e.kind == kind]
        if not found:
            return None
        if seconds is None or not seconds > 0:
            return found[0]
        return min(found, key=lambda e: abs(math.log(max(e.seconds, 1e-12)) - math.log(seconds)))

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": PROFILE_SCHEMA_VERSION, "kind": self.kind, "key": self.key,
                "created": self.created, "torch_threads": self.torch_threads, "processes": self.processes,
                "inflation": self.inflation(), "entries": [e.to_dict() for e in self.entries]}

    def to_json(self, indent: int | None = 2) -> str:
        from .safeio import strict_json

        return strict_json(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: Any, path: str = "profile") -> "NoiseProfile":
        """A profile from its stored form, validated; anything missing, ill-typed or out of range raises
        ``ValueError`` naming the field (and nothing else is raised). ``inflation`` is recomputed."""
        if not isinstance(d, dict):
            raise ValueError(f"{path} must be a JSON object; got {type(d).__name__}")
        if d.get("kind") != "noise_profile":
            raise ValueError(f'{path} is not a measurefirst noise profile (missing "kind": "noise_profile")')
        version = d.get("schema_version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ValueError(f"{path}.schema_version must be an integer; got {version!r}")
        if version > PROFILE_SCHEMA_VERSION:
            raise ValueError(f"{path}.schema_version is {version}, newer than this measurefirst understands "
                             f"({PROFILE_SCHEMA_VERSION}); upgrade measurefirst or measure the profile again")
        if version < 1:
            raise ValueError(f"{path}.schema_version must be >= 1; got {version}")
        entries = d.get("entries")
        if not isinstance(entries, list):
            raise ValueError(f"{path}.entries must be a list; got {type(entries).__name__}")
        if len(entries) > MAX_ENTRIES:
            raise ValueError(f"{path}.entries holds {len(entries)} entries; a profile has at most {MAX_ENTRIES}")
        return cls(key=_text(d, "key", path), created=_text(d, "created", path),
                   torch_threads=_count(d.get("torch_threads"), f"{path}.torch_threads", 1),
                   processes=_count(d.get("processes"), f"{path}.processes", 1),
                   entries=tuple(_entry(e, f"{path}.entries[{i}]") for i, e in enumerate(entries)))

    @classmethod
    def from_json(cls, text: str | bytes) -> "NoiseProfile":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise ValueError(f"not a measurefirst noise profile: invalid JSON ({exc})") from None
        return cls.from_dict(data)


def _text(d: dict[str, Any], key: str, path: str) -> str:
    v = d.get(key)
    if not isinstance(v, str):
        raise ValueError(f"{path}.{key} must be a string; got {v!r}")
    return v


def _count(v: Any, path: str, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ValueError(f"{path} must be an integer >= {minimum}; got {v!r}")
    return v


def _nonneg(v: Any, path: str, *, positive: bool = False, at_most: float = math.inf) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ValueError(f"{path} must be a finite number {'> 0' if positive else '>= 0'}; got {v!r}")
    if v > at_most:
        raise ValueError(f"{path} must be at most {at_most:g}; got {v!r}")
    return float(v)


def _entry(e: Any, path: str) -> ProfileEntry:
    if not isinstance(e, dict):
        raise ValueError(f"{path} must be an object; got {type(e).__name__}")
    kind = e.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{path}.kind must be one of {', '.join(KINDS)}; got {kind!r}")
    within = e.get("within_cv")
    return ProfileEntry(kind=str(kind), seconds=_nonneg(e.get("seconds"), f"{path}.seconds", positive=True,
                                                        at_most=MAX_SECONDS),
                        cv=_nonneg(e.get("cv"), f"{path}.cv", at_most=MAX_CV),
                        within_cv=None if within is None else _nonneg(within, f"{path}.within_cv", at_most=MAX_CV),
                        processes=_count(e.get("processes"), f"{path}.processes", 1))
