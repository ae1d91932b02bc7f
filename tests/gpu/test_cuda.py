"""CUDA paths, checked for real whenever a GPU is present (skipped otherwise)."""

import time

import pytest
import torch

from measurefirst import benchmark, resolve_device
from measurefirst.measure.devices import last_level_cache_bytes, machine
from measurefirst.measure.engine import flush_bytes
from measurefirst.results.stats import median
from measurefirst.measure.timers import CudaEventTimer

pytestmark = pytest.mark.cuda


@pytest.fixture
def big():
    return torch.randn(4096, 4096, device="cuda")


def test_auto_picks_cuda_and_events():
    dev = resolve_device("auto")
    assert dev.type == "cuda" and dev.index is not None
    a = torch.randn(256, 256, device="cuda")
    m = benchmark(lambda: a @ a, budget=1.0)
    assert m.timer == "cuda-event" and m.device.startswith("cuda")
    assert m.host_median is not None
    assert m.env["device_name"] and m.env["cuda_version"]


def test_events_agree_with_synchronized_wall_clock(big):
    ev = benchmark(lambda: big @ big, timer="event", budget=2.0)
    wall = benchmark(lambda: big @ big, timer="wall", budget=2.0)
    assert 0.7 < wall.median / ev.median < 1.5


def test_unsynchronized_timing_is_far_too_short(big):
    torch.cuda.synchronize()
    big @ big
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    big @ big
    naive = time.perf_counter() - t0  # the classic mistake: no synchronize
    torch.cuda.synchronize()
    right = benchmark(lambda: big @ big, budget=1.0).median
    assert naive < right / 3


def test_cuda_graph_mode(big):
    small = torch.randn(64, 64, device="cuda")
    eager = benchmark(lambda: small @ small, budget=1.0)
    graph = benchmark(lambda: small @ small, cuda_graph=True, budget=1.0)
    assert graph.median <= eager.median * 1.5
    assert graph.calibration.number >= 1


def test_flush_buffer_is_twice_the_l2():
    dev = resolve_device("cuda")
    nbytes = last_level_cache_bytes(dev)
    assert nbytes == torch.cuda.get_device_properties(dev).L2_cache_size
    assert flush_bytes(dev) == 2 * nbytes
    flush = machine().flush_kernel(dev, flush_bytes(dev))
    flush()
    buf = flush.__self__
    assert buf.numel() * buf.element_size() == 2 * nbytes - (2 * nbytes) % 4


def test_cold_cache_is_slower_than_warm_like_with_like():
    """Both timed the same way: one call per sample, the start event queued behind device work so
    that neither holds a launch latency; only the flush differs."""
    dev = resolve_device("cuda")
    x = torch.randn(2 * 1024 * 1024, device="cuda")  # 8 MiB: fits in L2
    t = CudaEventTimer(dev)
    flush = machine().flush_kernel(dev, flush_bytes(dev))

    def busy():
        torch.cuda._sleep(50_000)  # keeps the device busy while the host launches; evicts nothing

    def flush_then_busy():
        flush()
        busy()

    def fn():
        x.sum()

    for _ in range(5):
        fn()
    warm = median([t.time(fn, busy).elapsed_ns for _ in range(50)])
    cold = median([t.time(fn, flush_then_busy).elapsed_ns for _ in range(50)])
    assert cold > warm * 1.05
    m = benchmark(fn, cold_cache=True, budget=1.0)
    assert m.median * 1e9 == pytest.approx(cold, rel=0.25)


def test_a_sample_on_an_idle_gpu_holds_a_launch_gap_that_calibration_hides():
    dev = resolve_device("cuda")
    t = CudaEventTimer(dev)
    x = torch.ones(1, device="cuda")
    for _ in range(10):
        x.add_(1)
    alone = median([t.time(lambda: x.add_(1)).elapsed_ns for _ in range(50)])
    queued = median([t.time(lambda: x.add_(1), lambda: torch.cuda._sleep(50_000)).elapsed_ns for _ in range(50)])
    assert alone > queued  # the idle-GPU sample holds the launch gap
    m = benchmark(lambda: x.add_(1), budget=1.0)
    assert m.calibration.overhead_ns >= alone * 0.5  # the probe includes a launch


def test_cuda_graph_upload_excluded_and_count_recalibrated():
    x = torch.ones(1, device="cuda")
    fixed = benchmark(lambda: x.add_(1), cuda_graph=True, warmup=3, trials=10)
    assert max(fixed.samples_ns) < 3 * min(fixed.samples_ns)  # no first-replay upload in any sample
    eager = benchmark(lambda: x.add_(1), budget=1.0)
    graph = benchmark(lambda: x.add_(1), cuda_graph=True, budget=1.0)
    assert graph.median < eager.median
    assert graph.calibration.number >= eager.calibration.number


def test_auto_device_times_cpu_code_on_the_cpu():
    a = torch.randn(64, 64)
    m = benchmark(lambda: a @ a, budget=0.5)
    assert m.device == "cpu" and m.timer == "wall"
    assert "auto_device_cpu" in [w.code for w in m.findings]


def test_unjoined_side_stream_is_reported():
    a = torch.randn(2048, 2048, device="cuda")
    side = torch.cuda.Stream()

    def leaky():
        with torch.cuda.stream(side):
            a @ a

    m = benchmark(leaky, budget=1.0)
    assert "unjoined_stream" in [w.code for w in m.findings]


def test_new_tf32_api_does_not_break_step_or_doctor():
    from measurefirst import doctor

    prev = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32"
        a = torch.randn(1024, 1024, device="cuda")
        d = doctor(lambda: a @ a, budget=0.5)
        assert d.error is None
    finally:
        torch.backends.cuda.matmul.fp32_precision = prev


def test_launch_bound_code_shows_host_time_near_device_time():
    xs = [torch.ones(1, device="cuda") for _ in range(50)]

    def many_tiny():
        for x in xs:
            x.add_(1)

    m = benchmark(many_tiny, budget=1.0)
    assert m.host_median is not None and m.host_median >= 0.5 * m.median


def test_doctor_finds_item_syncs_with_their_source_line():
    from measurefirst import doctor

    x = torch.randn(1000, device="cuda")

    def loop_with_item():
        total = 0.0
        for i in range(5):
            total += (x * i).sum().item()  # the line doctor must point at
        return total

    d = doctor(loop_with_item, budget=1.0)
    f = next(f for f in d.findings if f.code == "implicit_syncs" and f.severity == "warning")
    [(site, n)] = f.context["sites"].items()
    assert f.value == 5 and n == 5 and "test_cuda.py" in site and ".item()" in site
    from measurefirst.render.findings import finding_words

    assert finding_words(f).message == f"5 host-device synchronization(s) per call: {site} x5"


def test_doctor_tf32_and_unsynced_ratio():
    from measurefirst import doctor

    prev = torch.backends.cuda.matmul.fp32_precision
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    try:
        a = torch.randn(4096, 4096, device="cuda")
        d = doctor(lambda: a @ a, budget=1.0)
    finally:
        torch.backends.cuda.matmul.fp32_precision = prev
    if torch.cuda.get_device_properties(0).major >= 8:
        assert "tf32_off" in d.codes()
    f = next(f for f in d.findings if f.code == "unsynchronized_timing")
    assert f.severity == "warning" and f.value > 2


def test_step_memory_per_phase_and_mfu_on_cuda():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent.parent.parent / "examples"))
    import tiny_lm

    from measurefirst.render.step import table_peak_words
    from measurefirst.tools.step import benchmark_step

    parts = tiny_lm.build()
    r = benchmark_step(parts["model"], parts["optimizer"], parts["batches"], device="cuda", steps=5, warmup=2,
                       micro_batch=8, seq_len=64)
    assert set(r.memory) == {"data", "forward", "backward", "optimizer"}
    assert r.peak_phase in r.memory and r.alloc_retries == 0 and r.ooms == 0
    assert sum(r.phase_s.values()) == pytest.approx(r.step_s, rel=0.3)
    name = torch.cuda.get_device_name(0)
    if r.mfu_table is not None:
        assert 0 < r.mfu_table < 1
    else:
        assert r.mfu_table_peak == "not_in_table"
        assert table_peak_words(r) == f"{name}: not in the dense-peak table (no guess)"
