"""The compact stored form (measurefirst.results.compact): lossless bit for bit on any column of floats or
whole numbers and on whole results, smaller than the format before it, and every format ever written
still readable (fixtures written by each format are committed next to the JSON they hold)."""

from __future__ import annotations

import array
import json
import math
import random
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from measurefirst.results.compact import (EVENT_SCALE, FORMAT, FORMAT_1, MAGIC, MIN_ARRAY, decode_column,
                                          encode_column, is_packed, pack, packed_format, unpack)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "compact"
RUNS = ("matmul256", "simgpu")  # a default benchmark of a 256x256 matmul on a CPU; one on the simulated GPU
PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 5e-324, -5e-324, 2.2250738585072009e-308,
           1.7976931348623157e308, -1.7976931348623157e308, 1.0, 2.0**53, 2.0**63, -2.0**63, 2.0**64, 0.1]
#: a NaN with a payload of its own (not the default quiet NaN)
PAYLOAD_NAN = struct.unpack("<d", struct.pack("<Q", 0x7FF0_0000_0000_1234))[0]


def bits(values):
    """Floats by their IEEE-754 bit patterns (so that nan, its payload and -0.0 are compared too)."""
    return [struct.pack("<d", x) if type(x) is float else ("int", x) for x in values]


def events(ticks):
    """CUDA-like event times: float32 milliseconds (multiples of 0.5 µs) times 1e6."""
    return [x * EVENT_SCALE for x in array.array("f", [k * 0.0005 for k in ticks])]


floats = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
columns = st.one_of(
    st.lists(floats, max_size=60),
    st.lists(st.sampled_from(SPECIAL + [PAYLOAD_NAN]), max_size=40),
    st.lists(st.integers(-2**40, 2**40).map(float), max_size=60),  # whole floats (perf_counter_ns)
    st.lists(st.integers(0, 40_000).map(lambda k: k * 0.0005 * EVENT_SCALE), max_size=60),
    st.lists(st.integers(0, 40_000), max_size=60).map(events),  # float32 event times
    st.lists(st.integers(-2**63, 2**64 - 1), max_size=60),  # whole numbers of up to 64 bits
    st.lists(st.sampled_from([1, 2, 66]), max_size=200).map(sorted),  # loop counts: a few runs
)


@PROPERTY
@given(values=columns)
def test_a_column_comes_back_bit_for_bit(values):
    back = decode_column(encode_column(values))
    assert bits(back) == bits(values)
    assert [type(x) for x in back] == [type(x) for x in values]


@PROPERTY
@given(values=columns, other=st.lists(st.integers(0, 9), min_size=MIN_ARRAY, max_size=MIN_ARRAY + 3))
def test_a_result_comes_back_bit_for_bit(values, other):
    doc = {"kind": "measurement", "samples_ns": values, "numbers": other, "nested": {"x": [values, "text"]},
           "short": other[:3], "mixed": [1, 1.0] * MIN_ARRAY, "bools": [True] * MIN_ARRAY, "big": [2**70] * MIN_ARRAY}
    back = unpack(pack(doc))
    assert bits(back["samples_ns"]) == bits(values) and bits(back["nested"]["x"][0]) == bits(values)
    rest = {k: v for k, v in back.items() if k not in ("samples_ns", "nested")}
    assert json.dumps(rest) == json.dumps({k: v for k, v in doc.items() if k not in ("samples_ns", "nested")})
    assert [type(x) for x in back["mixed"][:2]] == [int, float] and type(back["bools"][0]) is bool


def test_the_special_floats_and_empty_columns_come_back():
    for values in ([], [math.nan], [-0.0] * 20, [PAYLOAD_NAN] * 3 + [0.0], SPECIAL, [5e-324] * 30, [2**64 - 1, -2**63]):
        assert bits(decode_column(encode_column(values))) == bits(values)
    with pytest.raises(ValueError, match="floats only"):
        encode_column([1, 2.0])
    with pytest.raises(ValueError, match="64 bits"):
        encode_column([2**64])


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("fmt", ["mfz1", "mfz2"])
def test_every_format_written_stays_readable(run, fmt):
    """A blob written by each format (committed when that format was current) decodes to the same result."""
    blob = (FIXTURES / f"{run}.{fmt}").read_bytes()
    assert packed_format(blob) == {"mfz1": FORMAT_1, "mfz2": 2}[fmt]
    assert unpack(blob) == json.loads((FIXTURES / f"{run}.json").read_text())


@pytest.mark.parametrize("run", RUNS)
def test_a_default_run_is_smaller_than_in_the_format_before(run):
    doc = json.loads((FIXTURES / f"{run}.json").read_text())
    data = pack(doc)
    assert packed_format(data) == FORMAT and unpack(data) == doc
    assert len(data) < len((FIXTURES / f"{run}.mfz1").read_bytes())


def test_runs_of_one_value_and_event_ticks_are_stored_by_what_they_are():
    # a column of one value costs the same whatever its length (its counts aside)
    assert len(encode_column([8] * 10_000)) - len(encode_column([8] * 20)) <= 2
    # float32 event times take fewer bytes than the same floats one ulp off (stored as float64 bits)
    rng = random.Random(3)
    exact = events([rng.randint(9000, 9300) for _ in range(500)])
    off = [math.nextafter(x, math.inf) if k % 2 else x for k, x in enumerate(exact)]
    assert len(encode_column(exact)) < len(encode_column(off)) / 2
    assert bits(decode_column(encode_column(off))) == bits(off)


def test_a_column_that_follows_another_is_stored_against_it():
    """``synced_ns`` is ``samples_ns`` plus a sync's cost: packed together, it costs a fraction of its own size."""
    rng = random.Random(5)
    samples = events([rng.randint(9000, 9300) for _ in range(400)])
    synced = [float(round(x) + 4000 + 500 * (k % 50 == 0)) for k, x in enumerate(samples)]
    doc = {"samples_ns": samples, "synced_ns": synced, "other": synced[:100]}
    data = pack(doc)
    assert unpack(data) == doc
    alone = len(pack({"samples_ns": samples, "other": synced[:100]}))
    assert len(data) - alone < len(encode_column(synced)) / 4


@PROPERTY
@given(body=st.binary(max_size=200), prefix=st.sampled_from([b"", b"\x00\x05", b"\x01\x05", b"\x82\x00\x05"]))
def test_any_bytes_decode_or_are_refused_with_a_value_error(body, prefix):
    """Bytes with a right checksum but anything in them (what damage past the checksum looks like)."""
    data = MAGIC + bytes([FORMAT]) + prefix + body
    data += zlib.crc32(data).to_bytes(4, "little")
    for decode, blob in ((unpack, data), (decode_column, prefix + body)):
        try:
            decode(blob)
        except ValueError:
            pass


def test_damaged_or_newer_data_is_refused_with_a_reason():
    data = pack(json.loads((FIXTURES / "simgpu.json").read_text()))
    with pytest.raises(ValueError, match="not a measurefirst stored result"):
        unpack(data[:40])
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x10
    with pytest.raises(ValueError, match="checksum"):
        unpack(bytes(flipped))
    newer = data[:3] + bytes([FORMAT + 1]) + data[4:]
    assert is_packed(newer)
    with pytest.raises(ValueError, match="newer measurefirst .*upgrade"):
        unpack(newer)
    with pytest.raises(ValueError, match="not a measurefirst column"):
        decode_column(encode_column([1.5] * 30)[:-3])
