"""``compare`` on every rank of a process group: each rank interleaves its own candidates (on its own
device), then every rank's comparison, with its paired ratios, is gathered and the group gets one verdict
per candidate (:class:`RankVerdict`): the verdict every rank reached, or ``"ranks disagree"`` with what
each rank said (a ``ranks_disagree`` finding names them).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..results.ranked import (DISAGREE as DISAGREE, SCHEMA_VERSION as SCHEMA_VERSION, RankComparison as RankComparison,
                              RankVerdict as RankVerdict, group_verdict as group_verdict)
from .group import run_on_ranks


def compare(candidates: Mapping[str, Callable[[], object]] | Sequence[tuple[str, Callable[[], object]]],
            **options: Any) -> RankComparison:
    """:func:`measurefirst.compare` on every rank of the initialized process group: a barrier, each rank
    interleaves its own candidates (``options`` as for ``measurefirst.compare``), then every rank's
    comparison is gathered on all ranks. Nothing is printed: render on rank 0.

    Raises :class:`~measurefirst.distributed.RankFailed` on every rank when a candidate raised on one
    rank, naming that rank."""
    from ..results.comparison import Comparison
    from ..tools.compare import compare as local_compare
    from .group import dist

    gathered = run_on_ranks("compare", lambda: local_compare(candidates, **options).to_dict())
    d = dist()
    return RankComparison(d.get_rank(), tuple(Comparison.from_dict(data) for data, _ in gathered),
                          str(d.get_backend()), tuple(node for _, node in gathered))
