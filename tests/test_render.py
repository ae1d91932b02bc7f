from rich.console import Console

from measurefirst.render.text import decimals_for, format_time, measurement_table, time_unit
from measurefirst.results.kinds import Measurement, Stop


def test_time_unit():
    assert time_unit(2.5) == ("s", 1.0)
    assert time_unit(0.0042) == ("ms", 1e-3)
    assert time_unit(3.1e-6) == ("µs", 1e-6)
    assert time_unit(5e-10) == ("ns", 1e-9)


def test_digits_follow_the_confidence_interval():
    assert format_time(0.0012346, 0.000004) == "1.2346 ms"  # ±0.004 ms: 4 decimals
    assert format_time(0.0012346, 0.00004) == "1.235 ms"  # ±0.04 ms: 3 decimals
    assert format_time(0.0012346, 0.0004) == "1.23 ms"
    assert format_time(0.0012346) == "1.235 ms"  # unknown: 4 significant figures
    assert format_time(float("nan")) == "n/a"
    assert decimals_for(250.0, 30.0) == 0


def _m(samples, numbers):
    return Measurement(label="x", device="cpu", timer="wall", samples_ns=tuple(samples), numbers=tuple(numbers),
                       host_ns=None, preempted=None, warmup=None, calibration=None,
                       stop=Stop("precision", True, 0.01, 1.0))


def test_table_renders_into_a_fixed_width_console():
    m = _m([1000.0 * (1 + i % 3) for i in range(20)], [1] * 20)  # IQR 100% of the median: unstable
    console = Console(width=200, record=True, file=open("/dev/null", "w"))
    console.print(measurement_table([m]))
    out = console.export_text()
    assert "x" in out and "µs" in out and "cpu/wall" in out
    text = str(m)
    assert "warning [unstable]: the samples' IQR is 100.0% of the median. Fix: close other programs" in text


def test_empty_measurement_renders():
    m = _m([], [])
    assert "no samples" in str(m)
