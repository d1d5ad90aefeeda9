"""The matches on, kept in buckets, and each node's share of them to sweep for orphans.

Every node used to read every match on at each sweep, so the cluster's reads grew with
nodes x tables (one Redis would saturate at some 70-110 nodes: docs/benchmarks-cluster.md).
The ids are kept in :data:`BUCKETS` sets instead, a match's bucket fixed by its id, and
each bucket is swept by :data:`SWEEPERS` of the live nodes, picked by rendezvous hashing:
so each node reads about ``SWEEPERS / nodes`` of the matches, and a node that has just
died (still listed until its key expires) leaves no bucket unswept.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable

BUCKETS = 128  # a stored format: nodes of two versions must put a match in one bucket
SWEEPERS = 2  # nodes sweeping each bucket


def bucket(table_id: str) -> int:
    """The bucket of ``table_id``: the same on every node (CRC-32, not Python's hash)."""
    return zlib.crc32(table_id.encode()) % BUCKETS


def by_bucket(table_ids: Iterable[str]) -> dict[int, list[str]]:
    """``table_ids`` grouped by their bucket."""
    grouped: dict[int, list[str]] = defaultdict(list)
    for table_id in table_ids:
        grouped[bucket(table_id)].append(table_id)
    return grouped


def share(node_id: str, nodes: Iterable[str]) -> list[int]:
    """The buckets ``node_id`` sweeps among the live ``nodes`` (itself counted even when
    the list does not know it yet): those for which it is among the :data:`SWEEPERS`
    highest scores, so that a node joining or leaving moves few buckets."""
    everyone = sorted(set(nodes) | {node_id})
    mine = []
    for number in range(BUCKETS):
        ranked = sorted(everyone, key=lambda node: _score(node, number), reverse=True)
        if node_id in ranked[:SWEEPERS]:
            mine.append(number)
    return mine


def _score(node_id: str, number: int) -> int:
    return zlib.crc32(f"{node_id}/{number}".encode())
