"""The run-to-run spread: how far the next run's median may land from this one's (:class:`RunToRun`), where
it was measured, and its arithmetic: the spread of independent medians and the 95% factor that goes with
how many there are."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from . import stats
from .findings import Finding, found
from .sample_masks import STARVED_MIN_FACTOR, oversubscribed, starved_low

#: Where a run-to-run spread was measured (the codes; their words are in :mod:`measurefirst.render.words`):
#: repetitions inside the call, each with its own warm-up and calibration; fresh worker processes; the
#: store's history of the same benchmark on the same machine; the machine's noise profile (measured by
#: ``selfcheck --noise`` in fresh processes); measurefirst's prior where the machine has no profile
#: (:func:`measurefirst.measure.noise.prior_profile`); or a figure the caller gave.
RUN_TO_RUN_SOURCES = ("repeats", "processes", "history", "profile", "prior", "given")


@dataclass(frozen=True)
class RunToRun:
    """How far the next run's median may land from this one's: the relative standard deviation of one
    run's median from run to run (``cv``), *measured* from ``n`` independent values (repetitions,
    processes, saved runs) of the kind ``source`` names, and the 95% factor that goes with that many
    (Student's t with ``n - 1`` degrees of freedom: few values give a wide interval, never a narrow
    one). ``medians_ns`` are the per-call medians it was measured from (repetitions or processes).

    ``floor`` is the spread of fresh processes that the machine's noise profile predicts for a call this
    long (0 without one); ``floor_source`` says where it came from: ``"profile"`` (this machine's),
    ``"prior"`` (measurefirst's prior, where this machine has no profile), or ``""`` (none). The spread used is the larger:
    repetitions inside one process cannot see what changes between processes (address layout,
    allocator state, thread placement), the profile measured exactly that.

    **Few values, with a floor** (``prior_dof``). Two repetitions alone give t(0.975, 1) = 12.7, a
    factor of 15.6 with the centre's own uncertainty: a spread of 20% becomes a factor of 18 either way,
    an interval no one can use. A floor is prior information about the spread's scale, measured from other values: this
    machine's profile from ``P`` fresh processes (``P - 1`` degrees of freedom), measurefirst's prior
    from another machine (worth fewer: :data:`measurefirst.measure.noise.PRIOR_DOF`). Taken as a
    conjugate (scaled inverse chi-square) prior worth ``prior_dof`` values, the posterior predictive of
    the next run is Student's t with ``prior_dof + n - 1`` degrees of freedom and the pooled scale
    ``s^2 = (prior_dof * floor^2 + (n - 1) * cv^2) / (prior_dof + n - 1)``, times ``sqrt(1 + 1/n)``;
    ``factor`` is that t quantile (:func:`spread_factor` of ``n`` and ``prior_dof``). The scale used is
    **not** pulled below the measured ``cv``: the spread stays ``max(cv, floor)``, which is never below the
    pooled ``s``, so the interval is never narrower than the conjugate one. The floor is the spread of
    the quietest work (a busy-wait) of that length, a lower bound on any work's spread, not the scale
    of this one; pooling it would narrow a noisy call's interval by a busy-wait's quiet, and two values
    cannot say which is right. When in doubt, widen: the floor lends its degrees of freedom, never its
    smaller scale. ``prior_dof`` is 0 (and the factor the measured values' own) without a floor, where the
    values contradict the floor (their spread above it beyond chance: :func:`measurefirst.measure.noise.lent_dof`),
    and in files written before it existed. The relative half-width on the log scale is
    ``factor * log(1 + spread)``: the interval runs from ``median / exp(...)`` to ``median * exp(...)``,
    so its lower end is never 0."""

    cv: float
    source: str
    n: int
    factor: float
    medians_ns: tuple[float, ...] = ()
    floor: float = 0.0
    floor_source: str = ""
    #: the degrees of freedom the floor lends the factor (see above; 0: none)
    prior_dof: int = 0
    #: a run that waited for a core in most samples: the spread whose interval reaches down to what its CPU
    #: time says a machine with cores free takes (:func:`~measurefirst.results.sample_masks.starved_low`;
    #: 0: not starved)
    starved: float = 0.0

    @property
    def spread(self) -> float:
        """The relative standard deviation used: the largest of the measured ``cv``, the ``floor`` and
        ``starved``."""
        return max(self.cv, self.floor, self.starved)

    @property
    def half_width(self) -> float:
        """Relative 95% half-width of where the next run's median lands, from the spread alone."""
        return self.factor * self.spread

    def to_dict(self) -> dict[str, Any]:
        return {"cv": self.cv, "source": self.source, "n": self.n, "factor": self.factor,
                "medians_ns": list(self.medians_ns), "floor": self.floor, "floor_source": self.floor_source,
                "prior_dof": self.prior_dof, **({"starved": self.starved} if self.starved > 0 else {})}


def spread_from_medians(medians_ns: Sequence[float], source: str) -> RunToRun | None:
    """The run-to-run spread measured by independent runs of one thing (the repetitions inside a call, or
    fresh processes): the sample standard deviation of their log medians, as a relative figure
    (``expm1``), with the 95% factor for that many (:func:`spread_factor`); ``None`` with fewer than two
    finite, positive medians."""
    good = [x for x in medians_ns if math.isfinite(x) and x > 0]
    if len(good) < 2:
        return None
    logs = [math.log(x) for x in good]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    return RunToRun(cv=math.expm1(sd), source=source, n=len(good), factor=spread_factor(len(good)),
                    medians_ns=tuple(good))


def spread_factor(n: int, prior_dof: int = 0) -> float:
    """The 95% factor for a spread measured from ``n`` independent values: t(0.975, n - 1 + prior_dof),
    inflated by sqrt(1 + 1/n) (the spread's own centre is estimated too), never below the normal
    quantile. ``prior_dof``: the degrees of freedom a floor lends (see :class:`RunToRun`)."""
    if n < 2:
        return math.inf
    return max(stats.t975(n - 1 + max(prior_dof, 0)) * math.sqrt(1.0 + 1.0 / n), stats.Z95)


def spread_findings(rr: RunToRun | None, options: dict[str, Any], cpu_per_call_ns: float | None = None,
                    median_ns: float = math.nan, env: dict[str, Any] | None = None, costly: float = 0.0,
                    wait_share: float | None = None, pool_wait: float | None = None) -> list[Finding]:
    """What a measurement's run-to-run spread says about the noise profile (``options`` are the
    measurement's): none on this machine (``no_noise_profile``: the interval holds measurefirst's prior),
    or repetitions far wider than the profile's work of that length (``noise_profile_disagrees``: the
    spread was widened as without a profile; ``measurefirst.measure.noise.apply_profile``); and whether
    the run waited for a core in most samples (``starved``, from its CPU time per call, median, ``env``'s
    torch threads, the fraction of samples preempted at a cost and the share of the time its threads
    waited for a CPU: :func:`~measurefirst.results.sample_masks.starved_low`; its value is how many times
    faster the CPU time says it runs)."""
    out: list[Finding] = []
    threads = env.get("torch_num_threads") if env else None
    threads = threads if isinstance(threads, int) and not isinstance(threads, bool) and threads > 0 else 1
    low = starved_low(cpu_per_call_ns, median_ns, threads, costly, wait_share)
    if low is not None:
        out.append(found("starved", costly, low_ns=low, factor=median_ns / low, cpu_ns=cpu_per_call_ns,
                         median_ns=median_ns, threads=threads, widened=rr is not None and rr.starved > 0,
                         waited=wait_share))
    elif pool_wait is not None and oversubscribed(pool_wait, threads, costly):
        out.append(found("oversubscribed", pool_wait, threads=threads, factor=STARVED_MIN_FACTOR,
                         widened=rr is not None and rr.starved > 0))
    if rr is not None and rr.floor_source == "prior":  # no noise profile here: the interval holds a prior
        out.append(found("no_noise_profile", rr.spread, source=rr.source, floor=rr.floor,
                         inflation=options.get("run_to_run_inflation"),
                         status=str(options.get("noise_profile_ignored") or "absent")))
    within, limit = options.get("noise_profile_disagrees"), options.get("noise_profile_disagrees_limit")
    if rr is not None and rr.source == "repeats" and isinstance(within, (int, float)) and within > 0:
        own = rr.cv / float(options.get("run_to_run_inflation") or 1.0)  # the repetitions' own spread
        out.append(found("noise_profile_disagrees", own / within, cv=own, within=float(within),
                         threshold=float(limit) if isinstance(limit, (int, float)) else None,
                         inflation=options.get("run_to_run_inflation")))
    return out
