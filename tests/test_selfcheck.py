"""selfcheck: the judging rules exactly, the whole check on the seeded simulated clock and the simulated
GPU (including injected faults), the renderer in both languages, and one real `selfcheck --quick`."""

import json
import math

import numpy as np
import pytest

from measurefirst import SelfCheck, selfcheck
from measurefirst.cli.commands import EXIT_NOISY, main
from measurefirst.render.selfcheck import progress_line, selfcheck_lines, selfcheck_table, selfcheck_text
from measurefirst.tools.selfcheck import (
    CPU_DURATIONS_NS,
    FAIL,
    INFO,
    NOISY,
    PASS,
    SKIP,
    FaultyTimer,
    Row,
    cpu_share,
    cpu_tolerance,
    cuda_tolerance,
    duration_code,
    judge,
    off_cpu_allowance,
    overrun_ns,
    sampled_truth_ns,
    sleep_rate,
    truth_from_stamps,
)
from measurefirst.measure.simulate import GpuSpec, SimGPU, SimSpec, SimWorld
from measurefirst.measure.simulate import world as world_from

CPU_METHODS = ["adaptive", "fixed", "timeit", "blocked_autorange"]


# ---- the rules, exactly --------------------------------------------------------------------------
def test_stated_tolerances():
    assert [cpu_tolerance(ns) for ns in CPU_DURATIONS_NS] == [0.05, 0.01, 0.005, 0.005]
    assert cuda_tolerance(5e-6, "events") == 0.05
    assert cuda_tolerance(50e-6, "events") == 0.01 and cuda_tolerance(1e-3, "cuda_graph") == 0.01
    assert cuda_tolerance(50e-6, "wall") == 0.02
    assert cuda_tolerance(1e-3, "graph_vs_do_bench_cudagraph") == 0.03


@pytest.mark.parametrize("error, noise, expected", [
    (0.004, 0.0, PASS), (-0.005, 0.0, PASS),        # within the tolerance, either side
    (0.006, 0.0, FAIL), (-0.02, 0.001, FAIL),       # beyond it, and beyond the noise
    (0.012, 0.01, NOISY), (-0.015, 0.01, NOISY),    # beyond it, but within tolerance + noise
    (0.02, math.inf, NOISY),                        # noise unknown (too few samples): cannot judge
    (None, 0.0, FAIL), (math.nan, 0.0, FAIL),       # no estimate at all is a failure
])
def test_judge(error, noise, expected):
    assert judge(error, 0.005, noise) == expected


@pytest.mark.parametrize("error, noise, busy, expected", [
    (0.30, 0.0, 0.5, NOISY),      # too long, and the time off the CPU could explain it: not judged
    (0.56, 0.0, 0.5, FAIL),       # too long by more than tolerance + noise + the time off the CPU
    (0.40, 0.2, 0.2, NOISY),      # the noise and the time off the CPU add up
    (-0.30, 0.0, 0.5, FAIL),      # too short: load only lengthens a reading, so busy or not it fails
    (0.30, 0.0, None, FAIL),      # a quiet core: the same reading fails
    (0.30, 0.0, math.inf, NOISY),  # nothing sampled: any longer reading is unjudgeable
    (0.04, 0.0, 0.5, PASS),       # within the tolerance: a pass however busy
])
def test_judge_on_a_busy_core(error, noise, busy, expected):
    assert judge(error, 0.05, noise, busy) == expected


def test_cpu_share_and_the_time_off_the_cpu():
    assert cpu_share(10_000, 3_000) == 0.3 and cpu_share(10_000, 10_050) == 1.0  # clocks tick apart
    assert cpu_share(0, 0) is None
    # 7 µs off the CPU in the timed windows, 2 µs of it seen by the busy-wait's own clock: 5 µs over 20 µs
    # of calls, twice
    assert off_cpu_allowance(7_000, 2_000, 20_000) == 0.5
    assert off_cpu_allowance(7_000, 9_000, 20_000) == 0.0  # all of it seen: already in the noise
    assert off_cpu_allowance(7_000, 0, 0) == math.inf


def test_overrun_counts_the_calls_that_ended_late_even_when_all_did():
    starts = np.arange(4) * 10_000
    assert overrun_ns(starts, starts + [2_000, 2_050, 7_000, 2_000], 2_000) == 5_000.0  # 50 ns: a clock read
    assert overrun_ns(starts, starts + 9_000, 2_000) == 4 * 7_000.0


def test_the_simulated_world_keeps_time_off_the_cpu_apart():
    world = SimWorld(SimSpec(call_ns=1_000, preempt_prob=1.0, preempt_ns=4_000, seed=0))
    world.call()
    assert (world.now, world.cpu_ns(), world.switches) == (5_000, 1_000, 1)
    stalled = world_from("call=1us,stall=3us,stall_prob=1,timer=0")
    reading = stalled.timer().time(stalled.call)
    assert reading.elapsed_ns == 4_000 and reading.preempted == 1 and stalled.cpu_ns() == 1_000


def test_truth_from_stamps_inside_loops():
    # 100 calls of 1000 ns in loops of 10, 50 ns apart inside a loop, 4000 ns between samples
    starts, ends, t = [], [], 0
    for i in range(100):
        starts.append(t)
        t += 1000
        ends.append(t)
        t += 4000 if i % 10 == 9 else 50
    truth = truth_from_stamps(starts, ends, loop_gap_ns=60)
    assert (truth.self_ns, truth.gap_ns, truth.per_call_ns) == (1000.0, 50.0, 1050.0)
    assert truth.stolen == 0.0 and truth.drift == 0.0 and truth.calls == 100


def test_truth_from_stamps_one_call_per_sample_uses_the_tight_loop_gap():
    starts = [i * 10_000 for i in range(30)]
    ends = [s + 2000 for s in starts]  # every gap is a sample boundary (8 µs)
    truth = truth_from_stamps(starts, ends, loop_gap_ns=70)
    assert truth.gap_ns == 70.0 and truth.per_call_ns == 2070.0


def test_truth_from_stamps_counts_interruptions_and_drift():
    own = np.full(40, 1000)
    own[::10] += 5000  # every 10th call interrupted for 5 µs: counted at most one call's time (1000 ns)
    starts = np.arange(40) * 2000
    t = truth_from_stamps(starts, starts + own, loop_gap_ns=1000)
    assert t.self_ns == 1000.0 and t.gap_ns == 1000.0
    assert t.stolen == pytest.approx(4 * 2000 / 40 / 2000)
    assert t.clean == 0.9
    slow = np.concatenate([np.full(20, 1000), np.full(20, 1600)])  # the clean calls got slower: drift
    assert truth_from_stamps(starts, starts + slow, loop_gap_ns=0).drift == pytest.approx(600 / 1300)  # median 1300


def test_truth_stays_the_clean_duration_when_most_calls_are_interrupted():
    # 70% of 2 ms spins preempted for 4 ms: the truth is still the spin, and the noise says 70%
    own = np.full(100, 2_000_100)
    own[:70] += 4_000_000
    starts = np.arange(100) * 10_000_000
    t = truth_from_stamps(starts, starts + own, loop_gap_ns=300)
    assert t.self_ns == 2_000_100 and t.per_call_ns == 2_000_400 and t.clean == pytest.approx(0.3)
    assert t.stolen == pytest.approx(4_000_000 / 2_000_400)  # the typical interruption: what a median carries
    # while at most a quarter of the calls are interrupted, the capped mean is the measure
    own[:70] -= 4_000_000
    own[:20] += 4_000_000
    t = truth_from_stamps(starts, starts + own, loop_gap_ns=300)
    assert t.stolen == pytest.approx(0.2 * 2_000_400 / 2_000_400)


def test_truth_needs_matching_stamps():
    with pytest.raises(ValueError, match="one start and one end"):
        truth_from_stamps([1, 2], [3], 0)


def test_sleep_rate_cancels_latency_and_resists_an_outlier():
    rate, cycles, latency = 1.5e9, 3e7, 25e-6
    pairs = [(cycles / rate + latency, 2 * cycles / rate + latency)] * 4 + [(0.02, 0.09)]
    assert sleep_rate(pairs, cycles) == pytest.approx(rate)
    with pytest.raises(RuntimeError, match="never took longer"):
        sleep_rate([(0.02, 0.01)], cycles)


def test_duration_codes():
    assert [duration_code(ns / 1e9) for ns in CPU_DURATIONS_NS] == ["2us", "20us", "200us", "2ms"]
    assert duration_code(5e-6) == "5us" and duration_code(1.5) == "1.5s"


# ---- the whole check on the simulated clock --------------------------------------------------------
def sim_check(**kw):
    world = SimWorld(SimSpec(timer_ns=50, seed=kw.pop("seed", 0), **kw.pop("spec", {})))
    factor = kw.pop("fault", None)
    timer = FaultyTimer(world.timer(), factor) if factor else None
    return selfcheck(simulate=world, quick=True, timer=timer, **kw)


def test_the_simulated_clock_drives_the_whole_check_its_run_time_too():
    world = SimWorld(SimSpec(timer_ns=50, seed=0))
    start = world.now
    sc = selfcheck(simulate=world, quick=True, durations_ns=(20_000,), references=False, traps=False, peaks=False)
    assert sc.seconds == (world.now - start) / 1e9 > 0  # no clock read beside the simulated one


def test_simulated_check_passes_with_exact_truths():
    sc = sim_check()
    assert sc.status == PASS and sc.ok and sc.simulated
    assert [(r.duration_s, r.method) for r in sc.rows] == [(ns / 1e9, m) for ns in CPU_DURATIONS_NS for m in CPU_METHODS]
    judged = [r for r in sc.rows if r.judged]
    # the simulated busy-wait lasts exactly its duration; the estimate carries 50 ns of timer per sample
    assert all(r.truth_s == pytest.approx(r.duration_s) and r.truth_source == "self" for r in judged)
    for r, m in zip([r for r in sc.rows if r.method == "adaptive"], [m for m in sc.measurements if "adaptive" in m.label]):
        assert r.rel_error == pytest.approx(50 / m.numbers[-1] / (r.duration_s * 1e9))
    fixed_2us = next(r for r in sc.rows if r.method == "fixed" and r.duration_s == 2e-6)
    # one call per sample: 50 ns of overhead is 2.5% of 2 µs, within the 5% base, so it is judged
    # with twice that added to the tolerance
    assert fixed_2us.status == PASS and fixed_2us.tolerance == pytest.approx(0.05 + 2 * 0.025)
    assert all(r.status == SKIP and r.note == "simulated" for r in sc.rows if r.reference)
    assert [t.status for t in sc.traps] == [SKIP] * 3
    assert [m.label for m in sc.measurements][:2] == ["selfcheck/cpu/2us/adaptive", "selfcheck/cpu/2us/fixed"]
    assert sc.machine.timer == "simulated" and sc.machine.timer_overhead_ns == 50.0
    # the simulated thread never leaves the CPU: a quiet core, a whole one
    assert sc.machine.state == "quiet" and sc.machine.cpu_share == 1.0 and sc.machine.runnable is None
    assert all(r.cpu_share == 1.0 and r.off_cpu == 0.0 for r in judged)
    # each sample is matched to its own calls, though the engine warms up again between its repetitions:
    # on a machine without noise the noise is nil (it was a sample boundary's share when taken back to back)
    assert all(r.noise == 0.0 for r in judged) and any(len(m.repeats or ()) > 1 for m in sc.measurements)


def test_injected_timer_fault_fails_every_judged_row():
    sc = sim_check(fault=1.1)
    assert sc.status == FAIL and not sc.ok
    judged = [r for r in sc.rows if r.judged]
    # 10% from the fault, plus the 50 ns of simulated timer in each sample (2.5% of the 2 µs fixed sample)
    assert len(judged) == 8 and all(r.status == FAIL and 0.0999 < r.rel_error < 0.128 for r in judged)
    codes = {f.code for f in sc.findings}
    assert codes == {"selfcheck_failed"} and any("200us adaptive" in f.context["row"] for f in sc.findings)


def test_noise_that_moved_the_estimate_is_noisy_and_a_fault_on_top_still_fails():
    # most calls preempted (too many to set aside): the estimate moves with the machine, and the busy-wait's
    # own clock, aggregated like the estimate, shows by exactly how much
    spec = {"preempt_prob": 0.9, "preempt_ns": 1e6}
    noisy = sim_check(spec=spec, seed=3, durations_ns=(200_000, 2_000_000))
    assert noisy.status == NOISY and not noisy.failed_rows
    rows = [r for r in noisy.rows if r.judged]
    moved = [r for r in rows if r.rel_error > r.tolerance]
    assert len(moved) >= 2 and all(r.status == NOISY for r in moved)
    # the noise is the 1 ms preemption the samples carried: 5x on 200 µs, 0.5x on 2 ms
    assert all(r.noise == pytest.approx(1e-3 / r.duration_s, rel=1e-3) for r in moved)
    # a row whose preempted samples were few enough to set aside is simply right
    assert all(r.status == PASS and r.noise == 0.0 for r in rows if r not in moved)
    # a wrong clock does not move the busy-wait's own: even 2% shows through that much noise
    faulty = sim_check(fault=1.02, spec=spec, seed=3, durations_ns=(200_000, 2_000_000))
    assert faulty.status == FAIL and all(r.status == FAIL for r in faulty.rows if r.judged)
    # preemptions that benchmark() sets aside (a minority) do not count as noise: 2% fails
    minority = sim_check(fault=1.02, spec={"preempt_prob": 0.3, "preempt_ns": 5e6}, seed=3, durations_ns=(200_000,))
    assert all(r.status == FAIL and r.noise == 0.0 for r in minority.rows if r.judged)


class Descheduled:
    """The simulated timer, with the thread taken off the CPU for ``stall_ns`` at the end of every sample
    that made calls (after the last call, before the clock is read again): what a busy machine does and
    the busy-wait's own clock cannot see. ``off_cpu=False``: the same time spent on the CPU instead (a
    timer that costs more than it says: a fault)."""

    kind = "simulated"

    def __init__(self, world, stall_ns, off_cpu=True):
        self.world, self.inner, self.stall_ns, self.off_cpu = world, world.timer(), stall_ns, off_cpu
        self.resolution_ns = self.inner.resolution_ns

    def time(self, run, prelude=None):
        w = self.world

        def loaded():
            calls = w.calls
            run()
            if w.calls > calls:
                (w.deschedule if self.off_cpu else w.advance)(self.stall_ns)

        return self.inner.time(loaded, prelude)

    def now_ns(self):
        return self.inner.now_ns()

    def synchronize(self):
        self.inner.synchronize()

    def probe(self):
        return self.inner.probe()

    def marks(self):
        return self.inner.marks()


def busy_check(off_cpu=True, fault=None, durations_ns=(2_000, 20_000)):
    world = SimWorld(SimSpec(timer_ns=50, seed=0))
    timer = Descheduled(world, 5_000, off_cpu)
    return selfcheck(simulate=world, quick=True, timer=FaultyTimer(timer, fault) if fault else timer,
                     durations_ns=durations_ns, references=False, traps=False, peaks=False)


def test_a_busy_core_makes_a_long_reading_noisy_and_a_quiet_one_makes_it_fail():
    # 5 µs off the CPU in every sample: the 2 µs one-call samples read 7 µs (+252%), as on a 5x loaded host
    busy = busy_check()
    fixed_2us = next(r for r in busy.rows if r.name == "2us fixed")
    assert fixed_2us.rel_error == pytest.approx(5_050 / 2_000, rel=1e-3) and fixed_2us.noise == 0.0
    assert fixed_2us.status == NOISY and fixed_2us.note == "busy" and fixed_2us.cpu_share < 0.5
    assert fixed_2us.off_cpu >= fixed_2us.rel_error - fixed_2us.tolerance
    assert busy.status == NOISY and not busy.failed_rows and busy.busy
    assert busy.machine.state == "busy" and busy.machine.cpu_share == min(r.cpu_share for r in busy.rows)
    assert {f.code for f in busy.findings} == {"selfcheck_noisy", "selfcheck_busy"}
    # the same readings with the thread on the CPU all along: the timer is wrong, and nothing hides it
    quiet = busy_check(off_cpu=False)
    assert quiet.machine.state == "quiet" and quiet.status == FAIL
    assert {r.name for r in quiet.failed_rows} == {"2us adaptive", "2us fixed", "20us adaptive", "20us fixed"}
    assert not any(r.note == "busy" for r in quiet.rows)
    assert [r.rel_error for r in quiet.rows] == [r.rel_error for r in busy.rows]


def test_a_reading_too_short_fails_however_busy_the_core():
    sc = busy_check(fault=0.5)  # half of every reading: shorter than the truth, which load never does
    assert sc.machine.state == "busy" and sc.status == FAIL
    short = [r for r in sc.rows if r.judged and r.rel_error < 0]
    assert short and all(r.status == FAIL and r.note != "busy" for r in short)


def test_a_timing_trap_missed_on_a_busy_core_is_not_judged():
    from dataclasses import replace

    import torch

    from measurefirst.tools.selfcheck import Trap, _sync_trap, _timed_trap

    assert _timed_trap("cold_start", True, 812.0, 10.0, 0.2).status == PASS  # caught: a pass however busy
    missed_busy = _timed_trap("cold_start", False, 1.0, 10.0, 0.2)
    assert (missed_busy.status, missed_busy.note, missed_busy.cpu_share) == (NOISY, "busy", 0.2)
    assert _timed_trap("cold_start", False, 1.0, 10.0, 0.95).status == FAIL  # a quiet core: a miss fails
    assert _timed_trap("cold_start", False, 1.0, 10.0, None).status == FAIL  # not measured: it fails
    # the .item() count: counted wrong fails however busy; not counted (doctor's budget ran out) is not judged
    cpu, counted = torch.device("cpu"), {"syncing_ops_per_call": {"aten::item": 1}}
    assert _sync_trap(counted, {}, cpu, 0.05).status == PASS
    assert _sync_trap({"syncing_ops_per_call": {}}, {}, cpu, 0.05).status == FAIL
    out_of_budget = {"implicit_syncs": "budget"}
    assert (_sync_trap({}, out_of_budget, cpu, 0.05).status, _sync_trap({}, out_of_budget, cpu, 0.05).note) == (
        NOISY, "busy")
    assert _sync_trap({}, out_of_budget, cpu, 0.97).status == FAIL
    sc = replace(sim_check(durations_ns=(2_000_000,)), traps=(missed_busy, Trap("implicit_sync", PASS, 1.0, 1.0)))
    assert sc.status == NOISY and sc.busy and sc.noisy_traps == (missed_busy,)
    lines = selfcheck_lines(sc)
    assert "  NOISY  cold first call vs warm: not judged: not detected (doctor's figure: 1) while this check's " \
           "thread got 20% of a core: the machine was too busy to check it" in lines
    assert lines[-2].startswith("verdict: NOISY, the machine was too busy to judge. Other work took the CPU")
    # a count is not a time: an implicit-sync trap that counted wrong on a busy core still fails
    counted = replace(sc, traps=(missed_busy, Trap("implicit_sync", FAIL, 0.0, 1.0, cpu_share=0.2)))
    assert counted.status == FAIL


def test_sampled_truth_follows_the_samples_the_estimate_used():
    # 2 calls before sampling (warm-up), then 3 samples of 2 calls: 1000 ns spins, 100 ns apart
    starts = np.arange(8) * 1100
    ends = starts + 1000
    ends[5] += 50_000  # the second call of the second sample was interrupted
    assert sampled_truth_ns(starts, ends, [2, 2, 2], [True, True, True], 100.0) == 1100.0
    with_it = sampled_truth_ns(starts, ends, [2, 2, 2], [False, True, False], 100.0)
    assert with_it == (ends[5] - starts[4] + 100) / 2
    assert sampled_truth_ns(starts, ends, [5, 5], [True, True], 100.0) is None  # more calls than stamps
    # two samples of 2 calls with a call between them (a repetition's warm-up), interrupted for 50 µs:
    # each sample is found where it began, and neither holds the interruption
    own = np.array([1000, 1000, 51_000, 1000, 1000])
    starts = np.concatenate([[0], np.cumsum(own + 100)[:-1]])
    ends = starts + own
    assert sampled_truth_ns(starts, ends, [2, 2], [True, True], 100.0, firsts=[0, 3]) == 1100.0
    assert sampled_truth_ns(starts, ends, [2, 2], [True, True], 100.0) == (1100 + 52_200 / 2) / 2  # back to back
    assert sampled_truth_ns(starts, ends, [2, 2], [True, True], 100.0, firsts=[0, 4]) is None  # past the last call


def test_round_trip_and_validation():
    sc = sim_check(durations_ns=(200_000,))
    back = SelfCheck.from_json(sc.to_json())
    assert back.rows == sc.rows and back.traps == sc.traps and back.machine == sc.machine
    assert [m.samples_ns for m in back.measurements] == [m.samples_ns for m in sc.measurements]
    data = json.loads(sc.to_json())
    assert data["kind"] == "selfcheck" and data["status"] == "pass" and data["schema_version"] == 2
    # a version 1 file (before the busy check) still reads: nothing was measured, the machine's state unknown
    old = {**data, "schema_version": 1, "machine": {k: v for k, v in data["machine"].items()
                                                    if k not in ("cpu_share", "runnable", "state")},
           "rows": [{k: v for k, v in r.items() if k not in ("cpu_share", "off_cpu")} for r in data["rows"]],
           "traps": [{k: v for k, v in t.items() if k != "cpu_share"} for t in data["traps"]]}
    v1 = SelfCheck.from_dict(old)
    assert v1.machine.state == "unknown" and v1.machine.cpu_share is None and v1.schema_version == 2
    assert all(r.cpu_share is None for r in v1.rows) and v1.status == PASS and "selfcheck_busy" not in {
        f.code for f in v1.findings}
    with pytest.raises(ValueError, match="machine state must be one of quiet, busy, unknown"):
        SelfCheck.from_dict({**data, "machine": {**data["machine"], "state": "calm"}})
    with pytest.raises(ValueError, match="newer"):
        SelfCheck.from_dict({**data, "schema_version": 99})
    with pytest.raises(ValueError, match="selfcheck"):
        SelfCheck.from_dict({**data, "kind": "measurement"})
    with pytest.raises(ValueError, match="durations_ns"):
        selfcheck(simulate=SimWorld(), durations_ns=(0,))
    with pytest.raises(TypeError, match="Timer"):
        selfcheck(simulate=SimWorld(), timer="wall")
    with pytest.raises(ValueError, match="fault factor"):
        FaultyTimer(SimWorld().timer(), 0)


# ---- the CUDA path on the simulated GPU ------------------------------------------------------------
def test_cuda_path_on_the_simulated_gpu():
    gpu = SimGPU(SimWorld(SimSpec(timer_ns=0.0, seed=1)), GpuSpec(sm_clock_hz=1.5e9))
    with gpu.installed():
        sc = selfcheck("cuda", quick=True)
    assert sc.device == "cuda:0" and sc.status == PASS
    assert sc.machine.sleep_cycles_per_s == pytest.approx(1.5e9, rel=1e-3)
    modes = ["events", "wall", "fixed", "cuda_graph", "cold_cache"]
    for d in (5e-6, 50e-6, 1e-3):
        ours = [r for r in sc.rows if r.duration_s == d and not r.reference and r.status != SKIP]
        assert [r.method for r in ours] == modes
        graph = next(r for r in ours if r.method == "cuda_graph")
        assert graph.truth_s == pytest.approx(d, rel=1e-3) and graph.status == PASS
    long = [r for r in sc.rows if r.duration_s == 1e-3 and r.judged]
    assert {r.method for r in long} == set(modes)  # at 1 ms every mode is judged, one-call modes included
    assert all(r.status == SKIP and r.note == "simulated" for r in sc.rows if r.reference)


def test_cuda_fault_on_the_simulated_gpu_names_the_rows():
    gpu = SimGPU(SimWorld(SimSpec(timer_ns=0.0, seed=1)))
    with gpu.installed():
        from measurefirst.measure.timers import make_timer
        import torch

        sc = selfcheck("cuda", quick=True, timer=FaultyTimer(make_timer(torch.device("cuda", 0)), 1.1))
    failed = {(r.duration_s, r.method) for r in sc.failed_rows}
    assert sc.status == FAIL
    assert {(1e-3, "events"), (1e-3, "cuda_graph"), (1e-3, "fixed"), (50e-6, "events")} <= failed
    assert not any(m == "wall" for _, m in failed)  # the wall-clock mode does not use the faulty timer


# ---- rendering ---------------------------------------------------------------------------------------
def _render(sc, lang):
    from rich.console import Console

    console = Console(width=200, record=True, color_system=None)
    console.print(selfcheck_table(sc, lang))
    return console.export_text(), selfcheck_lines(sc, lang)


def test_render_pass_in_both_languages():
    sc = sim_check(durations_ns=(200_000, 2_000_000))
    table, lines = _render(sc, "en")
    assert "known duration" in table and "200 µs" in table and "2 ms" in table and "PASS" in table
    assert "benchmark() adaptive" in table and "±0.50%" in table
    assert "timeit" not in table  # skipped rows are listed below the table, once per reason
    assert lines[0] == ("not run (skipped on the simulated clock): timeit (best of repeats), "
                        "torch.utils.benchmark blocked_autorange")
    assert lines[-1].startswith("verdict: PASS")
    table_zh, lines_zh = _render(sc, "zh")
    assert "已知时长" in table_zh and "通过" in table_zh and lines_zh[-1].startswith("结论：通过")
    assert "measurefirst selfcheck: cpu" in str(sc) and "verdict: PASS" in str(sc)


def test_render_failure_names_the_row_and_says_what_it_means():
    sc = sim_check(fault=1.1, durations_ns=(200_000,))
    table, lines = _render(sc, "en")
    assert table.count("FAIL") == 2
    assert lines[-3].startswith("verdict: FAIL. 2 check(s) failed")
    row = next(x for x in lines if x.startswith("  FAIL 200 µs benchmark() adaptive"))
    assert "+10.03%" in row and "tolerance ±0.50%" in row and "Do not trust benchmark()" in row
    _, zh = _render(sc, "zh")
    assert any(x.startswith("  失败 200 µs benchmark() 自适应") for x in zh)


def test_render_noisy_and_skipped_traps_and_progress():
    sc = sim_check(spec={"preempt_prob": 0.9, "preempt_ns": 1e6}, seed=3, durations_ns=(2_000_000,))
    table, lines = _render(sc, "en")
    assert "NOISY" in table and any(x.startswith("verdict: NOISY, the machine was too noisy to judge") for x in lines)
    assert "噪声过大" in _render(sc, "zh")[0]
    text = selfcheck_text(sc)
    assert "n/a  cold first call vs warm: not run (skipped on the simulated clock)" in text
    assert progress_line("row", 2e-6, "adaptive") == "selfcheck: 2 µs benchmark() adaptive"
    assert progress_line("trap", None, "cold_start", "zh") == "自检：陷阱：冷启动的第一次调用与预热后的对比"
    with pytest.raises(ValueError, match="language"):
        selfcheck_text(sc, "fr")


def test_render_busy_in_both_languages_and_text_json_html_agree():
    from measurefirst.render.report import fragment

    sc = busy_check()
    table, lines = _render(sc, "en")
    assert "benchmark() warmup=3, trials=10 (machine too busy to judge)" in table and "NOISY" in table
    share = next(x for x in lines if "this check's own thread got" in x and x.startswith("  "))
    assert f"got {sc.machine.cpu_share:.0%} of a core at the least" in share and "(busy: a quiet core gives it 90%" in share
    row = next(x for x in lines if x.startswith("  NOISY 2 µs benchmark() warmup=3"))
    assert "+252.50% against ±10.00%" in row and "this thread got 30% of a core" in row and "up to 6.5x" in row
    verdict = lines.index(next(x for x in lines if x.startswith("verdict:")))
    assert lines[verdict].startswith("verdict: NOISY, the machine was too busy to judge. Other work took the CPU from "
                                     "this check's own thread (it got as little as 30% of a core)")
    assert "taskset -c 1" in lines[verdict]
    assert len(lines) - verdict == 1 + 4  # the verdict, then each row not judged
    _, zh = _render(sc, "zh")
    assert any(x.startswith("结论：噪声过大，机器太忙，无法判定") for x in zh) and any("繁忙" in x for x in zh)
    # one verdict in every form: the JSON's status, the HTML badge, the text's verdict
    assert json.loads(sc.to_json())["status"] == "noisy" and json.loads(sc.to_json())["machine"]["state"] == "busy"
    html = fragment(sc)
    assert "NOISY" in html and "the machine was too busy to judge" in html


def test_render_trap_outcomes():
    from dataclasses import replace

    from measurefirst.tools.selfcheck import Trap

    sc = replace(sim_check(durations_ns=(2_000_000,)), traps=(
        Trap("cold_start", PASS, 812.0, 10.0), Trap("implicit_sync", FAIL, 0.0, 1.0),
        Trap("unsynchronized_timer", SKIP, note="not_applicable")))
    lines = selfcheck_lines(sc)
    assert "  PASS  cold first call vs warm: detected: the first call took 812x the steady state (flagged from 10x)" in lines
    assert "  n/a  timer without synchronization: does not apply on the CPU: CPU work is synchronous" in lines
    assert sc.status == FAIL and any(x.startswith("  FAIL trap one .item() per call: MISSED") for x in lines)


# ---- the command line --------------------------------------------------------------------------------
SIM = ["selfcheck", "--simulate", "timer=50ns", "--quick", "--lang", "en"]


def test_cli_fault_exits_1_and_names_the_failing_rows(capsys):
    assert main(SIM + ["--fault", "1.1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL 2 ms benchmark() adaptive: 2.20005 ms against a truth of 2.00000 ms (+10.00%" in out
    assert "verdict: FAIL. 8 check(s) failed" in out  # every judged row


def test_cli_busy_machine_exits_3_and_every_output_says_noisy(tmp_path, capsys, monkeypatch):
    import measurefirst.tools.selfcheck as tool

    real = tool.selfcheck

    def on_a_busy_core(*args, simulate=None, **kw):  # the CLI's simulated world, its thread descheduled
        return real(*args, simulate=simulate, timer=Descheduled(simulate, 5_000), **kw)

    monkeypatch.setattr(tool, "selfcheck", on_a_busy_core)
    out_file = tmp_path / "busy.json"
    assert main(SIM + ["-o", str(out_file)]) == EXIT_NOISY == 3
    out = capsys.readouterr().out
    assert "verdict: NOISY, the machine was too busy to judge" in out
    data = json.loads(out_file.read_text())
    assert data["status"] == "noisy" and data["machine"]["state"] == "busy"
    assert "selfcheck_busy" in {f["code"] for f in data["findings"]}
    html = tmp_path / "busy.html"
    assert main(["report", str(out_file), "-o", str(html), "--lang", "en"]) == 0
    assert "the machine was too busy to judge" in html.read_text()


def test_cli_json_output_file_and_save_then_compare(tmp_path, capsys):
    out_file, store = tmp_path / "sc.json", tmp_path / "r.db"
    assert main(SIM + ["--json", "-o", str(out_file), "--save", "--store", str(store)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["kind"] == "selfcheck" and data["status"] == "pass" and len(data["rows"]) == 16
    assert json.loads(out_file.read_text()) == data
    assert "saved 8 run(s)" in captured.err and "selfcheck/cpu/2ms/adaptive" in captured.err
    # selfcheck files compare row by row (here a file with itself: every row matched, none changed)
    assert main(["compare", str(out_file), str(out_file), "--json"]) == 0
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert len(changes) == 8 and {c["label"] for c in changes} >= {"selfcheck/cpu/200us/adaptive"}
    assert main(["compare", "@selfcheck/cpu/2ms/adaptive", "--store", str(store)]) == 2  # only one run saved
    assert "no run named" in capsys.readouterr().err


def test_cli_bad_input_is_one_line_exit_2(capsys):
    assert main(["selfcheck", "--device", "tpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "tpu" in err[0]
    assert main(SIM + ["--fault", "-1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: the fault factor must be a positive number such as 1.1; got -1.0"]


# ---- the real thing, once --------------------------------------------------------------------------
@pytest.mark.realclock
def test_real_quick_selfcheck_on_this_cpu(tmp_path, capsys):
    """The CPU `selfcheck --quick`, as a user runs it: on a shared host the machine may be judged too
    noisy (exit 3), but a failure (exit 1) is never accepted, and the structure is always complete."""
    out_file = tmp_path / "sc.json"
    code = main(["selfcheck", "--device", "cpu", "--quick", "--lang", "en", "-o", str(out_file)])
    captured = capsys.readouterr()
    sc = SelfCheck.from_json(out_file.read_text())
    # the real clock on a shared host: exact verdicts are asserted on the simulated clock above; here a
    # FAIL is accepted only within a wide margin (a loaded machine can still move the truth itself)
    assert code in (0, 1, EXIT_NOISY), captured.out
    for r in sc.failed_rows:
        assert abs(r.estimate_s / r.truth_s - 1) < 0.05, captured.out
    assert not sc.failed_traps
    # under 30 s on this 2-core CPU, unless other processes took a core or more of it meanwhile
    assert sc.seconds < 30 or (sc.machine.other_load_cores or 0) >= 1.0
    assert [(r.duration_s, r.method) for r in sc.rows] == [(ns / 1e9, m) for ns in CPU_DURATIONS_NS for m in CPU_METHODS]
    for r in sc.rows:
        # the busy-wait's own clock, plus the call's overhead (under a microsecond, more on a loaded CPU)
        assert r.duration_s <= r.truth_s < r.duration_s * 1.01 + 1e-6
        assert r.estimate_s is not None and r.estimate_s > r.duration_s * 0.99
    assert all(r.status in (PASS, NOISY, FAIL) for r in sc.rows if r.method == "adaptive")
    assert {r.status for r in sc.rows if r.reference} == {INFO}
    # the cold first call is timed: on a core that other work took, a miss is not judged (noisy), never a pass
    cold = PASS if sc.machine.state == "quiet" else sc.traps[0].status
    assert [(t.code, t.status) for t in sc.traps] == [("cold_start", cold), ("implicit_sync", PASS),
                                                      ("unsynchronized_timer", SKIP)]
    assert cold in (PASS, NOISY)
    # how much of a core the check got is measured on every CPU row and the timed trap
    assert all(r.cpu_share is not None and 0 < r.cpu_share <= 1 for r in sc.rows)
    assert sc.machine.cpu_share == min(x.cpu_share for x in (*sc.rows, *sc.traps) if x.cpu_share is not None)
    m = sc.machine
    assert m.timer == "wall" and 0 < m.timer_overhead_ns < 1e5 and m.peaks and m.peaks["flops_per_s"] > 0
    assert len(sc.measurements) == 8
    assert "known duration" in captured.out and "verdict:" in captured.out


def test_row_properties():
    r = Row(2e-6, "timeit", 1e-6, "self", 1e-6, 0.0, None, None, INFO)
    assert r.reference and not r.judged and not r.passed and r.name == "2us timeit"
    ok = Row(2e-4, "adaptive", 2e-4, "self", 2e-4, 0.0, 0.005, 0.0, PASS)
    assert ok.passed and ok.judged and not ok.reference and ok.name == "200us adaptive"


@pytest.mark.realclock
def test_real_clock_fault_is_caught():
    """The wall clock scaled by 1.1, on the real busy-wait: +10% on every judged row, which fails unless
    the machine is noisier than the fault itself (then it says so)."""
    from measurefirst.measure.timers import WallTimer

    sc = selfcheck("cpu", quick=True, timer=FaultyTimer(WallTimer(), 1.1), durations_ns=(200_000,),
                   references=False, traps=False, peaks=False)
    judged = [r for r in sc.rows if r.judged]
    assert [r.method for r in judged] == ["adaptive", "fixed"] and sc.machine.timer == "wallx1.1"
    assert all(0.08 < r.rel_error < 0.13 for r in judged)
    assert sc.status in (FAIL, NOISY) and all(r.status in (FAIL, NOISY) for r in judged)
    # not judged only where the machine's noise, or the time it took the thread off the CPU, could explain it
    assert sc.status == FAIL or all(r.noise + (r.off_cpu if r.note == "busy" else 0.0) >= abs(r.rel_error) - r.tolerance
                                    for r in judged if r.status == NOISY)


def test_nvidia_smi_falls_back_to_the_newer_field_name(tmp_path, monkeypatch):
    from measurefirst.tools.selfcheck import nvidia_smi

    stub = tmp_path / "nvidia-smi"
    stub.write_text('#!/usr/bin/env bash\ncase "$*" in *clocks_throttle_reasons*) echo "Field is not valid" >&2; exit 2;; '
                    'esac\necho "1980, 1980, 0x0000000000000000, 41, 120.5"\n')
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    assert nvidia_smi(0) == {"clocks.sm": "1980", "clocks.max.sm": "1980",
                             "clocks_throttle_reasons.active": "0x0000000000000000", "temperature.gpu": "41",
                             "power.draw": "120.5"}
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert nvidia_smi(0) is None
