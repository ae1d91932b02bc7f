"""Message sizes and bandwidths exactly as nccl-tests defines them (``doc/PERFORMANCE.md``).

Pure arithmetic, no torch: unit-tested on literal numbers.

* **size** is the total buffer of the operation in bytes, as nccl-tests prints it: the buffer every rank
  holds in all_reduce and broadcast, the *gathered* (output) buffer of all_gather, the *input* buffer of
  reduce_scatter, the whole send buffer of all_to_all (``size / n`` goes to each peer), the message of
  send/recv. Sizes are rounded down to a whole number of elements, and for the ops that split the buffer
  across ranks to a multiple of ``n`` elements.
* **algorithm bandwidth** ``algbw = size / time``.
* **bus bandwidth** ``busbw = algbw * factor``, the factor that makes the figure comparable with the
  hardware's peak whatever the rank count ``n``: all_reduce ``2(n-1)/n``; all_gather, reduce_scatter and
  all_to_all ``(n-1)/n``; broadcast, reduce and send/recv ``1``.
"""

from __future__ import annotations

import re

#: the operations measurefirst's collectives benchmark knows, in its default order
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send_recv")

#: ops whose buffer is split in ``n`` equal chunks (the size is rounded to a multiple of n elements)
SPLIT_OPS = frozenset({"all_gather", "reduce_scatter", "all_to_all"})

_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2, "MIB": 1024**2,
          "G": 1024**3, "GB": 1024**3, "GIB": 1024**3}


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' bus-bandwidth factor for ``op`` on ``n`` ranks."""
    if n < 1:
        raise ValueError(f"the rank count must be at least 1; got {n}")
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n
    if op in ("broadcast", "reduce", "send_recv"):
        return 1.0
    raise ValueError(f"unknown collective {op!r}; choose from {', '.join(OPS + ('reduce',))}")


def elements(op: str, size_bytes: int, element_bytes: int, n: int) -> int:
    """Elements in the op's total buffer (nccl-tests' ``count``), rounded down as nccl-tests does."""
    count = size_bytes // element_bytes
    if op in SPLIT_OPS:
        count = count // n * n
    return count


def algbw(size_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth in bytes per second: ``size / time``."""
    return size_bytes / seconds if seconds > 0 else float("nan")


def busbw(op: str, size_bytes: float, seconds: float, n: int) -> float:
    """Bus bandwidth in bytes per second: ``algbw * bus_factor(op, n)``."""
    return algbw(size_bytes, seconds) * bus_factor(op, n)


def parse_bytes(text: str) -> int:
    """``"4K"`` → 4096, ``"16M"`` → 16777216, ``"1G"``, ``"512"`` (binary units, as nccl-tests' -b/-e)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]i?B?|B)?\s*", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError(f"size {text!r} is not a byte count such as 1024, 4K, 16M or 1G")
    return int(m.group(1)) * _UNITS[(m.group(2) or "").upper()]


def parse_byte_sizes(text: str) -> list[int]:
    """``"1K,4K,...,16M"``: byte counts with K/M/G suffixes, expanded like ``--sizes`` of ``sweep``
    (a geometric or arithmetic ``...`` progression, see :func:`measurefirst.tools.sweep.parse_sizes`)."""
    from .sizes import parse_sizes

    items = [p.strip() for p in text.split(",")]
    plain = [p if p in ("...", "…", "") else str(parse_bytes(p)) for p in items]
    return parse_sizes(",".join(plain))


def human_bytes(n: int) -> str:
    for unit, scale in (("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)
