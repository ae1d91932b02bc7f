"""Where the ranks of a group run: each rank's node record (``{"host": ..., "local_rank": ...}``, see
:func:`measurefirst.distributed.group.node_info`) and its short forms, read by the results that hold
nodes and by their renderers. Pure: no torch, nothing imported."""

from __future__ import annotations

from typing import Any, Sequence


def node_words(node: dict[str, Any] | None) -> str:
    """``host/local_rank`` (empty when unknown)."""
    return f"{node.get('host', '?')}/{node.get('local_rank', '?')}" if node else ""


def node_of(nodes: Sequence[dict[str, Any]], rank: int) -> str:
    """:func:`node_words` of ``rank`` in ``nodes`` (empty when the result kept no nodes)."""
    return node_words(nodes[rank]) if 0 <= rank < len(nodes) else ""


def node_layout(nodes: Sequence[dict[str, Any]]) -> str:
    """How the ranks sit on the nodes: ``"a×4, b×4"`` (hosts in the order of their first rank)."""
    hosts = [str(n.get("host", "?")) for n in nodes]
    return ", ".join(f"{h}×{hosts.count(h)}" for h in dict.fromkeys(hosts))
