"""The command line's argument types: every number, fraction, count, path, store and list is checked at the
boundary, and a wrong one is refused with one line saying what was expected."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Callable

from ..results import defaults as D


def _number(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
    return value


def _fraction(text: str) -> float:
    """``0.05`` or ``5%``: finite, not negative. A bare number above 1 is refused as ambiguous
    (``5`` would read as 500%)."""
    t = text.strip()
    try:
        value = float(t[:-1]) / 100.0 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.01 or 1%, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite fraction such as 0.05 or 5%; got {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative; got {text!r}: write {t.lstrip('-')}")
    if not t.endswith("%") and value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is ambiguous: write {t}% for {t} percent, "
                                         f"or a fraction such as 0.05")
    return value


def _seconds(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds; got {text!r}")
    return value


def _seconds_or_zero(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or a positive number of seconds; got {text!r}")
    return value


def _at_least(minimum: int, most: int = D.MAX_COUNT, why: str = "") -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not minimum <= value <= most:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum} (at most {most}{why}); got {text!r}")
        return value

    convert.__name__ = f"integer >= {minimum}"
    return convert


def _path(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    return Path(text)


def _store(text: str) -> Path | str:
    """A results store: a file, or a PostgreSQL URL (postgresql://...), kept as typed; any other URL is
    refused (:func:`measurefirst.results.store.location`)."""
    from ..results.store import StoreError, location

    _path(text)  # not empty
    try:
        return location(text)
    except StoreError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _dtype_or_none(text: str, allowed: tuple[str, ...]) -> str | None:
    from ..measure.dtypes import dtype_name

    try:
        return dtype_name(text, allowed)
    except ValueError:
        return None


def _comma_list(choices: tuple[str, ...] | None = None, pattern: re.Pattern[str] | None = None,
                words: str = "", dtypes: bool = False) -> Callable[[str], list[str]]:
    """A comma list of distinct items, each one of ``choices`` (or matching ``pattern``); with
    ``dtypes``, any spelling of a dtype (``bf16``, ``bfloat16``) stands for its short name."""

    def convert(text: str) -> list[str]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        if dtypes and choices is not None:
            items = [_dtype_or_none(x, choices) or x for x in items]
        bad = [x for x in items if (choices is not None and x not in choices) or (pattern and not pattern.match(x))]
        if not items or bad:
            raise argparse.ArgumentTypeError(f"takes a comma list of {words}; got {text!r}")
        twice = sorted(x for x in items if items.count(x) > 1)
        if twice:
            raise argparse.ArgumentTypeError(f"lists {twice[0]!r} twice")
        return items

    return convert


def _step_flops(text: str) -> float | str:
    """count, 6N, or a positive number of FLOPs per step."""
    if text in ("count", "6N"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be count, 6N or a number; got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of FLOPs per step; got {text!r}")
    return value


def _save_name(text: str) -> str:
    """A ``--save`` NAME (empty: each result's own label): never one that reads as a reference to saved runs
    (``@NAME``, ``#ID``; issue 38: `--save @x` saved a run that `compare @x` then looked up as `x`)."""
    if text.strip().startswith(("@", "#")):
        raise argparse.ArgumentTypeError(f"a NAME cannot start with {text.strip()[0]!r}: @NAME and #ID are how saved "
                                         f"runs are referred to; give a name such as base")
    return text


def _label(text: str) -> str:
    """A ``--label``: some text (an empty one was shown as the statement's internal name)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("a label needs some text, such as --label fused")
    return text


class GivenDefault(float):
    """A number that is an option's default (not typed by the user): an option at its default is let through
    where one typed would be refused (``--min-time`` longer than ``--budget``)."""


class Once(argparse.Action):
    """An option that may be given once: a second one is refused, not let win over the first without a word
    (issue 38: ``runs prune --keep-last 1 --name a --name b`` pruned among ``b`` only)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        seen: set[str] = getattr(namespace, "_given_once", set())
        if self.dest in seen:
            raise argparse.ArgumentError(self, f"given twice; give {option_string} once (it selects one value)")
        namespace._given_once = seen | {self.dest}
        setattr(namespace, self.dest, values)


def _history_name(text: str) -> str:
    """``history``'s NAME: a name, not a reference (issue 38: `history '#1'` looked for runs named ``#1``)."""
    ref = text.strip()
    if ref.startswith("#") or (ref.startswith("@") and len(ref) > 1):
        raise argparse.ArgumentTypeError(
            f"history takes a NAME, such as {ref.lstrip('@#').split('~')[0] or 'matmul'}; "
            + (f"a run by its id is `measurefirst runs show {ref.lstrip('#')}`" if ref.startswith("#")
               else "without the @ of a reference"))
    return text
