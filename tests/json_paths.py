"""Walking a JSON document by paths, for the fuzz tests: every (path, value) in it, and the container that
holds the value at a path (a path is a tuple of keys and list indices)."""

from __future__ import annotations

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
