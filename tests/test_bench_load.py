"""bench/load.py reads the server's histograms between two scrapes, one level at a time
where they are labelled by level (the bots' decisions)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from bench.load import counter, histogram_count, window_summary


def test_a_window_counts_only_what_it_saw_of_its_own_level() -> None:
    registry = CollectorRegistry()
    decisions = Histogram("decision_seconds", "", ["level"], buckets=(0.01, 0.5, 1),
                          registry=registry)
    decisions.labels("hard").observe(0.9)  # before the window
    before = generate_latest(registry).decode()
    decisions.labels("hard").observe(0.2)
    decisions.labels("hard").observe(0.4)
    decisions.labels("normal").observe(0.001)
    after = generate_latest(registry).decode()
    assert window_summary(before, after, "decision_seconds", "hard") == \
        "mean 300.00 ms, p99 <= 500 ms"
    assert window_summary(before, after, "decision_seconds", "normal") == \
        "mean 1.00 ms, p99 <= 10 ms"
    assert window_summary(before, after, "decision_seconds", "easy") == "none"


def test_a_histogram_without_labels() -> None:
    registry = CollectorRegistry()
    writes = Histogram("write_seconds", "", buckets=(0.001, 0.01), registry=registry)
    before = generate_latest(registry).decode()
    writes.observe(0.004)
    assert window_summary(before, generate_latest(registry).decode(), "write_seconds") == \
        "mean 4.00 ms, p99 <= 10 ms"


def test_actions_and_commits_are_read_from_two_scrapes() -> None:
    """What CPU per action and commits per action are divided by: a counter's value and a
    histogram's count (0 when a server older than the metric has none)."""
    registry = CollectorRegistry()
    actions = Counter("belote_actions", "", registry=registry)
    writes = Histogram("write_seconds", "", buckets=(0.001,), registry=registry)
    actions.inc(7)
    writes.observe(0.002)
    writes.observe(0.0005)
    scrape = generate_latest(registry).decode()
    assert counter(scrape, "belote_actions") == 7
    assert histogram_count(scrape, "write_seconds") == 2
    assert counter(scrape, "belote_missing") == 0 == histogram_count(scrape, "missing_seconds")
