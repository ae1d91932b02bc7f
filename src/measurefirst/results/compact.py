"""A result's stored form, compact and lossless: its JSON with every long list of numbers taken out
as a typed array, all of it compressed.

A list of 16 or more numbers of one type (whole numbers; or floats, all finite) becomes an array: whole
numbers (and floats that are whole numbers, such as the ``106689.0`` of ``samples_ns``) as 64-bit
integers less their minimum, other floats as their IEEE-754 doubles, each with a type tag so that
``1`` and ``1.0`` come back as they were; the bytes of each array are split into byte planes (all
first bytes, then all second bytes...: the high bytes of similar numbers are alike and compress away).
:func:`unpack` gives back exactly the dictionary :func:`pack` was given (same keys, same order,
same types, same values). Standard library only (``array``, ``zlib``): reading a run needs no numpy.

The format: ``MFZ1`` then zlib of: the length of the JSON text (4 bytes, little-endian), the JSON text
(the arrays replaced by ``{"\\u0000mf": index}``), then each array: its tag (``i`` whole numbers,
``f`` floats that are whole, ``d`` other floats), its length (4 bytes), for ``i`` and ``f`` its
minimum (8 bytes, signed) and its byte planes.
"""

from __future__ import annotations

import array
import json
import math
import struct
import zlib
from typing import Any

MAGIC = b"MFZ1"
#: Lists shorter than this stay in the JSON text.
MIN_ARRAY = 16
_SLOT = "\x00mf"
_LIMIT = 2**62  # whole numbers beyond this stay in the JSON (their differences must fit 64 bits)


def is_packed(data: Any) -> bool:
    return isinstance(data, bytes) and data[:4] == MAGIC


def _tag(values: list[Any]) -> str | None:
    if len(values) < MIN_ARRAY:
        return None
    if all(type(x) is int for x in values):
        return "i" if all(-_LIMIT < x < _LIMIT for x in values) else None
    if not all(type(x) is float and math.isfinite(x) for x in values):
        return None
    if all(x.is_integer() and abs(x) < 2**53 and (x != 0 or math.copysign(1.0, x) > 0) for x in values):
        return "f"
    return "d"


def _planes(raw: bytes, width: int = 8) -> bytes:
    return b"".join(raw[i::width] for i in range(width))


def _unplanes(planes: bytes, n: int, width: int = 8) -> bytes:
    raw = bytearray(n * width)
    for i in range(width):
        raw[i::width] = planes[i * n:(i + 1) * n]
    return bytes(raw)


def _encode(values: list[Any], tag: str) -> bytes:
    if tag == "d":
        return b"d" + struct.pack("<I", len(values)) + _planes(array.array("d", values).tobytes())
    ints = [int(x) for x in values]
    low = min(ints)
    return (tag.encode() + struct.pack("<Iq", len(ints), low)
            + _planes(array.array("Q", [x - low for x in ints]).tobytes()))


def pack(doc: dict[str, Any]) -> bytes:
    """``doc`` (a result's parsed JSON) in its compact stored form."""
    arrays: list[bytes] = []

    def strip(o: Any) -> Any:
        if isinstance(o, dict):
            if _SLOT in o:
                raise ValueError("a result with the key \\x00mf cannot be packed")
            return {k: strip(v) for k, v in o.items()}
        if isinstance(o, list):
            tag = _tag(o)
            if tag is None:
                return [strip(v) for v in o]
            arrays.append(_encode(o, tag))
            return {_SLOT: len(arrays) - 1}
        return o

    text = json.dumps(strip(doc), separators=(",", ":"), allow_nan=False).encode("utf-8")
    return MAGIC + zlib.compress(struct.pack("<I", len(text)) + text + b"".join(arrays), 9)


def unpack(data: bytes) -> Any:
    """The dictionary :func:`pack` was given; ``ValueError`` for bytes it did not write."""
    try:
        body = zlib.decompress(data[4:])
        (n,) = struct.unpack_from("<I", body)
        doc = json.loads(body[4:4 + n].decode("utf-8"))
        arrays: list[list[Any]] = []
        pos = 4 + n
        while pos < len(body):
            tag = chr(body[pos])
            (count,) = struct.unpack_from("<I", body, pos + 1)
            pos += 5
            if tag == "d":
                vals = array.array("d")
                vals.frombytes(_unplanes(body[pos:pos + 8 * count], count))
                arrays.append(vals.tolist())
            else:
                (low,) = struct.unpack_from("<q", body, pos)
                pos += 8
                offsets = array.array("Q")
                offsets.frombytes(_unplanes(body[pos:pos + 8 * count], count))
                arrays.append([float(x + low) for x in offsets] if tag == "f" else [x + low for x in offsets])
            pos += 8 * count
    except (zlib.error, struct.error, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"not a measurefirst stored result: {str(exc).splitlines()[0] if str(exc) else exc!r}") \
            from None

    def fill(o: Any) -> Any:
        if isinstance(o, dict):
            if len(o) == 1 and _SLOT in o:
                return arrays[o[_SLOT]]
            return {k: fill(v) for k, v in o.items()}
        if isinstance(o, list):
            return [fill(v) for v in o]
        return o

    try:
        return fill(doc)
    except (IndexError, TypeError) as exc:
        raise ValueError(f"not a measurefirst stored result: {exc}") from None
