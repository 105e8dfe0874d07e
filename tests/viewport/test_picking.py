"""Ray picking against tessellated triangles: the pure ``pick`` function."""

from __future__ import annotations

import numpy as np
import pytest

from luncosim_workbench.viewport import SceneModel, pick, pick_hit

ROW = """
def Cube "Near" { double size = 1
    double3 xformOp:translate = (0, -3, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
def Sphere "Far" { double radius = 1
    double3 xformOp:translate = (0, 3, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
def Xform "Body" ( prepend apiSchemas = ["PhysicsRigidBodyAPI"] ) {
    double3 xformOp:translate = (5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    def Cylinder "Wheel" { double radius = 0.5
        double height = 0.2
        uniform token axis = "Y" } }
def Cube "Guide" { double size = 1
    uniform token purpose = "guide"
    double3 xformOp:translate = (-5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"] }
"""


@pytest.fixture
def model(stage_from):
    return SceneModel(stage_from(ROW))


def test_nearest_prim_along_the_ray_wins(model):
    assert pick(model, (0, -10, 0), (0, 1, 0)) == "/Near"
    assert pick(model, (0, 10, 0), (0, -1, 0)) == "/Far"
    hit = pick_hit(model, (0, -10, 0), (0, 2, 0))
    assert np.isclose(hit.distance, 6.5) and np.allclose(hit.point, (0, -3.5, 0))


def test_miss_returns_none(model):
    assert pick(model, (0, -10, 5), (0, 1, 0)) is None
    assert pick(model, (0, -10, 0), (0, -1, 0)) is None  # everything is behind the ray


def test_picking_follows_body_poses(model):
    assert pick(model, (5, -10, 0), (0, 1, 0)) == "/Body/Wheel"
    model.set_body_poses(["/Body"], [[5, 0, 4]], [[1, 0, 0, 0]])
    assert pick(model, (5, -10, 0), (0, 1, 0)) is None
    assert pick(model, (5, -10, 4), (0, 1, 0)) == "/Body/Wheel"


def test_hidden_purposes_are_not_pickable(model):
    assert pick(model, (-5, -10, 0), (0, 1, 0)) is None
    model.set_purpose_visible("guide", True)
    assert pick(model, (-5, -10, 0), (0, 1, 0)) == "/Guide"


def test_oblique_ray_hits_a_round_surface_only_inside_its_silhouette(model):
    # a ray grazing just inside the sphere's radius hits, just outside misses
    assert pick(model, (0.95, 10, 0), (0, -1, 0)) == "/Far"
    assert pick(model, (1.05, 10, 0), (0, -1, 0)) is None


def test_zero_direction_is_rejected(model):
    with pytest.raises(ValueError, match="non-zero"):
        pick(model, (0, 0, 0), (0, 0, 0))
