"""Each node's share of the matches on to sweep for orphans (app/cluster/sweep.py)."""

from __future__ import annotations

import pytest

from app.cluster.sweep import BUCKETS, SWEEPERS, bucket, by_bucket, share


def sweepers(nodes: list[str]) -> dict[int, set[str]]:
    """Who sweeps each bucket when every node knows ``nodes``."""
    found: dict[int, set[str]] = {number: set() for number in range(BUCKETS)}
    for node in nodes:
        for number in share(node, nodes):
            found[number].add(node)
    return found


@pytest.mark.parametrize("count", [1, 2, 3, 7, 20])
def test_every_bucket_is_swept_by_two_nodes_and_the_work_is_shared(count: int) -> None:
    nodes = [f"node-{i}" for i in range(count)]
    found = sweepers(nodes)
    assert {len(who) for who in found.values()} == {min(SWEEPERS, count)}
    if count >= 3:  # each node's share is near 2/N of the buckets
        for node in nodes:
            assert len(share(node, nodes)) < 2 * SWEEPERS * BUCKETS / count


def test_a_node_that_died_leaves_no_bucket_unswept() -> None:
    """Until its key expires the others still count the dead node: each of its buckets
    has another sweeper all the same."""
    nodes = [f"node-{i}" for i in range(5)]
    found = sweepers(nodes)
    assert all(who - {"node-2"} for who in found.values())


def test_a_node_joining_moves_few_buckets() -> None:
    nodes = [f"node-{i}" for i in range(4)]
    before, after = sweepers(nodes), sweepers([*nodes, "node-4"])
    moved = sum(len(before[n] - after[n]) for n in range(BUCKETS))
    assert moved == sum("node-4" in who for who in after.values())  # only to the new one


def test_a_node_not_listed_yet_counts_itself() -> None:
    assert share("new", []) == list(range(BUCKETS))


def test_buckets_are_fixed_by_the_id_on_every_node() -> None:
    """A stored format: CRC-32 of the id, never Python's per-process hash."""
    assert bucket("table-1") == 49 and bucket("abc") == 66
    grouped = by_bucket(["table-1", "abc", "table-1x"])
    assert grouped[49] == ["table-1"] and sum(map(len, grouped.values())) == 3
