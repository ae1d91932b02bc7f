"""The machine's noise profile: how far a benchmark's median moves between fresh processes here.

**Why.** Repetitions inside one process share its address layout, its allocator's state and its
threads' placement; a re-run in a fresh process does not. Measured on a shared 2-core machine: a 20 µs
busy-wait spread 0.11% between repetitions in one process but 0.46% across fresh processes, a 256x256
matmul 4.55% against 7.36%, a 1-element ``torch.add`` 15.5% against 18.9%. An interval built from
in-process repetitions alone is too narrow for where the next run (a new process) lands.

**What is measured** (:func:`measure_profile`, run by ``measurefirst selfcheck --noise``): ``P`` fresh
interpreters, one after the other (never at the same time: they would compete for the cores), each
benchmarking every workload of :data:`WORKLOADS` with :func:`~measurefirst.benchmark` on the CPU with
the parent's torch threads and its default repetitions. Per workload (a :class:`ProfileEntry`):

* ``cv``: the fresh-process spread of the log per-process medians (as a relative figure,
  ``expm1(sd)``; logs because spreads are relative and a slow process is as likely as a fast one on
  that scale), judged by its tail (:func:`tail_log_sd`: the larger of the median absolute deviation's
  figure and what the second-farthest process implies, so that a speed mode two processes of ten draw
  widens it and one process disturbed by another program does not set it);
* ``within_cv``: the in-process spread, the median over the processes of each one's repetition spread
  (``m.run_to_run.cv``; the median because one disturbed process must not set it).

**How it is used** (:func:`apply_profile`, at the end of ``benchmark()`` on the real clock): a run's repetition
spread ``cv`` becomes ``cv * inflation()`` (never below the prior's: :func:`run_inflation`; multiplied only up to the
spread such repetitions had, the rest, load, added: :func:`prior_widening`), its ``floor`` ``floor(median)``
(``floor_source="profile"``); :attr:`~measurefirst.results.kinds.RunToRun.spread` is the larger. A run with no spread
measured (``repeats=1``) gets the floor as its spread (source ``"profile"``, the 95% factor of the ``P`` processes).
Two parts, because what fresh processes add is of two kinds:

* an **additive** part that every call of a given length carries, whatever it does (clock and
  frequency state, interrupts, where the loop lands in memory): the busy-wait, the quietest work there
  is, shows it alone. :meth:`NoiseProfile.floor` reads it by call duration, so it holds for any
  workload, named here or not.
* a **multiplicative** part for work whose spread inside a process is already large (allocation,
  dispatch, caches, threads): a fresh process draws that state anew, so the spread grows in proportion.
  :meth:`NoiseProfile.inflation` reads it from the kinds of work, as a ratio that scales any run's own
  measured spread, by the call's kind of work where :mod:`.workkind` told it from the torch functions it calls (a
  compute- or memory-bound call takes that kind's fresh-process spread as a floor too: ``kind_floor``), else by
  its duration (a microsecond call is dispatch, milliseconds are memory), so it holds for work it never saw.

The workloads' ``cv`` values are estimates from ``P`` values each (few: the floor is a prior, not a
promise). As prior information about the spread's scale, the floor lends the run's 95% factor its
degrees of freedom (``P - 1``, at most :data:`MAX_PROFILE_DOF`; :data:`PRIOR_DOF` for the prior), so two
repetitions give a factor of 3.0 with a profile rather than 15.6; it never lends its smaller scale: the spread stays the
larger of the run's own and the floor (:class:`~measurefirst.results.kinds.RunToRun` says why).

**Without a profile** (a fresh machine, a CI runner, a new user), repetitions inside one process are
all a run knows, and they cannot see what a fresh process changes. A run then says so and widens its
interval by **measurefirst's prior** (:func:`prior_profile`): a noise profile measured on a reference
machine (the shared 2-vCPU development guest, a noisy one: when in doubt, widen), shipped in
:mod:`measurefirst.measure.noise_prior` with the command that measured it, and applied as a profile would be
(``floor_source="prior"``; ``source="prior"`` for ``repeats=1``), its factor multiplying repetitions only up to
the spread its reference's repetitions had (:func:`~measurefirst.results.noise.prior_widening`). The finding
``no_noise_profile`` names the fix: ``measurefirst selfcheck --noise`` once, or ``processes=K`` (three fresh
processes on the command line: fewer re-runs covered, 8x the time; docs/benchmarks.md).

**Where it lives**: a per-machine file, ``$MEASUREFIRST_PROFILE`` or ``~/.cache/measurefirst/noise-<host>.json``
(:func:`profile_path`), keyed by host, device kind and torch threads. Nothing here prints or imports torch.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import socket
import stat
import statistics
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

from ..results import stats
from .workkind import work_kind
from ..results.noise import (INFLATION_RANGE as INFLATION_RANGE, KINDS as KINDS, MAX_CV,
                             PRIOR_INFLATION_RANGE as PRIOR_INFLATION_RANGE,
                             PROFILE_SCHEMA_VERSION as PROFILE_SCHEMA_VERSION, NoiseProfile as NoiseProfile,
                             ProfileEntry as ProfileEntry, log_log, prior_widening)

if TYPE_CHECKING:  # pragma: no cover
    from ..results.kinds import Measurement

#: The workloads: (kind, target seconds; None where the work sets its own length).
WORKLOADS: tuple[tuple[str, float | None], ...] = (
    ("python", 2e-6), ("python", 20e-6), ("python", 200e-6), ("python", 2e-3),
    ("dispatch", None), ("compute", None), ("memory", None))
#: Quick mode (tests): fewer workloads...
QUICK_WORKLOADS: tuple[tuple[str, float | None], ...] = (("python", 20e-6), ("python", 200e-6), ("dispatch", None))
#: ...fewer processes, and shorter budgets (seconds per workload in each process).
PROCESSES, QUICK_PROCESSES = 10, 2
BUDGET_S, QUICK_BUDGET_S = 1.0, 0.3
#: A worker process that takes longer than this (seconds) has hung.
WORKER_TIMEOUT_S = 300.0
#: The environment variable naming the profile file.
PROFILE_ENV = "MEASUREFIRST_PROFILE"
#: The degrees of freedom measurefirst's prior lends a measured spread's 95% factor (a profile of this
#: machine lends its ``processes - 1``; see :class:`~measurefirst.results.kinds.RunToRun`). Two, not the
#: reference machine's five: the prior was measured on another machine, so its floor says little about
#: this one's scale, and two is the least weight whose predictive t (``2 + n - 1`` degrees of freedom)
#: has a finite variance from the fewest repetitions that measure a spread (``n = 2``), so the factor
#: is set by the data's scale rather than by a tail with no variance: 3.9 at ``n = 2`` (3.0 with a
#: six-process profile of this machine, 15.6 with no floor).
PRIOR_DOF = 2
#: The most degrees of freedom a profile of this machine lends (a six-process profile's): a profile's
#: spread is an estimate of the modes its processes drew that day, and measuring more processes (ten
#: since issue 35, to see a mode one process in five draws) must widen what it sees, not narrow every
#: interval's factor by its count: the next run may land on another day's mode.
MAX_PROFILE_DOF = 5
#: Where a run-to-run floor came from (:attr:`~measurefirst.results.kinds.RunToRun.floor_source`): this
#: machine's profile, or measurefirst's prior when this machine has none.
FLOOR_SOURCES = ("profile", "prior")


# ---- the key and the file -----------------------------------------------------------------------------
def profile_key(device: str = "cpu", threads: int = 1, host: str | None = None) -> str:
    """``host/device kind/threads``: the machine, device kind and torch threads a profile holds for."""
    return f"{host or socket.gethostname()}/{device}/{threads}threads"


def profile_path(threads: int | None = None) -> Path:
    """``$MEASUREFIRST_PROFILE``, else ``$XDG_CACHE_HOME/measurefirst/noise-<hostname>.json``
    (``~/.cache`` when ``XDG_CACHE_HOME`` is unset), or ``noise-<hostname>-<threads>threads.json`` for a
    profile of ``threads`` torch threads other than this machine's default: one file per thread count,
    so a profile measured with one thread (as many benchmarks run) does not replace the default one."""
    given = os.environ.get(PROFILE_ENV)
    if given:
        return Path(given).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    host = "".join(c if c.isalnum() or c in "-_." else "_" for c in socket.gethostname()) or "host"
    suffix = "" if threads is None or threads == _default_threads() else f"-{threads}threads"
    return Path(cache) / "measurefirst" / f"noise-{host}{suffix}.json"


def _default_threads() -> int:
    """torch's default intra-op threads on this machine (``OMP_NUM_THREADS``, else the cores it sees)."""
    env = os.environ.get("OMP_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def save_profile(profile: NoiseProfile, path: str | os.PathLike[str] | None = None) -> Path:
    """Write ``profile`` whole or not at all (the folder is created); returns the path."""
    from ..results.safeio import write_atomic

    p = Path(path) if path is not None else profile_path(profile.torch_threads)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, profile.to_json() + "\n", what="noise profile")
    _CACHE.pop(str(p), None)
    return p


#: What :func:`read_profile` says besides the profile (codes; words in ``noise.status.*``).
STATUSES = ("used", "absent", "missing", "not_a_file", "corrupt", "other_machine", "other_threads")
#: A profile file larger than this is not read (a real one is under 4 KiB): a file of 600,000 entries
#: made every run parse it first.
MAX_PROFILE_BYTES = 1 << 20

#: The profiles read so far in this process, by path: (modification time ns, size, profile or None, status).
_CACHE: dict[str, tuple[int, int, NoiseProfile | None, str]] = {}


def read_profile(path: str | os.PathLike[str] | None = None, threads: int | None = None
                 ) -> tuple[NoiseProfile | None, str]:
    """The profile stored at ``path`` (default :func:`profile_path` for ``threads``) and a status: ``used``,
    ``absent``, ``missing`` (``$MEASUREFIRST_PROFILE`` names a file that does not exist: said, not
    ignored), ``not_a_file`` (a folder, a FIFO or a device: never opened, so a FIFO cannot hang the run)
    or ``corrupt`` (unreadable, larger than :data:`MAX_PROFILE_BYTES`, or not a valid profile: ignored,
    never raised). Read once per modification of the file in a process."""
    named = path is None and bool(os.environ.get(PROFILE_ENV))
    p = Path(path) if path is not None else profile_path(threads)
    try:
        st = p.stat()
    except OSError:
        return None, "missing" if named else "absent"
    if not stat.S_ISREG(st.st_mode):
        return None, "not_a_file"
    cached = _CACHE.get(str(p))
    if cached is not None and cached[0] == st.st_mtime_ns and cached[1] == st.st_size:
        return cached[2], cached[3]
    try:
        if st.st_size > MAX_PROFILE_BYTES:
            raise ValueError(f"{p} is {st.st_size} bytes, more than a noise profile holds")
        profile: NoiseProfile | None = NoiseProfile.from_json(p.read_bytes())
        status = "used"
    except (OSError, ValueError):
        profile, status = None, "corrupt"
    _CACHE[str(p)] = (st.st_mtime_ns, st.st_size, profile, status)
    return profile, status


def load_profile(path: str | os.PathLike[str] | None = None, *, device: str = "cpu",
                 threads: int | None = None) -> NoiseProfile | None:
    """This machine's profile for ``device`` (kind) and ``threads`` torch threads, or None when there is
    none, the file is corrupt, or it was measured on another machine, device kind or thread count."""
    return lookup(path, device=device, threads=threads)[0]


def lookup(path: str | os.PathLike[str] | None = None, *, device: str = "cpu",
           threads: int | None = None) -> tuple[NoiseProfile | None, str]:
    """:func:`load_profile` with the status (one of :data:`STATUSES`) saying why there is none."""
    profile, status = read_profile(path, threads)
    if profile is None:
        return None, status
    host, kind, _ = profile.key.rsplit("/", 2) if profile.key.count("/") >= 2 else ("", "", "")
    if host != socket.gethostname() or kind != device:
        return None, "other_machine"
    if threads is not None and profile.torch_threads != threads:
        return None, "other_threads"
    return profile, "used"


# ---- applying it to a measurement ------------------------------------------------------------------------
def apply_profile(m: "Measurement", profile: NoiseProfile, source: str = "profile",
                  inflation: float | None = None) -> "Measurement":
    """``m`` with the profile applied to its run-to-run spread (see the module docstring); ``source``:
    ``"profile"`` (this machine's) or ``"prior"`` (:func:`prior_profile`: the floor and the spread it sets
    say so, and the options name it, ``noise_prior``, instead of ``noise_profile``); ``inflation``: the
    factor on a spread of repetitions (default :meth:`NoiseProfile.inflation`):

    * measured by repetitions: ``cv`` times :meth:`NoiseProfile.inflation` (by the call's ``work_kind``; up to the
      kind's in-process spread, the rest added: :func:`prior_widening`), ``floor`` :meth:`NoiseProfile.floor` at
      the median or, larger, :meth:`NoiseProfile.kind_floor` (this machine's profile; ``noise_floor_kind``); the
      options keep the factor (``run_to_run_inflation``): the repetitions' own spread is ``cv / factor``;
    * measured by fresh processes: the floor only (they saw what fresh processes change);
    * not measured (``repeats=1``, or fewer than two repetitions fit): the floor is the spread
      (``source="profile"``, ``n`` the profile's processes, their 95% factor);
    * measured from a history or given, or without samples: unchanged."""
    from ..results.kinds import RunToRun, spread_factor

    median = m.median
    if m.summary is None or not math.isfinite(median) or not median > 0:
        return m
    if source not in FLOOR_SOURCES:
        raise ValueError(f"source must be one of {', '.join(FLOOR_SOURCES)}; got {source!r}")
    kind = work_kind(m)
    busy, by_kind = profile.floor(median), profile.kind_floor(kind) if source == "profile" else 0.0
    floor = max(busy, by_kind)  # by kind: compute- and memory-bound calls, this machine's profile only
    dof = floor_dof(profile, floor, source)
    rr = m.run_to_run
    notes: dict[str, Any] = {"noise_" + source: profile.key if source == "profile" else prior_name(profile)}
    notes.update({"noise_floor_kind": kind} if by_kind > busy else {})
    if rr is None:
        rr = RunToRun(cv=floor, source=source, n=profile.processes, factor=spread_factor(profile.processes),
                      floor=floor, floor_source=source)
    elif rr.source in ("repeats", "processes"):
        cv = rr.cv
        disagrees = False
        if rr.source == "repeats":  # fresh processes saw what a fresh process changes: no inflation for them
            rule = run_inflation if source == "profile" else NoiseProfile.inflation
            factor = rule(profile, median, kind) if inflation is None else inflation
            own = profile.within_at(median, kind)
            within = own if source == "profile" and inflation is None else 0.0
            if beyond_chance(cv, rr.n, within, profile.processes - 1):
                # not the work, or not the machine, the profile measured: widened as without a profile
                factor, disagrees = max(factor, prior_inflation(median)), True
                notes["noise_profile_disagrees"] = within
                notes["noise_profile_disagrees_limit"] = spread_limit(rr.n, profile.processes - 1)
            reach = max(own, prior_profile().within_at(median, kind)) if source == "profile" else own
            full, (factor, capped) = factor, prior_widening(cv, factor, reach)  # load beyond it: added, not multiplied
            notes.update({"run_to_run_full_inflation": full, "run_to_run_multiplied_to": capped} if capped else {})
            notes["run_to_run_inflation"] = factor
            cv *= factor
        dof = 0 if disagrees else lent_dof(cv, rr.n, floor, dof)
        rr = replace(rr, cv=cv, floor=max(rr.floor, floor), floor_source=source, prior_dof=dof,
                     factor=spread_factor(rr.n, dof))
    else:
        return m
    return replace(m, run_to_run=rr, options={**m.options, **notes})


def run_inflation(profile: NoiseProfile, seconds: float, kind: str | None = None) -> float:
    """A run's inflation with this machine's ``profile``: the larger of the profile's at the call's duration (or
    its ``kind`` of work's) and :func:`prior_inflation` (as the ranges stand, the prior's): ten processes of minutes
    cannot vouch for less than the prior's studies of days saw (a profile read the 32 MB copy at 1.07x, then the
    copies spread 1.4x: docs/benchmarks.md); the profile still gives the floor and its degrees of freedom."""
    return max(profile.inflation(seconds, kind), prior_inflation(seconds, kind))


def process_floor(seconds: float, *, device: str = "cpu", threads: int | None = None,
                  machine: bool = True) -> tuple[float, int, str]:
    """The fresh-process spread to expect at least for a call ``seconds`` long, the degrees of freedom it
    lends and where it comes from: this machine's profile for ``device`` when there is one, else
    measurefirst's prior (:func:`apply_profile`'s rule for both). For a comparison of two interpreters
    (``pytest --mf-against``): each side's process draws its own speed mode. ``machine=False`` (a
    simulated clock: no machine to profile) takes the prior."""
    profile = lookup(device=device, threads=threads)[0] if machine else None
    source = "profile" if profile is not None else "prior"
    profile = profile if profile is not None else prior_profile()
    floor = profile.floor(seconds)
    return floor, floor_dof(profile, floor, source), source


def floor_dof(profile: NoiseProfile, floor: float, source: str) -> int:
    """The degrees of freedom a floor lends (see the module docstring): none where there is no floor (a profile
    without busy-waits), :data:`PRIOR_DOF` for the prior, else the profile's ``processes - 1`` up to the max."""
    if not floor > 0:
        return 0
    return min(PRIOR_DOF if source == "prior" else MAX_PROFILE_DOF, profile.processes - 1)


def lent_dof(cv: float, n: int, floor: float, dof: int) -> int:
    """The degrees of freedom a floor lends a spread ``cv`` measured from ``n`` values: ``dof``, unless the
    values contradict the floor (a prior-data conflict): their spread above it by more than chance
    allows (:func:`beyond_chance`). Then the floor says nothing about this work's scale and lends
    nothing: the factor is the values' own (wide with few of them; when in doubt, widen)."""
    return 0 if beyond_chance(cv, n, floor, dof) else dof


def beyond_chance(cv: float, n: int, ref: float, dof: int) -> bool:
    """Whether a spread ``cv`` measured from ``n`` values lies above a spread ``ref`` known to ``dof``
    degrees of freedom by more than chance allows: ``(cv / ref)^2`` beyond the 95% quantile of
    F(n - 1, dof), i.e. ``cv / ref`` beyond :func:`spread_limit`. A floor that the values contradict
    (:func:`lent_dof`); a run's repetitions against the in-process spread of the profile's work of that
    length (:func:`apply_profile`, with the profile's ``processes - 1``)."""
    if dof <= 0 or n < 2 or not ref > 0 or not cv > ref:
        return False
    return cv / ref > spread_limit(n, dof)


def spread_limit(n: int, dof: int) -> float:
    """The largest ratio of a spread of ``n`` values to one of ``dof`` degrees of freedom at 95%: sqrt F(n-1,dof)."""
    return math.sqrt(stats.f_quantile(0.95, n - 1, dof))


def for_benchmark(m: "Measurement", given: "NoiseProfile | Literal[False] | None", real_clock: bool,
                  threads: int) -> "Measurement":
    """What ``benchmark()`` returns: ``m`` with a profile applied (:func:`with_profile`), its interval
    reaching down to what its CPU time says where it waited for a core (:func:`with_starvation`)."""
    return with_starvation(with_profile(m, given, real_clock, threads), threads)


def with_starvation(m: "Measurement", threads: int) -> "Measurement":
    """``m`` with its run-to-run spread widened, where it waited for a core in most samples, so that its
    interval reaches down to :func:`~measurefirst.results.sample_masks.starved_low` (``threads``: torch's
    intra-op threads): the samples agreed on the scheduler's time, and a run with the cores free lands
    there; and where it was not starved but ran where a fresh run can be
    (:func:`~measurefirst.results.sample_masks.oversubscribed`), so that it reaches
    :data:`~measurefirst.results.sample_masks.STARVED_MIN_FACTOR` either way. Unchanged without a
    run-to-run spread (nothing then claims where the next run lands)."""
    from ..results.sample_masks import STARVED_MIN_FACTOR, oversubscribed, starved_low

    rr = m.run_to_run
    if rr is None or not m.n_samples or m.summary is None:
        return m
    median_ns = m.median * 1e9
    costly = m.n_preempted / m.n_samples
    low = starved_low(m.cpu_per_call_ns, median_ns, threads, costly, m.cpu_wait_share)
    if low is None and oversubscribed(m.pool_wait_share, threads, costly):
        low = median_ns / STARVED_MIN_FACTOR
    if low is None or not rr.factor > 0 or not math.isfinite(rr.factor):
        return m
    need = math.expm1(math.log(median_ns / low) / rr.factor)  # factor * log(1 + spread) = log(median / low)
    return m if need <= rr.spread else replace(m, run_to_run=replace(rr, starved=need))


def with_profile(m: "Measurement", given: "NoiseProfile | Literal[False] | None", real_clock: bool,
                 threads: int) -> "Measurement":
    """``m`` with a profile applied. ``given``: a profile (applied),
    False (none), None (this machine's saved profile, for a run on the real CPU clock only: a
    simulated clock has no machine to profile; without a usable one, measurefirst's prior,
    :func:`prior_profile`). A saved profile that cannot be used because the file is corrupt or was
    measured with other threads leaves a note in the options (``noise_profile_ignored``)."""
    if given is False:
        return m
    if isinstance(given, NoiseProfile):
        return apply_profile(m, given)
    if given is not None:
        raise TypeError(f"noise_profile must be a NoiseProfile, False or None; got {type(given).__name__}")
    if not real_clock or m.device != "cpu":
        return m
    profile, status = lookup(device="cpu", threads=threads)
    if profile is not None:
        return apply_profile(m, profile)
    if status in ("missing", "not_a_file", "corrupt", "other_threads"):
        m = replace(m, options={**m.options, "noise_profile_ignored": status})
    return apply_profile(m, prior_profile(), "prior", prior_inflation(m.median, work_kind(m)))


def prior_inflation(seconds: float, kind: str | None = None) -> float:
    """The prior's inflation for a call ``seconds`` long: ``noise_prior.PRIOR_INFLATION``'s factor of the call's
    ``kind`` of work where it is known and has one, else of each kind at the duration of the prior's entry of that
    kind, interpolated in log-duration between them and clamped to the first and last outside their range (as
    :meth:`NoiseProfile.inflation` reads a profile's); within :data:`PRIOR_INFLATION_RANGE`; two decimals, as it
    is shown. By kind because the kinds differ: a compute kernel's fresh processes landed in modes 3% apart
    against 0.2% repetitions (5.1x), a 1-element add's 2.2-2.3x (docs/benchmarks.md)."""
    from .noise_prior import PRIOR_INFLATION

    lo, hi = PRIOR_INFLATION_RANGE
    if kind in PRIOR_INFLATION:
        return round(min(max(PRIOR_INFLATION[kind], lo), hi), 2)
    points = [(e.seconds, min(max(PRIOR_INFLATION[e.kind], lo), hi)) for e in prior_profile().entries
              if e.kind in PRIOR_INFLATION and e.seconds > 0]
    if not points:
        return lo
    if not math.isfinite(seconds) or not seconds > 0:
        return max(f for _, f in points)
    return round(log_log(points, seconds), 2)


def prior_profile() -> NoiseProfile:
    """measurefirst's prior: the noise profile measured on the reference machine
    (:mod:`measurefirst.measure.noise_prior`, which names the commands, the machine and the dates), used
    where this machine has none, its floor as a profile's and its repetitions' spread times
    :func:`prior_inflation` (measured by ``benchmarks/runtorun.py --fresh``)."""
    global _PRIOR
    if _PRIOR is None:
        from .noise_prior import PRIOR

        _PRIOR = NoiseProfile.from_dict(PRIOR, "noise_prior.PRIOR")
    return _PRIOR


_PRIOR: NoiseProfile | None = None


def prior_name(profile: NoiseProfile) -> str:
    """How a result names the prior it used: ``prior:<its key>@<when it was measured>``."""
    return f"prior:{profile.key}@{profile.created}"


# ---- measuring it ---------------------------------------------------------------------------------------
def workload_id(kind: str, seconds: float | None) -> str:
    """``python-20us``, ``dispatch``, ...: a workload's name in the worker protocol."""
    if seconds is None:
        return kind
    us = seconds * 1e6
    return f"{kind}-{us:g}us"


Progress = Callable[[int, int], None]


class NoiseProfileError(RuntimeError):
    """A worker process of :func:`measure_profile` failed (the message names it and holds its stderr tail),
    or the machine was too disturbed for a profile (a spread over :data:`~measurefirst.results.noise.MAX_CV`,
    which a stored profile may not hold)."""


def measure_profile(processes: int | None = None, quick: bool = False, progress: Progress | None = None,
                    *, threads: int | None = None, budget: float | None = None,
                    workloads: Sequence[tuple[str, float | None]] | None = None) -> NoiseProfile:
    """Measure this machine's noise profile in ``processes`` fresh interpreters (default
    :data:`PROCESSES`; :data:`QUICK_PROCESSES` with ``quick``), one after the other, each benchmarking
    every workload (:data:`WORKLOADS`; :data:`QUICK_WORKLOADS` with ``quick``) for ``budget`` seconds
    at most (:data:`BUDGET_S`; :data:`QUICK_BUDGET_S`). ``threads``: torch threads in the workers
    (default: this process's, as torch reports them). ``progress(i, processes)`` is called before each
    process starts. About 6-7 s per process here (interpreter and torch start-up, then the workloads);
    ``quick``: about 4 s per process. Raises :class:`NoiseProfileError` when a worker fails, ``ValueError``
    for bad arguments."""
    p = processes if processes is not None else (QUICK_PROCESSES if quick else PROCESSES)
    if isinstance(p, bool) or not isinstance(p, int) or p < 2:
        raise ValueError(f"processes must be an integer >= 2 (a spread needs two values); got {p!r}")
    todo = tuple(workloads if workloads is not None else (QUICK_WORKLOADS if quick else WORKLOADS))
    for kind, seconds in todo:
        if kind not in KINDS or (kind == "python") != (seconds is not None and seconds > 0):
            raise ValueError(f"a workload is (kind, seconds) with kind one of {', '.join(KINDS)} and seconds "
                             f"for 'python' only; got {(kind, seconds)!r}")
    b = budget if budget is not None else (QUICK_BUDGET_S if quick else BUDGET_S)
    if threads is None:
        import torch

        threads = int(torch.get_num_threads())
    request = json.dumps({"workloads": [[k, s] for k, s in todo], "budget": b, "threads": threads})
    runs: list[dict[str, dict[str, Any]]] = []
    for i in range(p):
        if progress is not None:
            progress(i + 1, p)
        runs.append(_run_worker(request, i, p))
    entries = []
    for kind, seconds in todo:
        wid = workload_id(kind, seconds)
        entries.append(entry_from(kind, [r[wid]["median"] for r in runs],
                                  [r[wid].get("within_cv") for r in runs]))
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return NoiseProfile(key=profile_key("cpu", threads), created=created, torch_threads=threads,
                        entries=tuple(entries), processes=p)


#: The standard deviation of a normal distribution over its median absolute deviation.
MAD_TO_SIGMA = 1.482602218505602


def robust_log_sd(logs: Sequence[float]) -> float:
    """The spread of log medians, robust to one disturbed process: ``MAD_TO_SIGMA`` times the median
    absolute deviation from the median, from three values on (two: the sample standard deviation, which
    is then the same figure within 5%). A process that another program's load slowed 100x (seen here: a
    matmul on both cores while a test suite ran) must not set the machine's prior for good; the
    in-process spread is a median over processes for the same reason. When more than half the processes
    agree to the nanosecond (the median absolute deviation is 0: a quiet busy-wait), the sample standard
    deviation of the others with the farthest left out."""
    xs = list(logs)
    if len(xs) < 3:
        return statistics.stdev(xs)
    centre = statistics.median(xs)
    mad = statistics.median(abs(x - centre) for x in xs)
    if mad > 0:
        return MAD_TO_SIGMA * mad
    xs.remove(max(xs, key=lambda x: abs(x - centre)))
    return statistics.stdev(xs)


#: From this many processes on, a profile's spread is read from its tail as well (:func:`tail_log_sd`).
TAIL_FROM = 5


def tail_log_sd(logs: Sequence[float]) -> float:
    """The spread of log medians judged by its tail: the larger of :func:`robust_log_sd` and the spread
    for which the second-farthest process from the median is where the second-farthest of that many
    normal values lands half the time (:func:`second_largest_z`). From :data:`TAIL_FROM` processes on.

    Why the tail: a fresh process can land in another speed mode (address layout, allocator state,
    placement), one process in five or so, minutes at a time; the median absolute deviation, built to
    ignore one disturbed process, ignores such a mode too. Measured here: a profile's six processes put
    a 20 µs busy-wait's spread at 0.012%, and the next ten processes spread 0.36%; intervals built on
    the profile covered 7 of 10. The second-farthest, not the farthest: one process disturbed by another
    program stays ignored (a mode that only one process in ten draws costs a tenth of coverage at most),
    a mode that two of ten draw sets the spread."""
    xs = list(logs)
    base = robust_log_sd(xs)
    if len(xs) < TAIL_FROM:
        return base
    centre = statistics.median(xs)
    second = sorted((abs(x - centre) for x in xs), reverse=True)[1]
    return max(base, second / second_largest_z(len(xs)))


def second_largest_z(n: int) -> float:
    """The median of the second-largest of ``n`` absolute standard normal values: ``q`` with
    ``F^n + n F^(n-1) (1 - F) = 1/2``, ``F = 2 Phi(q) - 1`` (1.40 for ten, 1.12 for six), by bisection."""
    lo, hi = 0.0, 10.0
    for _ in range(60):
        q = (lo + hi) / 2
        f = math.erf(q / math.sqrt(2))  # P(|Z| <= q)
        if f ** n + n * f ** (n - 1) * (1 - f) < 0.5:
            lo = q
        else:
            hi = q
    return (lo + hi) / 2


def entry_from(kind: str, medians: Sequence[float], within: Sequence[float | None]) -> ProfileEntry:
    """One workload's entry from its per-process medians (seconds) and in-process spreads: the
    fresh-process spread is :func:`tail_log_sd` of the log medians, as a relative figure (``expm1``)."""
    good = [x for x in medians if isinstance(x, (int, float)) and math.isfinite(x) and x > 0]
    if len(good) < 2:
        raise NoiseProfileError(f"the {kind} workload gave fewer than two usable medians ({len(good)})")
    logs = [math.log(x) for x in good]
    cv = math.expm1(tail_log_sd(logs))
    inner = [w for w in within if w is not None and math.isfinite(w)]
    within_cv = statistics.median(inner) if inner else None
    worst = max(cv, within_cv or 0.0)
    if worst > MAX_CV:  # what the profile's reader refuses (a disturbed file) is never written
        raise NoiseProfileError(f"the machine was too disturbed while the noise profile was measured: the {kind} "
                                f"workload's {'fresh processes' if cv >= (within_cv or 0.0) else 'repetitions'} "
                                f"spread {worst:.0%} (over {MAX_CV:.0%} is load, not the machine); nothing was saved: "
                                f"measure it again when the machine is quieter")
    return ProfileEntry(kind=kind, seconds=statistics.median(good), cv=cv, within_cv=within_cv, processes=len(good))


def _run_worker(request: str, index: int, total: int) -> dict[str, dict[str, Any]]:
    from .workers import Overtime, exit_words, run_worker

    try:
        code, out, err = run_worker(["noise", request], WORKER_TIMEOUT_S)
    except Overtime as exc:
        raise NoiseProfileError(f"noise profile: worker process {index + 1} of {total} had not finished "
                                f"{exc.seconds:.0f} s after it started; it was stopped (is the machine "
                                f"overloaded?)") from None
    lines = [line for line in out.splitlines() if line.strip()]
    try:
        results = json.loads(lines[-1])["results"] if code == 0 and lines else None
    except (ValueError, KeyError, TypeError):
        results = None
    if not isinstance(results, dict):
        tail = (err or out).strip()[-1500:]
        raise NoiseProfileError(f"noise profile: worker process {index + 1} of {total} failed ({exit_words(code)}): "
                                f"{tail}")
    return results


def noise_profile(processes: int | None = None, quick: bool = False, *, save: bool = True,
                  path: str | os.PathLike[str] | None = None, progress: Progress | None = None,
                  threads: int | None = None) -> NoiseProfile:
    """Measure this machine's noise profile (:func:`measure_profile`) and save it where ``benchmark()``
    finds it (:func:`profile_path`, or ``path``) unless ``save`` is False. ``threads``: the torch threads
    to profile (default: the current ones); a benchmark uses the profile of the threads it runs with.
    ``measurefirst selfcheck --noise [--threads N]`` calls this."""
    profile = measure_profile(processes, quick, progress, threads=threads)
    if save:
        save_profile(profile, path)
    return profile


__all__ = ["NoiseProfile", "ProfileEntry", "NoiseProfileError", "measure_profile", "noise_profile", "load_profile",
           "read_profile", "save_profile", "profile_path", "profile_key", "apply_profile", "prior_profile",
           "KINDS", "WORKLOADS"]
