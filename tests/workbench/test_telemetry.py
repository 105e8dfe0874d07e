"""The telemetry ring keeps every tick's sample in order, bounded, with a clear reset rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luncosim_workbench.telemetry import TelemetryRing

KEYS = ("/A.x", "/A.y")


def fill(ring: TelemetryRing, ticks, keys=KEYS):
    for t in ticks:
        ring.append(t, t / 60.0, keys, np.array([t, -t], dtype=float))


def test_rows_come_back_in_tick_order_after_wrapping():
    ring = TelemetryRing(KEYS, capacity=5)
    fill(ring, range(1, 9))
    ticks, times, values = ring.read()
    assert ticks.tolist() == [4, 5, 6, 7, 8]
    assert times.tolist() == [t / 60.0 for t in range(4, 9)]
    assert values[:, 0].tolist() == [4, 5, 6, 7, 8]
    assert values[:, 1].tolist() == [-4, -5, -6, -7, -8]
    assert len(ring) == 5 and ring.total == 8 and ring.dropped == 3


def test_selected_columns_and_unknown_keys():
    ring = TelemetryRing(KEYS, capacity=10)
    fill(ring, range(1, 4))
    _t, _s, values = ring.read(["/A.y", "/Nope.z"])
    assert values[:, 0].tolist() == [-1, -2, -3]
    assert all(math.isnan(v) for v in values[:, 1])


def test_same_tick_replaces_and_earlier_tick_restarts():
    ring = TelemetryRing(KEYS, capacity=10)
    fill(ring, [1, 2, 3])
    ring.append(3, 3 / 60, KEYS, np.array([30.0, 0.0]))  # a paused sim republishing tick 3
    ticks, _t, values = ring.read()
    assert ticks.tolist() == [1, 2, 3] and values[-1, 0] == 30.0
    fill(ring, [0, 1])  # reset simulation
    assert ring.read()[0].tolist() == [0, 1]


def test_new_port_index_starts_a_new_buffer():
    ring = TelemetryRing(KEYS, capacity=10)
    fill(ring, [1, 2])
    ring.append(3, 0.05, ("/B.z",), np.array([7.0]))
    assert ring.keys == ("/B.z",)
    ticks, _t, values = ring.read()
    assert ticks.tolist() == [3] and values.tolist() == [[7.0]]


def test_since_time_keeps_the_window():
    ring = TelemetryRing(KEYS, capacity=100)
    fill(ring, range(1, 61))
    ticks, times, _v = ring.read(since_time=0.5)
    assert ticks[0] == 30 and times[0] >= 0.5 and len(ticks) == 31


def test_csv_has_every_sample_and_empty_cells_for_pending(tmp_path):
    ring = TelemetryRing(KEYS, capacity=10)
    fill(ring, [1, 2])
    ring.append(3, 0.05, KEYS, np.array([np.nan, 1.5]))
    text = ring.to_csv(tmp_path / "t.csv").read_text().splitlines()
    assert text[0] == "tick,time,/A.x,/A.y"
    assert text[1].startswith("1,") and text[1].endswith(",1.0,-1.0")
    assert text[3] == "3,0.05,,1.5"


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity"):
        TelemetryRing(KEYS, capacity=0)


def frame_rows(ticks):
    ticks = np.asarray(list(ticks), dtype=np.int64)
    return ticks, ticks / 60.0, np.stack([ticks, -ticks], axis=1).astype(float)


def test_a_frame_of_rows_equals_the_same_rows_appended_one_by_one():
    one, batch = TelemetryRing(KEYS, capacity=5), TelemetryRing(KEYS, capacity=5)
    fill(one, range(1, 13))
    batch.extend(*frame_rows(range(1, 4))[:2], KEYS, frame_rows(range(1, 4))[2])
    batch.extend(*frame_rows(range(4, 13))[:2], KEYS, frame_rows(range(4, 13))[2])  # more rows than the ring holds
    for a, b in zip(one.read(), batch.read(), strict=True):
        assert a.tolist() == b.tolist()
    assert (batch.total, batch.dropped) == (one.total, one.dropped) == (12, 7)


def test_a_frame_that_goes_back_in_time_resets_like_single_rows():
    ring = TelemetryRing(KEYS, capacity=10)
    ring.extend(*frame_rows(range(1, 6))[:2], KEYS, frame_rows(range(1, 6))[2])
    ticks, times, values = frame_rows([5, 1, 2])  # the same tick again, then a reset simulation
    ring.extend(ticks, times, KEYS, values)
    assert ring.read()[0].tolist() == [1, 2]
