"""Walking a JSON document by paths, for the fuzz tests: every (path, value) in it, the container that
holds the value at a path (a path is a tuple of keys and list indices), and the mutations both fuzz tests make."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any


def paths(obj: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) in a JSON document, the document itself first (at the empty path)."""
    yield prefix, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def holder(doc: Any, path: tuple[Any, ...]) -> Any:
    """The dict or list that holds the value at ``path`` (a non-empty path): ``holder(doc, p)[p[-1]]``."""
    target = doc
    for p in path[:-1]:
        target = target[p]
    return target


def truncate_a_list(doc: Any, rng: random.Random) -> None:
    """Cut one non-empty list of the document, chosen at random, at a random length (none when it has none)."""
    lists = [p for p, v in paths(doc) if p and isinstance(v, list) and v]
    if lists:
        target = holder(doc, rng.choice(lists) + (0,))
        del target[rng.randrange(len(target)):]
