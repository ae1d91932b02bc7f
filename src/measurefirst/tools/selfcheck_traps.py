"""The self-check's traps: a cold first call, one ``.item()`` per call and, on a GPU, an unsynchronized
timer, each of which doctor must detect."""

from __future__ import annotations

from typing import Any

import torch

from ..measure.devices import cuda_api, machine
from ..results.findings import COLD_START_RATIO, MIN_CPU_SHARE, UNSYNCED_WARN_RATIO
from ..results.selfcheck import FAIL, NOISY, PASS, SKIP, Trap
from .selfcheck_clocks import _Gauge
from .selfcheck_rules import Progress, _Plan


# ---- traps --------------------------------------------------------------------------------------------
class _OneTimeCost:
    """A function with a real one-time cost: the first call builds a table (and, on a GPU, runs a long
    kernel standing in for compilation or autotuning); later calls read it back with one ``.item()``."""

    def __init__(self, dev: torch.device, first_sleep_cycles: int = 0) -> None:
        self.dev, self.cycles = dev, first_sleep_cycles
        self.table: torch.Tensor | None = None

    def __call__(self) -> float:
        if self.table is None:
            self.table = torch.linspace(0, 1, 1 << 22, device=machine().tensor_device(self.dev)).sin_().cumsum(0)
            if self.cycles:
                cuda_api()._sleep(self.cycles)
        return float(self.table[:64].sum().item())


def _traps(dev: torch.device, plan: _Plan, rate: float | None, progress: Progress, gauge: _Gauge) -> list[Trap]:
    from .doctor import doctor

    traps: list[Trap] = []
    progress("trap", None, "cold_start")
    fn = _OneTimeCost(dev, int(0.02 * rate) if dev.type == "cuda" and rate else 0)
    started = gauge.start()
    try:
        d = doctor(fn, device=dev, label="selfcheck one-time cost + .item()", budget=plan.doctor_budget)
    except Exception as exc:  # noqa: BLE001 - a broken check is a failed check, said once
        detail = f"{type(exc).__name__}: {exc}"
        return [Trap("cold_start", FAIL, note="error", detail=detail), Trap("implicit_sync", FAIL, note="error",
                                                                             detail=detail)]
    # the host's share of a core while doctor timed it (on a GPU the thread may block in a synchronize)
    share = gauge.stop(started)[2] if dev.type == "cpu" else None
    if d.error is not None:
        traps += [Trap("cold_start", FAIL, note="error", detail=d.error),
                  Trap("implicit_sync", FAIL, note="error", detail=d.error)]
    else:
        ratio = d.evidence.get("cold_ratio")
        caught = any(f.code == "cold_start" and f.severity in ("warning", "error") for f in d.findings)
        traps.append(_timed_trap("cold_start", caught, ratio, COLD_START_RATIO, share))
        progress("trap", None, "implicit_sync")
        traps.append(_sync_trap(d.evidence, d.skipped, dev, share))
    progress("trap", None, "unsynchronized_timer")
    if dev.type == "cpu":
        traps.append(Trap("unsynchronized_timer", SKIP, note="not_applicable"))
        return traps
    if dev.type == "cuda" and rate:
        cycles = int(1e-3 * rate)

        def work() -> None:
            cuda_api()._sleep(cycles)
    else:
        a = torch.randn(2048, 2048, device=machine().tensor_device(dev))

        def work() -> None:
            a @ a

    try:
        u = doctor(work, device=dev, label="selfcheck asynchronous work", budget=plan.doctor_budget)
        ratio_u = u.evidence.get("unsynced_ratio")
        caught_u = any(f.code == "unsynchronized_timing" and f.severity == "warning" for f in u.findings)
        traps.append(Trap("unsynchronized_timer", PASS if caught_u else FAIL, ratio_u, UNSYNCED_WARN_RATIO,
                          note="" if u.error is None else "error", detail=u.error or ""))
    except Exception as exc:  # noqa: BLE001
        traps.append(Trap("unsynchronized_timer", FAIL, note="error", detail=f"{type(exc).__name__}: {exc}"))
    return traps


def _sync_trap(evidence: dict[str, Any], skipped: dict[str, str], dev: torch.device, share: float | None) -> Trap:
    """One ``.item()`` per call, counted by doctor's implicit-sync check. A count is not a time: a wrong
    count fails however busy the machine. But doctor counts only once its measurement left budget for it;
    a check it skipped for the budget was not run, which on a busy core is too busy to judge."""
    if "implicit_syncs" in skipped:
        return _timed_trap("implicit_sync", False, None, 1.0, share)
    syncs = evidence.get("cuda_syncs_per_call") if dev.type == "cuda" else sum(
        (evidence.get("syncing_ops_per_call") or {}).values())
    count = float(syncs) if syncs is not None else 0.0
    return Trap("implicit_sync", PASS if count == 1 else FAIL, count, 1.0, cpu_share=share)


def _timed_trap(code: str, caught: bool, value: float | None, threshold: float, share: float | None) -> Trap:
    """A trap that takes time to find (a timing, or a check that needs doctor's budget): detected, missed,
    or missed while the thread got under :data:`~measurefirst.results.findings.MIN_CPU_SHARE` of a core (too
    busy to judge: ``noisy``, note ``busy``)."""
    if caught:
        return Trap(code, PASS, value, threshold, cpu_share=share)
    if share is not None and share < MIN_CPU_SHARE:
        return Trap(code, NOISY, value, threshold, note="busy", cpu_share=share)
    return Trap(code, FAIL, value, threshold, cpu_share=share)
