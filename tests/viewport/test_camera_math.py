"""Turntable camera maths: named views, look-at conversion and framing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luncosim_workbench.viewport.model import camera_math as cm


@pytest.mark.parametrize("eye", [(3, -4, 2), (-5, 1, 0.5), (0.1, 0.2, 9)])
def test_look_at_round_trips_the_eye(eye):
    pose = cm.look_at(eye, (1, 1, 0))
    assert np.allclose(pose.eye(), eye)


def test_named_views_place_the_eye_on_the_expected_side():
    for name, direction in (
        ("front", (0, -1, 0)),
        ("right", (1, 0, 0)),
        ("top", (0, 0, 1)),
        ("iso", (1, -1, 1)),
    ):
        az, el = cm.named_view(name)
        eye = cm.TurntablePose((0, 0, 0), az, el, 1.0).eye()
        d = np.asarray(direction, float) / np.linalg.norm(direction)
        assert np.allclose(eye, d, atol=1e-9), name
    with pytest.raises(ValueError, match="unknown view 'diagonal'"):
        cm.named_view("diagonal")


def test_up_other_than_z_is_refused():
    with pytest.raises(ValueError, match="must point along \\+Z"):
        cm.look_at((1, 0, 0), (0, 0, 0), up=(1, 0, 0))
    with pytest.raises(ValueError, match="coincide"):
        cm.look_at((1, 0, 0), (1, 0, 0))


def test_fit_keeps_the_bounding_sphere_inside_the_field_of_view():
    lo, hi = np.array([-1.0, -2.0, 0.0]), np.array([3.0, 2.0, 1.0])
    for aspect in (0.5, 1.0, 2.0):
        pose = cm.fit_pose(lo, hi, 30.0, 20.0, 45.0, aspect)
        radius = 0.5 * np.linalg.norm(hi - lo)
        half = math.atan(math.tan(math.radians(22.5)) * min(1.0, aspect))
        assert radius / pose.distance <= math.sin(half) + 1e-12
        assert np.allclose(pose.center, (lo + hi) / 2)
