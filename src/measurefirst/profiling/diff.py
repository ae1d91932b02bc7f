"""Side-by-side profiles of several implementations: what each launches, how long, how many bytes."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..results.profile_diff import (SCHEMA_VERSION as SCHEMA_VERSION, DiffRow as DiffRow, ProfileDiff as ProfileDiff,
                                    diff as diff)
from .capture import profile


def profile_compare(candidates: Mapping[str, Callable[[], object]], **options: Any) -> ProfileDiff:
    """Profile each labelled callable with :func:`~measurefirst.profiling.profile` and line them up."""
    if len(candidates) < 2:
        raise ValueError("profile_compare() needs at least two candidates, e.g. {'manual': f, 'fused': g}")
    return diff({label: profile(fn, label=label, **options) for label, fn in candidates.items()})
