"""Every CUDA and MPS path, exactly, on the simulated GPU (no hardware needed).

Default costs (GpuSpec): launch 4 µs of host time, 2 µs from launch to the device, 0.5 µs to record
an event, events stamped at 0.5 µs resolution. A kernel launched right after a start event on an
idle GPU therefore starts ``launch_ns`` after the event: every figure below follows from that.
"""

from dataclasses import replace

import pytest
import torch

import measurefirst
from measurefirst import benchmark, compare, doctor, resolve_device
from measurefirst.measure.devices import machine, tf32_matmul_enabled
from measurefirst.measure.engine import flush_bytes
from measurefirst.profiling.capture import profile
from measurefirst.measure.simulate import GpuSpec, SimGPU, SimSpec, SimWorld
from measurefirst.tools.step import benchmark_ranged_step, benchmark_step, compare_steps
from sim_step import sim_step_parts

US = 1000.0


@pytest.fixture
def gpu():
    g = SimGPU()
    with g.installed():
        yield g


def per_call_ns(m):
    return m.median * 1e9


# -- the model itself -----------------------------------------------------------------------------
def test_the_seam_shows_the_simulated_gpu(gpu):
    assert machine().simulated
    assert resolve_device("auto") == torch.device("cuda", 0)
    assert measurefirst.available_devices() == ["cpu", "cuda:0"]
    with pytest.raises(measurefirst.DeviceError):
        resolve_device("cuda:1")


def test_host_runs_ahead_and_events_see_the_device(gpu):
    k = gpu.kernel(100 * US)
    cuda = gpu.cuda
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    t0 = gpu.world.now
    start.record()
    k()
    end.record()
    host = gpu.world.now - t0
    assert host == 500 + 4000 + 500  # the host returned long before the kernel ended
    with pytest.raises(RuntimeError):
        start.elapsed_time(end)  # not complete yet
    end.synchronize()
    assert start.elapsed_time(end) == pytest.approx((4000 + 100 * US) / 1e6)  # launch gap + kernel, in ms


def test_unjoined_side_stream_is_invisible_to_current_stream_events(gpu):
    cuda = gpu.cuda
    side = cuda.Stream()
    k = gpu.kernel(100 * US)
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record()
    with cuda.stream(side):
        k()
    end.record()
    cuda.synchronize()
    assert start.elapsed_time(end) * 1e6 < 10 * US
    # joined, the current stream waits for it
    start.record()
    with cuda.stream(side):
        k()
    cuda.current_stream().wait_stream(side)
    end.record()
    cuda.synchronize()
    assert start.elapsed_time(end) * 1e6 >= 100 * US


def test_l2_residency_and_flush_size(gpu):
    x = gpu.buffer(1 << 20)
    k = gpu.kernel(10 * US, cold_ns=30 * US, reads=[x])
    assert gpu._resident_fraction((x,)) == 0.0
    k()
    assert gpu._resident_fraction((x,)) == 1.0
    gpu._flush(gpu.spec.l2_bytes)()  # a flush of exactly the L2 leaves half behind in this model
    assert gpu._resident_fraction((x,)) == pytest.approx(0.5)
    gpu._flush(2 * gpu.spec.l2_bytes)()
    assert gpu._resident_fraction((x,)) == 0.0


# -- benchmark(): launch latency, overhead probe, cold cache --------------------------------------
def test_a_sample_on_an_idle_gpu_holds_one_launch_latency(gpu):
    k = gpu.kernel(10 * US)
    m = benchmark(k, warmup=2, trials=5)
    assert m.timer == "cuda-event" and m.device == "cuda:0"
    assert set(m.samples_ns) == {4000 + 10 * US}
    assert m.host_median == pytest.approx(4000e-9)


def test_overhead_probe_includes_a_launch_so_calibration_hides_the_latency(gpu):
    k = gpu.kernel(20 * US)
    m = benchmark(k, budget=2.0)
    # the probe is one empty kernel: its launch gap (4 µs) plus the end record's own latency
    assert m.calibration.overhead_ns == 4500
    # so the loop count makes that launch gap at most 0.1% of a sample (precision 1% x share 0.1)
    assert m.calibration.number == 226
    assert per_call_ns(m) <= 20 * US * 1.001
    assert per_call_ns(m) == pytest.approx(20 * US + 4000 / 226)


def test_cold_cache_sets_up_before_the_flush(gpu):
    x = gpu.buffer(1 << 20)
    touch = gpu.kernel(1 * US, reads=[x])
    k = gpu.kernel(10 * US, cold_ns=30 * US, reads=[x])
    m = benchmark(k, setup=touch, cold_cache=True, warmup=2, trials=5)
    # setup re-warmed x, then the flush evicted it: every sample runs cold; and the start event,
    # recorded behind the flush, holds no launch latency
    assert set(m.samples_ns) == {30 * US}


def test_cold_cache_flush_is_twice_the_l2(gpu):
    assert flush_bytes(torch.device("cuda", 0)) == 2 * gpu.spec.l2_bytes
    x = gpu.buffer(1 << 20)
    k = gpu.kernel(10 * US, cold_ns=30 * US, reads=[x])
    cold = benchmark(k, cold_cache=True, warmup=2, trials=5)
    warm = benchmark(k, number=1, warmup=2, trials=5)
    assert per_call_ns(cold) == 30 * US
    assert per_call_ns(warm) == 10 * US + 4000  # like with like: one call per sample, launch gap in it


def test_unjoined_stream_is_reported(gpu):
    side = gpu.cuda.Stream()
    k = gpu.kernel(200 * US)

    def leaky():
        with gpu.cuda.stream(side):
            k()

    def joined():
        with gpu.cuda.stream(side):
            k()
        gpu.cuda.current_stream().wait_stream(side)

    bad = benchmark(leaky, warmup=2, trials=10)
    good = benchmark(joined, warmup=2, trials=10)
    assert "unjoined_stream" in [w.code for w in bad.findings]
    assert "unjoined_stream" not in [w.code for w in good.findings]
    assert per_call_ns(good) >= 200 * US


# -- CUDA graphs ----------------------------------------------------------------------------------
def test_graph_upload_is_never_timed(gpu):
    k = gpu.kernel(2 * US)
    m = benchmark(k, cuda_graph=True, warmup=3, trials=10)
    # every sample is one replay: its host launch gap (6 µs) plus the kernel; the first replay's
    # 200 µs upload happened before sampling
    assert set(m.samples_ns) == {6000 + 2 * US}


def test_graph_loop_count_is_recalibrated_on_a_timed_replay(gpu):
    k = gpu.kernel(2 * US)  # launch-bound eagerly (4 µs launches), 2 µs per call in a graph
    eager = benchmark(k, budget=2.0)
    graph = benchmark(k, cuda_graph=True, budget=2.0)
    assert graph.calibration.reason == "adaptive+graph"
    assert graph.calibration.number >= 1.9 * eager.calibration.number
    assert per_call_ns(graph) == pytest.approx(2 * US, rel=0.002)
    assert per_call_ns(eager) == pytest.approx(4 * US, rel=0.002)  # eager: the launch rate


def test_graph_capture_uses_a_stream_on_the_requested_gpu():
    g = SimGPU(count=2)
    with g.installed():
        k = g.kernel(5 * US)
        a = benchmark(k, device="cuda:0", cuda_graph=True, warmup=2, trials=3)
        b = benchmark(k, device="cuda:1", cuda_graph=True, warmup=2, trials=3)
    assert a.device == "cuda:0" and b.device == "cuda:1"


def test_graph_with_setup_is_explained(gpu):
    k = gpu.kernel(5 * US)
    m = benchmark(k, cuda_graph=True, setup=lambda: None, warmup=2, trials=3)
    assert "graph_setup" in [w.code for w in m.findings]


def test_sync_inside_a_graph_capture_names_the_fix(gpu):
    k, item = gpu.kernel(5 * US), gpu.sync_op()

    def f():
        k()
        item()

    with pytest.raises(measurefirst.BenchmarkError, match="cannot capture host syncs"):
        benchmark(f, cuda_graph=True, warmup=2, trials=3)


# -- device="auto" --------------------------------------------------------------------------------
def test_auto_times_cpu_only_code_on_the_cpu(gpu):
    x = torch.ones(4)

    def cpu_code():
        x.sum()
        gpu.world.call(10 * US)  # its host cost on the simulated clock

    m = benchmark(cpu_code, warmup=2, trials=5)
    assert m.device == "cpu" and m.timer == "wall"
    assert "auto_device_cpu" in [w.code for w in m.findings]
    assert (m.options["auto_device"], m.options["auto_device_seen"]) == ("cpu", ["cpu"])  # codes, not words
    # a file written before the choice was a code held English words: the same finding
    old = replace(m, options={**m.options, "auto_device": "cpu: the first call touched only cpu tensors"})
    assert "auto_device_cpu" in [w.code for w in old.findings]
    assert per_call_ns(m) == 10 * US
    gpu_code = gpu.kernel(10 * US)
    assert benchmark(gpu_code, warmup=2, trials=5).device == "cuda:0"


def test_auto_warns_when_no_tensor_op_is_seen(gpu):
    m = benchmark(lambda: gpu.world.call(10 * US), warmup=2, trials=5)
    assert m.device == "cuda:0"
    assert "no_device_work" in [w.code for w in m.findings] and m.options["auto_device"] == "none"
    old = replace(m, options={**m.options, "auto_device": "no tensor op seen"})  # as older files wrote it
    assert "no_device_work" in [w.code for w in old.findings]


def test_auto_cold_call_is_the_observed_first_call(gpu):
    k = gpu.kernel(10 * US, first_ns=500 * US)
    m = benchmark(k, budget=0.5)
    assert m.warmup.cold_ns >= 500 * US
    assert per_call_ns(m) < 11 * US


# -- compare, sweep --------------------------------------------------------------------------------
def test_compare_on_the_gpu(gpu):
    c = compare({"a": gpu.kernel(10 * US), "b": gpu.kernel(12 * US)}, budget=2.0)
    v = c.verdict("b")
    assert v.verdict == "slower"
    assert v.ratio == pytest.approx(1.2, rel=0.002)
    assert c["a"].timer == "cuda-event"


def test_sweep_on_the_gpu(gpu):
    from measurefirst.tools.sweep import sweep

    r = sweep(lambda n: gpu.kernel(n * 10.0), sizes=[1000, 2000, 4000, 8000], budget=0.5,
                           progress=False)
    medians = [m.median * 1e9 for m in r.measurements]
    assert medians == pytest.approx([10 * US, 20 * US, 40 * US, 80 * US], rel=0.002)


def test_throttling_shows_as_drift(gpu):
    gpu.throttle = lambda t: 1.0 if t < 1.05e9 else 1.5  # the clock drops halfway through sampling
    m = benchmark(gpu.kernel(20 * US), budget=2.0, precision=0.002, min_time=1.5)
    assert "drift" in [w.code for w in m.findings]


# -- model steps ----------------------------------------------------------------------------------
def test_benchmark_step_phases_and_memory_are_exact(gpu):
    model, opt, batches, loss_fn = sim_step_parts(gpu)
    r = benchmark_step(model, opt, batches, loss_fn=loss_fn, steps=5, warmup=2, flops_per_step=None)
    assert r.device == "cuda:0"
    # the first phase starts on an idle device: one launch gap; the rest run back to back
    assert r.phase_s["data"] == pytest.approx((4000 + 100 * US) / 1e9)
    assert r.phase_s["forward"] == pytest.approx(300 * US / 1e9)
    assert r.phase_s["backward"] == pytest.approx(500 * US / 1e9)
    assert r.phase_s["optimizer"] == pytest.approx(200 * US / 1e9)
    assert r.step_s == pytest.approx((4000 + 1100 * US) / 1e9)
    assert {p: v["peak_allocated"] for p, v in r.memory.items()} == {
        "data": 1 << 20, "forward": 3 << 20, "backward": 5 << 20, "optimizer": 2 << 20}
    assert r.peak_phase == "backward"
    assert r.alloc_retries == 0 and r.ooms == 0


def test_benchmark_step_fp32_survives_the_new_tf32_api():
    g = SimGPU(name="NVIDIA H100 80GB HBM3")
    prev = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        assert tf32_matmul_enabled()
        with g.installed():
            model, opt, batches, loss_fn = sim_step_parts(g)
            r = benchmark_step(model, opt, batches, loss_fn=loss_fn, steps=3, warmup=1, flops_per_step=1e12)
        assert "TF32" in r.mfu_table_peak and "494.7" in r.mfu_table_peak
    finally:
        torch.backends.cuda.matmul.fp32_precision = prev
    assert not tf32_matmul_enabled()


def test_compare_steps_verdict_is_exact(gpu):
    """Two builds whose forward takes 300 and 600 µs: the table and the interleaved verdict agree, exactly."""
    fwd_us = iter([300.0, 600.0])

    def build():
        model, opt, batches, loss_fn = sim_step_parts(gpu, fwd_us=next(fwd_us))
        return {"model": model, "optimizer": opt, "batches": batches, "loss_fn": loss_fn}

    both = compare_steps(build, dtypes=["fp32", "bfloat16"], steps=3, warmup=1, compare_budget=0.5,
                         flops_per_step=None)
    results, comparison = both.steps, both.comparison
    assert comparison is not None
    assert [r.label for r in results] == ["eager/fp32", "eager/bf16"]  # bfloat16 is bf16
    assert [r.step_s for r in results] == pytest.approx([(4000 + 1100 * US) / 1e9, (4000 + 1400 * US) / 1e9])
    assert [r.phase_s["forward"] for r in results] == pytest.approx([300 * US / 1e9, 600 * US / 1e9])
    v = comparison.verdict("eager/bf16")
    assert (v.verdict, v.rounds, v.detectable) == ("slower", 6, 0.0)  # blocks of at least 3 steps
    assert v.ratio == pytest.approx(1.2727325178859) and v.ratio_ci == pytest.approx((v.ratio, v.ratio))
    assert comparison.stop.reason == "precision"


def test_ranged_step_is_exact(gpu):
    fwd, bwd = gpu.kernel(300 * US), gpu.kernel(500 * US)

    def step():
        with measurefirst.range("forward"):
            fwd()
        with measurefirst.range("backward"):
            bwd()

    r = benchmark_ranged_step(step, steps=4, warmup=1)
    assert r.phase_s["forward"] == pytest.approx((4000 + 300 * US) / 1e9)  # starts on an idle device
    assert r.phase_s["backward"] == pytest.approx(500 * US / 1e9)
    # the step runs from the "start" mark to the last; the first range's own mark adds its record (0.5 µs)
    assert r.step_s == pytest.approx((4500 + 800 * US) / 1e9)


# -- doctor, profile --------------------------------------------------------------------------------
def test_doctor_on_the_gpu_is_exact(gpu):
    k = gpu.kernel(50 * US, alloc=8 << 20)
    item = gpu.sync_op()

    def with_item():
        k()
        item()

    d = doctor(k, budget=0.5)
    assert d.device == "cuda:0" and d.error is None
    assert d.evidence["unsynced_s"] == pytest.approx(4000e-9)  # the launch: what an unsynced timer reads
    assert d.evidence["unsynced_ratio"] == pytest.approx(50 * US / 4000, rel=0.01)
    assert "unsynchronized_timing" in [f.code for f in d.warnings]
    assert d.evidence["cuda_syncs_per_call"] == 0
    assert d.evidence["peak_device_bytes_per_call"] == 8 << 20
    d2 = doctor(with_item, budget=0.5)
    assert d2.evidence["cuda_syncs_per_call"] == 1
    (site,) = d2.evidence["cuda_sync_sites"]
    assert "test_simgpu.py" in site and "item()" in site


def test_doctor_finds_launch_bound_code(gpu):
    d = doctor(gpu.kernel(1 * US), budget=0.5)
    assert "launch_bound" in [f.code for f in d.warnings]
    assert d.evidence["host_over_device"] == pytest.approx(1.0, rel=0.01)


def test_doctor_survives_the_new_tf32_api(gpu):
    prev = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        d = doctor(gpu.kernel(20 * US), budget=0.3)
    finally:
        torch.backends.cuda.matmul.fp32_precision = prev
    assert d.error is None and d.evidence["tf32"]["tf32_matmul"] is True


def test_profile_step_times_come_from_the_timer(gpu):
    k = gpu.kernel(300 * US)
    p = profile(k, steps=3, warmup=1)
    assert p.step_s == pytest.approx((4000 + 300 * US) / 1e9)


# -- MPS ------------------------------------------------------------------------------------------
def test_mps_events_and_flush():
    g = SimGPU(kind="mps", resolution_ns=20_000)
    with g.installed():
        assert resolve_device("auto") == torch.device("mps")
        m = benchmark(g.kernel(10 * US), budget=1.0)
        assert m.timer == "mps-event" and m.device == "mps"
        assert m.calibration.resolution_ns == 20_000
        # samples at least resolution / (0.1 x 1%) = 20 ms long
        assert m.calibration.number * 10 * US >= 20_000 / 0.001
        assert flush_bytes(torch.device("mps")) >= 2 * 96 * 2**20
        w = benchmark(g.kernel(10 * US), timer="wall", warmup=2, trials=3, number=1)
        assert w.timer == "wall" and per_call_ns(w) > 10 * US  # synchronized wall clock: launch + sync in it


def test_simulated_gpu_is_seeded():
    def run(seed):
        g = SimGPU(SimWorld(SimSpec(timer_ns=0, seed=seed)), GpuSpec(noise=0.05))
        with g.installed():
            return benchmark(g.kernel(10 * US), warmup=2, trials=20).samples_ns

    assert run(1) == run(1)
    assert run(1) != run(2)


# -- the smaller flaws ----------------------------------------------------------------------------
def test_cupti_overhead_rows_are_plumbing():
    from measurefirst.profiling.capture import _PLUMBING

    for name in ("Command Buffer Full", "Buffer Flush", "Instrumentation", "Resource", "Driver Compiler",
                 "cudaLaunchKernel", "ProfilerStep#3"):
        assert _PLUMBING.match(name), name
    for name in ("aten::mm", "Resources::load", "InstrumentationModule", "my_resource_op"):
        assert not _PLUMBING.match(name), name


def test_gb200_has_its_own_peak():
    from measurefirst.tools.step import dense_peak

    assert dense_peak("NVIDIA GB200", "bf16") == ("GB200", 2500e12)
    assert dense_peak("NVIDIA B200", "bf16") == ("B200", 2250e12)


def test_mps_timer_resolution_is_tens_of_microseconds():
    from measurefirst.measure.timers import MPS_EVENT_RESOLUTION_NS

    assert MPS_EVENT_RESOLUTION_NS >= 10_000


def test_every_flaw_test_fails_without_its_fix():  # simulated GPU: in the parallel phase (its speed decides nothing)
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "scripts" / "flaw_tests.py"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("failed") >= 10


def test_mps_without_events_falls_back_to_the_synchronized_wall_clock():
    g = SimGPU(kind="mps", mps_events=False)
    with g.installed():
        m = benchmark(g.kernel(10 * US), warmup=2, trials=3, number=1)
        assert m.timer == "wall"
        with pytest.raises(ValueError, match="no MPS events"):
            benchmark(g.kernel(10 * US), timer="event", warmup=1, trials=1)


def test_timer_choices_on_the_gpu(gpu):
    from measurefirst.measure.timers import CudaEventTimer

    with pytest.raises(ValueError, match="needs a CUDA device"):
        CudaEventTimer(torch.device("cpu"))
    with pytest.raises(ValueError, match="timer='event' needs a GPU"):
        benchmark(lambda: None, device="cpu", timer="event")
    m = benchmark(gpu.kernel(10 * US), timer="wall", warmup=2, trials=3, number=1)
    # the synchronized wall clock: launch, latency, kernel and the synchronize's own cost
    assert m.timer == "wall" and per_call_ns(m) == 4000 + 2000 + 10 * US + 1000


def test_doctor_notes_tf32_off_for_fp32_matmuls(gpu):
    a = torch.randn(8, 8)
    k = gpu.kernel(20 * US)

    def fp32_matmul():
        a @ a  # seen through the dispatch mode, as on a GPU
        k()

    prev = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        d = doctor(fp32_matmul, budget=0.3)
    finally:
        torch.backends.cuda.matmul.fp32_precision = prev
    assert "tf32_off" in d.codes()


def test_the_machine_is_handed_down_and_a_simulation_stays_in_its_context():
    import threading

    from measurefirst.measure.simulate import SimMachine
    from measurefirst.measure.timers import CudaEventTimer, make_timer

    g = SimGPU()
    seen: list[bool] = []
    with g.installed():
        other = threading.Thread(target=lambda: seen.append(machine().simulated))
        other.start()
        other.join()
        assert machine().simulated
    assert seen == [False] and not machine().simulated  # another thread measured on the real machine
    # a timer made for a machine reads that one from then on, installed or not
    timer = make_timer(torch.device("cuda", 0), machine=SimMachine(g))
    assert isinstance(timer, CudaEventTimer)
    syncs = g.syncs
    timer.synchronize()
    assert g.syncs == syncs + 1 and timer.now_ns() == g.world.now
