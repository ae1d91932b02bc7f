"""A result's stored form, compact and lossless: its JSON with every long list of numbers taken out as a
column of whole numbers, each part compressed by zlib or lzma, whichever makes it smaller.

:func:`unpack` gives back exactly the dictionary :func:`pack` was given (same keys, same order, same
types, same float64 values bit for bit), and :func:`decode_column` exactly the numbers
:func:`encode_column` was given (any floats: ``nan`` with its payload, ``inf``, ``-0.0``, subnormals;
or whole numbers of up to 64 bits). Standard library only: reading a run needs no numpy.

A column is stored as whole numbers: whole numbers as they are; floats that are whole numbers (the
``106689.0`` of ``samples_ns``: ``perf_counter_ns`` counts whole nanoseconds) as those; floats that are
float32 milliseconds times 1e6 (CUDA event times: ``elapsed_time`` is a float32) as the nearest whole
nanosecond and the float32 steps from that to the event's own float32 (mostly zeros); any other floats
as their float64 bits. The whole numbers less their median, divided by their greatest common divisor
(0.5 µs event ticks become 1), are zigzagged (small magnitudes, small numbers) as they are, as
differences from the one before (a drift) or as runs (``numbers``, the loop counts: one value a few
times), whichever compresses best, in the fewest bytes that hold the largest, laid out byte plane by
byte plane (all first bytes, then all second bytes...) or number by number; a column that follows an
earlier one of its length (``synced_ns`` and ``host_ns`` follow ``samples_ns`` on a GPU) is stored as
its differences from it when that is smaller. The JSON text left is
compressed with a frozen dictionary of the words results repeat (keys, rules, options), so that a
run's few hundred bytes of text do not pay for them again.

The format: ``MFZ`` and a format byte (:data:`FORMAT`; ``1`` is the format before it, read forever:
zlib of the JSON and byte planes), then the JSON block (method byte, its length, its compressed length,
the bytes), the number of columns and each column (its length, its bytes), then the CRC-32 of all that
precedes it (4 bytes, little-endian). Lengths are LEB128 varints. A column: its kind (whole numbers,
whole floats, event times, other floats; with the bit 0x80, the index of the earlier column it is
stored against follows), its count, and unless empty its whole numbers (event times: the float32
steps, with their length first, then the nanoseconds): their median (zigzag varint), the divisor,
a byte of transform, layout and compressor, the width in bytes, how many numbers are stored (runs store
two per run) and the compressed bytes. A new format takes a new format byte: a dictionary or a rule
once written is never changed.
"""

from __future__ import annotations

import array
import itertools
import json
import lzma
import math
import sys
import zlib
from typing import Any, Callable, Sequence, TypeGuard

MAGIC = b"MFZ"
#: The format :func:`pack` writes (the byte after :data:`MAGIC`). Every earlier format stays readable.
FORMAT = 2
#: ``MFZ1``: zlib of the JSON and 8-byte byte planes (measurefirst before issue 29); read, never written.
FORMAT_1 = ord("1")
#: Lists shorter than this stay in the JSON text (a column's header costs a few bytes), unless they hold
#: a float that JSON cannot (``nan``, ``inf``).
MIN_ARRAY = 8
_SLOT = "\x00mf"
#: The most numbers in a column (longer lists stay in the JSON text): a count beyond it is damage.
MAX_COLUMN = 2**26

# what the numbers of a column were
_INTS, _WHOLE, _EVENTS, _DOUBLES = 0, 1, 2, 3
#: CUDA event times: float32 milliseconds (``torch.cuda.Event.elapsed_time``) times 1e6 (nanoseconds).
EVENT_SCALE = 1e6
#: a column's kind with this bit: stored as its differences from an earlier column (one of the last
#: ``_BASES`` of its length), whose index follows
_BASED, _BASES = 0x80, 3
# how a column's whole numbers are turned into small ones
_AS_IS, _DELTAS, _RUNS = 0, 1, 2
# compressors
_NONE, _ZLIB, _LZMA, _ZLIB_WORDS = 0, 1, 2, 3
#: LZMA2 without literal context (a byte plane's bytes hardly depend on the byte before them: 5% smaller)
_LZMA_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": 1 << 16, "lc": 0, "lp": 0, "pb": 0}]
_COLUMN_METHODS = (_NONE, _ZLIB, _LZMA)
#: lzma (slower to start) is tried on this many bytes or more only
_SLOW_FROM = 1024
_TEXT_METHODS = (_NONE, _ZLIB, _ZLIB_WORDS, _LZMA)
_LITTLE = sys.byteorder == "little"


def is_packed(data: Any) -> TypeGuard[bytes]:
    """Whether ``data`` is a compact stored result (of any format, a newer one included)."""
    return isinstance(data, bytes) and len(data) >= 4 and data[:3] == MAGIC


def packed_format(data: Any) -> int | None:
    """The format byte of a compact stored result (:data:`FORMAT`, :data:`FORMAT_1`...), None for other data."""
    return data[3] if is_packed(data) else None


# ---- varints ------------------------------------------------------------------------------------------
def _uvarint(x: int) -> bytes:
    out = bytearray()
    while x >= 0x80:
        out.append(x & 0x7F | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


def _zz(x: int) -> int:
    return 2 * x if x >= 0 else -2 * x - 1


def _unzz(z: int) -> int:
    return (z >> 1) ^ -(z & 1)


class _Reader:
    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data, self.pos, self.end = data, pos, len(data) if end is None else end

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise ValueError("truncated")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def byte(self) -> int:
        return self.take(1)[0]

    def uvarint(self) -> int:
        x = shift = 0
        while True:
            b = self.byte()
            x |= (b & 0x7F) << shift
            if b < 0x80:
                return x
            shift += 7
            if shift > 70:
                raise ValueError("a length beyond 64 bits")


# ---- compressors --------------------------------------------------------------------------------------
def _words_dictionary() -> bytes:
    return _WORDS_2.encode("utf-8")


def _compress(method: int, raw: bytes) -> bytes:
    if method == _NONE:
        return raw
    if method in (_ZLIB, _ZLIB_WORDS):
        c = (zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY, _words_dictionary())
             if method == _ZLIB_WORDS else zlib.compressobj(9, zlib.DEFLATED, -15, 9))
        return c.compress(raw) + c.flush()
    return lzma.compress(raw, format=lzma.FORMAT_RAW, filters=_LZMA_FILTERS)


def _squeeze(raw: bytes, methods: Sequence[int]) -> tuple[int, bytes]:
    """The smallest of ``raw`` compressed by each of ``methods``: (method, bytes)."""
    best = (_NONE, raw)
    for method in methods:
        if method != _NONE and raw and (len(raw) >= _SLOW_FROM or method != _LZMA):
            out = _compress(method, raw)
            if len(out) < len(best[1]):
                best = (method, out)
    return best


def _expand(method: int, data: bytes, size: int) -> bytes:
    """``data`` decompressed: exactly ``size`` bytes, or ValueError (never more is decompressed)."""
    if method == _NONE:
        out = data
    elif method in (_ZLIB, _ZLIB_WORDS):
        d = (zlib.decompressobj(-15, _words_dictionary()) if method == _ZLIB_WORDS else zlib.decompressobj(-15))
        out = d.decompress(data, size + 1)
    elif method == _LZMA:
        out = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=_LZMA_FILTERS).decompress(data, size + 1)
    else:
        raise ValueError(f"unknown compressor {method}")
    if len(out) != size:
        raise ValueError(f"{len(out)} bytes where {size} were stored")
    return out


# ---- columns ------------------------------------------------------------------------------------------
def is_column(values: Sequence[Any]) -> bool:
    """Whether :func:`encode_column` takes ``values``: all floats, or all whole numbers (not bools) of at
    most 64 bits; at most :data:`MAX_COLUMN` of them."""
    if len(values) > MAX_COLUMN:
        return False
    types = set(map(type, values))
    return types <= {float} or (types == {int} and -2**64 < min(values) and max(values) < 2**64)


def _float32_bits(values: Sequence[float]) -> list[int]:
    """The bits of each value rounded to a float32, as a signed 32-bit number."""
    out = array.array("i")
    out.frombytes(array.array("f", values).tobytes())
    return out.tolist()


def _as_whole(values: Sequence[Any]) -> tuple[int, list[list[int]]]:
    """A column's numbers as sequences of whole numbers, and which kind they were."""
    if all(type(x) is int for x in values):
        return _INTS, [list(values)]
    doubles = array.array("d", values)
    if all(map(float.is_integer, values)) and -2**63 < min(values) and max(values) < 2**63:
        whole = list(map(int, values))
        if array.array("d", whole).tobytes() == doubles.tobytes():  # not when a -0.0 is there
            return _WHOLE, [whole]
    if all(math.isfinite(x) and abs(x) < 2**62 for x in values):
        # event times: the nearest whole nanosecond, and the float32 steps from its milliseconds to the event's
        try:
            events = array.array("f", [x / EVENT_SCALE for x in values])
            if array.array("d", [x * EVENT_SCALE for x in events]).tobytes() == doubles.tobytes():
                ns = [round(x) for x in values]
                return _EVENTS, [ns, [a - b for a, b in zip(_float32_bits(events),
                                                            _float32_bits([x / EVENT_SCALE for x in ns]))]]
        except OverflowError:
            pass
    bits = array.array("q")
    bits.frombytes(doubles.tobytes())
    return _DOUBLES, [bits.tolist()]


def _from_whole(kind: int, seqs: list[list[int]]) -> list[Any]:
    if kind == _INTS and len(seqs) == 1:
        return seqs[0]
    if kind == _WHOLE and len(seqs) == 1:
        return [float(x) for x in seqs[0]]
    if kind == _EVENTS and len(seqs) == 2:
        events = array.array("f")
        events.frombytes(array.array("i", [a + b for a, b in zip(
            _float32_bits([x / EVENT_SCALE for x in seqs[0]]), seqs[1])]).tobytes())
        return [x * EVENT_SCALE for x in events]
    if kind == _DOUBLES and len(seqs) == 1:
        doubles = array.array("d")
        doubles.frombytes(array.array("q", seqs[0]).tobytes())
        return doubles.tolist()
    raise ValueError(f"unknown column kind {kind}")


def _lay(z: list[int], width: int, planes: bool) -> bytes:
    """Non-negative numbers in ``width`` little-endian bytes each: plane by plane, or number by number."""
    if width == 0:
        return b""
    if width > 8:
        raw = b"".join(x.to_bytes(width, "little") for x in z)
        return b"".join(raw[i::width] for i in range(width)) if planes else raw
    full = array.array("Q", z)
    if not _LITTLE:
        full.byteswap()
    raw = full.tobytes()
    if planes:
        return b"".join(raw[i::8] for i in range(width))
    out = bytearray(len(z) * width)
    for i in range(width):
        out[i::width] = raw[i::8]
    return bytes(out)


def _unlay(data: bytes, count: int, width: int, planes: bool) -> list[int]:
    if len(data) != count * width:
        raise ValueError("a column of the wrong length")
    if width == 0:
        return [0] * count
    if width > 8:
        if planes:
            raw = bytearray(count * width)
            for i in range(width):
                raw[i::width] = data[i * count:(i + 1) * count]
            data = bytes(raw)
        return [int.from_bytes(data[k:k + width], "little") for k in range(0, len(data), width)]
    full = bytearray(count * 8)
    for i in range(width):
        full[i::8] = data[i * count:(i + 1) * count] if planes else data[i::width]
    out = array.array("Q")
    out.frombytes(bytes(full))
    if not _LITTLE:
        out.byteswap()
    return out.tolist()


def _transforms(r: list[int]) -> list[tuple[int, list[int]]]:
    """The ways to store ``r`` as small non-negative numbers: as they are, as differences, as runs."""
    steps = [r[0], *(b - a for a, b in zip(r, r[1:]))]
    out = [(_AS_IS, [x + x if x >= 0 else -x - x - 1 for x in r]),
           (_DELTAS, [x + x if x >= 0 else -x - x - 1 for x in steps])]
    if 2 * (len(r) - steps.count(0)) <= len(r):  # few runs
        runs: list[int] = []
        previous = 0
        for value, group in itertools.groupby(r):
            runs += [_zz(value - previous), len(list(group))]
            previous = value
        out.append((_RUNS, runs))
    return out


def _untransform(transform: int, z: list[int], count: int) -> list[int]:
    if transform == _AS_IS:
        r = [_unzz(x) for x in z]
    elif transform == _DELTAS:
        r = list(itertools.accumulate(_unzz(x) for x in z))
    elif transform == _RUNS:
        if len(z) % 2 or sum(z[1::2]) != count:
            raise ValueError("runs that do not add up")
        r = []
        for value, n in zip(itertools.accumulate(_unzz(x) for x in z[0::2]), z[1::2]):
            r += [value] * n
    else:
        raise ValueError(f"unknown transform {transform}")
    if len(r) != count:
        raise ValueError("a column of the wrong length")
    return r


def encode_column(values: Sequence[Any]) -> bytes:
    """``values`` (all floats, or all whole numbers of at most 64 bits; see :func:`is_column`) in their
    compact form; :func:`decode_column` gives them back exactly."""
    return _encode_column(values, [])[0]


def _encode_column(values: Sequence[Any], earlier: list[list[int]],
                   floats: Sequence[bool] = ()) -> tuple[bytes, list[int]]:
    """A column's bytes, and its (first) whole numbers; a column of floats is stored as its differences
    from the whole numbers of one of the ``earlier`` columns of floats (``floats``: which were) of its
    length when that is smaller (``synced_ns`` and ``host_ns`` follow ``samples_ns``)."""
    if not is_column(values):
        raise ValueError("a column holds floats only, or whole numbers of at most 64 bits only")
    if not values:
        return bytes([_INTS]) + _uvarint(0), []
    kind, seqs = _as_whole(values)
    rest = b"".join(_uvarint(len(part)) + part for part in [_encode_ints(ints) for ints in seqs[1:]])
    best = b""
    bases = [i for i, seq in enumerate(earlier) if len(seq) == len(values) and kind != _INTS and floats[i]][-_BASES:]
    for base in [None, *bases]:
        first = seqs[0] if base is None else [a - b for a, b in zip(seqs[0], earlier[base])]
        out = (bytes([kind | (0 if base is None else _BASED)]) + (b"" if base is None else _uvarint(base))
               + _uvarint(len(values)) + rest + _encode_ints(first))
        if not best or len(out) < len(best):
            best = out
    return best, seqs[0]


def _encode_ints(ints: list[int]) -> bytes:
    """Whole numbers (at least one) as small ones: less their median, over their divisor, in the
    transform, layout and compressor that make them smallest."""
    ref = sorted(ints)[len(ints) // 2]
    divisor = math.gcd(*[x - ref for x in ints]) or 1
    r = [(x - ref) // divisor for x in ints]
    best: tuple[int, int, int, bool, bytes, int] | None = None  # size, transform, width, planes, bytes, count
    for transform, z in _transforms(r):
        width = (max(z).bit_length() + 7) // 8
        for planes in (True, False) if width > 1 else (False,):
            raw = _lay(z, width, planes)
            size = len(_compress(_ZLIB, raw)) if raw else 0
            if best is None or size < best[0]:
                best = (size, transform, width, planes, raw, len(z))
    assert best is not None
    _, transform, width, planes, raw, count = best
    method, payload = _squeeze(raw, _COLUMN_METHODS)
    return (_uvarint(_zz(ref)) + _uvarint(divisor) + bytes([transform | planes << 2 | method << 3])
            + _uvarint(width) + _uvarint(count) + payload)


def decode_column(data: bytes) -> list[Any]:
    """The numbers :func:`encode_column` was given; ``ValueError`` for bytes it did not write."""
    try:
        return _decode_column(_Reader(data), [])[0]
    except (ValueError, OverflowError, TypeError, MemoryError, EOFError, OSError, lzma.LZMAError, zlib.error) as exc:
        raise ValueError(f"not a measurefirst column: {exc}") from None


def _decode_column(rd: _Reader, earlier: list[list[int]]) -> tuple[list[Any], list[int]]:
    kind = rd.byte()
    base = rd.uvarint() if kind & _BASED else None
    kind &= ~_BASED
    n = rd.uvarint()
    if n > MAX_COLUMN:
        raise ValueError("a column longer than any written")
    if n == 0:
        if rd.pos != rd.end:
            raise ValueError("bytes after an empty column")
        return [], []
    rest = []
    if kind == _EVENTS:
        length = rd.uvarint()
        rest.append(_decode_ints(_Reader(rd.take(length)), n))
    first = _decode_ints(rd, n)
    if base is not None:
        if base >= len(earlier) or len(earlier[base]) != n:
            raise ValueError("a column stored against one that is not there")
        first = [a + b for a, b in zip(first, earlier[base])]
    return _from_whole(kind, [first, *rest]), first


def _decode_ints(rd: _Reader, n: int) -> list[int]:
    ref, divisor, flags, width, count = _unzz(rd.uvarint()), rd.uvarint(), rd.byte(), rd.uvarint(), rd.uvarint()
    if width > 9 or count > 2 * n:
        raise ValueError("a column wider or longer than any written")
    raw = _expand(flags >> 3, rd.take(rd.end - rd.pos), count * width)
    return [ref + divisor * x for x in _untransform(flags & 3, _unlay(raw, count, width, bool(flags & 4)), n)]


# ---- whole results ------------------------------------------------------------------------------------
def pack(doc: dict[str, Any]) -> bytes:
    """``doc`` (a result's parsed JSON) in its compact stored form (format :data:`FORMAT`)."""
    columns: list[bytes] = []
    earlier: list[list[int]] = []
    floats: list[bool] = []

    def strip(o: Any) -> Any:
        if isinstance(o, dict):
            if _SLOT in o:
                raise ValueError("a result with the key \\x00mf cannot be packed")
            return {k: strip(v) for k, v in o.items()}
        if isinstance(o, list):
            if o and is_column(o) and (len(o) >= MIN_ARRAY or not all(math.isfinite(x) for x in o)):
                column, whole = _encode_column(o, earlier, floats)
                columns.append(column)
                earlier.append(whole)
                floats.append(type(o[0]) is float)
                return {_SLOT: len(columns) - 1}
            return [strip(v) for v in o]
        return o

    text = json.dumps(strip(doc), separators=(",", ":"), allow_nan=False).encode("utf-8")
    method, payload = _squeeze(text, _TEXT_METHODS)
    out = bytearray(MAGIC + bytes([FORMAT, method]) + _uvarint(len(text)) + _uvarint(len(payload)) + payload)
    out += _uvarint(len(columns))
    for column in columns:
        out += _uvarint(len(column)) + column
    return bytes(out + zlib.crc32(out).to_bytes(4, "little"))


def unpack(data: bytes) -> Any:
    """The dictionary :func:`pack` was given (of any format written so far); ``ValueError`` for bytes it
    did not write, or of a newer format."""
    if not is_packed(data):
        raise ValueError("not a measurefirst stored result: no MFZ header")
    readers: dict[int, Callable[[bytes], tuple[Any, list[list[Any]]]]] = {FORMAT: _read_2, FORMAT_1: _read_1}
    if data[3] not in readers:
        raise ValueError(f"stored by a newer measurefirst (compact format {data[3]}); upgrade measurefirst")
    try:
        doc, columns = readers[data[3]](data)
    except (zlib.error, lzma.LZMAError, OSError, EOFError, UnicodeDecodeError, ValueError, OverflowError,
            TypeError, MemoryError, RecursionError) as exc:
        raise ValueError(f"not a measurefirst stored result: {str(exc).splitlines()[0] if str(exc) else exc!r}") \
            from None

    def fill(o: Any) -> Any:
        if isinstance(o, dict):
            if len(o) == 1 and _SLOT in o:
                return columns[o[_SLOT]]
            return {k: fill(v) for k, v in o.items()}
        if isinstance(o, list):
            return [fill(v) for v in o]
        return o

    try:
        return fill(doc)
    except (IndexError, TypeError) as exc:
        raise ValueError(f"not a measurefirst stored result: {exc}") from None


def _read_2(data: bytes) -> tuple[Any, list[list[Any]]]:
    if len(data) < 8 or zlib.crc32(data[:-4]) != int.from_bytes(data[-4:], "little"):
        raise ValueError("its checksum does not match (a damaged copy)")
    rd = _Reader(data, 4, len(data) - 4)
    method, size, stored = rd.byte(), rd.uvarint(), rd.uvarint()
    doc = json.loads(_expand(method, rd.take(stored), size).decode("utf-8"))
    columns: list[list[Any]] = []
    earlier: list[list[int]] = []
    for _ in range(rd.uvarint()):
        length = rd.uvarint()
        values, whole = _decode_column(_Reader(rd.take(length)), earlier)
        columns.append(values)
        earlier.append(whole)
    if rd.pos != rd.end:
        raise ValueError("bytes after the last column")
    return doc, columns


def _read_1(data: bytes) -> tuple[Any, list[list[Any]]]:
    """Format 1 (``MFZ1``): zlib of the JSON text's length (4 bytes), the text, then each array: its tag
    (``i`` whole numbers, ``f`` floats that are whole, ``d`` other floats), its length (4 bytes), for
    ``i`` and ``f`` its minimum (8 bytes, signed), and its 8 byte planes."""
    body = zlib.decompress(data[4:])
    n = int.from_bytes(body[:4], "little")
    doc = json.loads(body[4:4 + n].decode("utf-8"))
    columns: list[list[Any]] = []
    pos = 4 + n
    while pos < len(body):
        tag = chr(body[pos])
        count = int.from_bytes(body[pos + 1:pos + 5], "little")
        pos += 5
        low = 0
        if tag != "d":
            low = int.from_bytes(body[pos:pos + 8], "little", signed=True)
            pos += 8
        if tag not in "dif" or pos + 8 * count > len(body):
            raise ValueError("a truncated array")
        full = bytearray(8 * count)
        for i in range(8):
            full[i::8] = body[pos + i * count:pos + (i + 1) * count]
        pos += 8 * count
        values = array.array("d" if tag == "d" else "Q")
        values.frombytes(bytes(full))
        if not _LITTLE:
            values.byteswap()
        columns.append(values.tolist() if tag == "d" else
                       [float(x + low) for x in values] if tag == "f" else [x + low for x in values])
    return doc, columns


#: The words results repeat (their keys, rules, options, environment), the dictionary the JSON text of
#: format 2 is compressed with. Frozen: a format that needs other words is a new format.
_WORDS_2 = (
    '{"schema_version":2,"kind":"measurement","label":"matmul","device":"cuda:0","timer":"cuda-event","co'
    'mplete":true,"discard_preempted":true,"samples_ns":{"\\u0000mf":0},"numbers":{"\\u0000mf":0},"host_ns"'
    ':{"\\u0000mf":0},"preempted":null,"synced_ns":{"\\u0000mf":0},"warmup":{"cold_ns":0.0,"calls":837,"tim'
    'es_ns":{"\\u0000mf":0},"steady":true,"seconds":0.0,"rule":"until steady: >= 6 calls and 0.05 s, last '
    '3 calls\' median not 5% below the 3 before; cap 1 s"},"calibration":{"number":91,"overhead_ns":0.0,"r'
    'esolution_ns":500.0,"per_call_estimate_ns":0.0,"overhead_share":0.001,"reason":"smallest count with '
    'overhead and resolution each under 0.10% of a sample"},"stop":{"reason":"precision","target_met":tru'
    'e,"precision":0.01,"seconds":0.0},"options":{"precision":0.01,"budget":5.0,"min_time":0.2,"min_sampl'
    'es":10,"max_samples":null,"warmup":null,"trials":null,"number":null,"warmup_min_time":0.05,"warmup_m'
    'ax_time":1.0,"cold_cache":false,"cuda_graph":false,"discard_preempted":true,"stop_early":true,"repea'
    'ts":null,"auto_device":"device","auto_device_seen":["cuda"]},"env":{"device":"cuda:0","device_type":'
    '"cuda","device_name":"Simulated GPU","torch_version":"2.13.0+cpu","cuda_version":null,"cuda_driver_v'
    'ersion":null,"cpu_model":"AMD EPYC","cpu_count":2,"torch_num_threads":2,"python_version":"3.11.7","p'
    'latform":"Linux-6.18.44-fc-v669-x86_64-with-glibc2.36","hostname":"vm","timestamp":"2026-01-01T00:00'
    ':00+00:00","measurefirst_version":"0.1.0","simulated":true,"gpu_capability":"9.0","gpu_memory_bytes"'
    ':85899345920,"gpu_l2_bytes":52428800},"stats_seconds":{"n":45,"median":0.0,"mean":0.0,"min":0.0,"max'
    '":0.0,"stdev":0.0,"q1":0.0,"q3":0.0,"iqr":0.0,"ci_low":0.0,"ci_high":0.0,"outliers":0,"ci_method":"o'
    'rder statistics","ci_bounded":true},"findings":[],"interval":{"kind":"run_to_run","ci_seconds":[0.0,'
    '0.0],"half_width":0.0,"precision_ci_seconds":[0.0,0.0],"precision_half_width":0.0},"run_to_run":{"cv'
    '":0.0,"source":"repeats","n":5,"factor":0.0,"medians_ns":[0.0,0.0,0.0,0.0,0.0],"floor":0.0,"floor_so'
    'urce":""},"repeats":[9,9,9,9,9]}{"schema_version":2,"kind":"measurement","label":"matmul","device":"'
    'cpu","timer":"wall","complete":true,"discard_preempted":true,"samples_ns":{"\\u0000mf":0},"numbers":{'
    '"\\u0000mf":0},"host_ns":null,"preempted":{"\\u0000mf":0},"synced_ns":null,"warmup":{"cold_ns":0.0,"ca'
    'lls":1715,"times_ns":{"\\u0000mf":0},"steady":true,"seconds":0.0,"rule":"until steady: >= 6 calls and'
    ' 0.05 s, last 3 calls\' median not 5% below the 3 before; cap 1 s"},"calibration":{"number":66,"overh'
    'ead_ns":0.0,"resolution_ns":1.0,"per_call_estimate_ns":0.0,"overhead_share":0.001,"reason":"smallest'
    ' count with overhead and resolution each under 0.10% of a sample"},"stop":{"reason":"precision","tar'
    'get_met":true,"precision":0.01,"seconds":0.0},"options":{"precision":0.01,"budget":5.0,"min_time":0.'
    '2,"min_samples":10,"max_samples":null,"warmup":null,"trials":null,"number":null,"warmup_min_time":0.'
    '05,"warmup_max_time":1.0,"cold_cache":false,"cuda_graph":false,"discard_preempted":true,"stop_early"'
    ':true,"repeats":null,"noise_profile":"vm/cpu/1threads","run_to_run_inflation":0.0},"env":{"device":"'
    'cpu","device_type":"cpu","device_name":"AMD EPYC","torch_version":"2.13.0+cpu","cuda_version":null,"'
    'cuda_driver_version":null,"cpu_model":"AMD EPYC","cpu_count":2,"torch_num_threads":1,"python_version'
    '":"3.11.7","platform":"Linux-6.18.44-fc-v669-x86_64-with-glibc2.36","hostname":"vm","timestamp":"202'
    '6-01-01T00:00:00+00:00","measurefirst_version":"0.1.0"},"stats_seconds":{"n":9767,"median":0.0,"mean'
    '":0.0,"min":0.0,"max":0.0,"stdev":0.0,"q1":0.0,"q3":0.0,"iqr":0.0,"ci_low":0.0,"ci_high":0.0,"outlie'
    'rs":3570,"ci_method":"order statistics","ci_bounded":true},"findings":[{"code":"unstable","value":0.'
    '0,"threshold":0.1,"severity":"warning","context":{}},{"code":"drift","value":0.0,"threshold":0.05,"s'
    'everity":"warning","context":{"first_ns":0.0,"second_ns":0.0}},{"code":"speed_modes","value":0.0,"th'
    'reshold":1.15,"severity":"warning","context":{"fast_ns":0.0,"slow_ns":0.0,"fast_fraction":0.0,"slow_'
    'fraction":0.0,"stretches":true}},{"code":"outliers","value":0.0,"threshold":0.2,"severity":"warning"'
    ',"context":{"outliers":3570,"n":9767}},{"code":"cold_start","value":0.0,"threshold":10.0,"severity":'
    '"info","context":{"cold_ns":0.0,"median_ns":0.0,"warmup_calls":1715}}],"interval":{"kind":"run_to_ru'
    'n","ci_seconds":[0.0,0.0],"half_width":0.0,"precision_ci_seconds":[0.0,0.0],"precision_half_width":0'
    '.0},"run_to_run":{"cv":0.0,"source":"repeats","n":15,"factor":0.0,"medians_ns":{"\\u0000mf":0},"floor'
    '":0.0,"floor_source":"profile"},"repeats":{"\\u0000mf":0}}'
)
