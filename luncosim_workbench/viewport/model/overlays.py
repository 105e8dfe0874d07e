"""Debug overlay geometry built from physics ``DebugInfo`` records (pure numpy).

Each builder returns plain arrays in the view frame (metres, +Z up): line segments as vertex
pairs with one RGBA per vertex, markers as points with colours and pixel sizes, labels as
anchored strings. Overlay names: joints, colliders, contacts, com, escaped, labels, mission
(the running mission's costmap, path, footprints and fluid, from a plain ``MissionDrawing``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .transforms import apply, quat_to_matrix

if TYPE_CHECKING:  # the records are read by attribute; importing the physics package is not needed
    from luncosim_core.physics.debug import ColliderInfo, DebugInfo, JointFrameInfo

OVERLAY_NAMES = ("joints", "colliders", "contacts", "com", "escaped", "labels", "mission")

AXIS_RGB = np.array(
    [[0.95, 0.2, 0.2, 1.0], [0.2, 0.9, 0.25, 1.0], [0.25, 0.45, 1.0, 1.0]], np.float32
)
JOINT_OK = (0.2, 0.95, 0.3, 1.0)
JOINT_WARN = (1.0, 0.8, 0.1, 1.0)
JOINT_BAD = (1.0, 0.1, 0.1, 1.0)
COLLIDER_DYNAMIC = (1.0, 0.55, 0.1, 1.0)
COLLIDER_STATIC = (0.2, 0.85, 0.95, 1.0)
CONTACT_COLOR = (1.0, 0.2, 0.9, 1.0)
COM_COLOR = (1.0, 0.95, 0.1, 1.0)
ESCAPED_COLOR = (1.0, 0.05, 0.05, 1.0)
LETHAL_RGBA = (230, 40, 40, 170)  # costmap cells an obstacle touches
PATH_COLOR = (1.0, 0.85, 0.1, 1.0)
FOOTPRINT_COLOR = (0.1, 0.95, 0.95, 1.0)  # cyan, as in the debug PNG
FLUID_COLOR = (0.3, 0.6, 1.0, 0.95)

# Violation thresholds for the joint colour: below WARN is fine, above BAD is broken.
WARN_M, BAD_M = 1e-3, 1e-2
WARN_RAD, BAD_RAD = 1e-2, 1e-1


@dataclass(slots=True)
class Lines:
    """Segments: ``positions`` holds 2*K points (pairs), ``colors`` one RGBA each."""

    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))

    @property
    def n_segments(self) -> int:
        return int(self.positions.shape[0] // 2)

    def add(self, a: np.ndarray, b: np.ndarray, color) -> None:
        a = np.asarray(a, np.float64).reshape(-1, 3)
        b = np.asarray(b, np.float64).reshape(-1, 3)
        pts = np.stack([a, b], axis=1).reshape(-1, 3).astype(np.float32)
        col = np.broadcast_to(np.asarray(color, np.float32), (pts.shape[0], 4))
        self.positions = np.concatenate([self.positions, pts])
        self.colors = np.concatenate([self.colors, col])


@dataclass(slots=True)
class Markers:
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def add(self, p, color, size: float) -> None:
        p = np.asarray(p, np.float32).reshape(-1, 3)
        self.positions = np.concatenate([self.positions, p])
        self.colors = np.concatenate(
            [self.colors, np.tile(np.asarray(color, np.float32), (len(p), 1))]
        )
        self.sizes = np.concatenate([self.sizes, np.full(len(p), size, np.float32)])


@dataclass(slots=True)
class Labels:
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    texts: tuple[str, ...] = ()


def joint_color(j: JointFrameInfo) -> tuple[float, float, float, float]:
    if j.violation_m >= BAD_M or j.violation_rad >= BAD_RAD:
        return JOINT_BAD
    if j.violation_m >= WARN_M or j.violation_rad >= WARN_RAD:
        return JOINT_WARN
    return JOINT_OK


def _view_rot(stage_to_view: np.ndarray, quat) -> np.ndarray:
    """World rotation of a stage-frame quaternion, as seen in the view frame (unit columns)."""
    lin = stage_to_view[:3, :3]
    r = lin @ quat_to_matrix(np.asarray(quat, np.float64))
    return r / np.linalg.norm(r, axis=0, keepdims=True)


def joint_lines(joints: tuple[JointFrameInfo, ...], s2v: np.ndarray, size: float) -> Lines:
    """RGB triads at both joint frames; the joint axis and the frame0-frame1 gap in the
    joint's violation colour."""
    out = Lines()
    for j in joints:
        c = joint_color(j)
        origins = []
        for pos, rot in ((j.frame0_pos, j.frame0_rot), (j.frame1_pos, j.frame1_rot)):
            o = apply(s2v, np.asarray(pos))[0]
            r = _view_rot(s2v, rot)
            origins.append(o)
            for k in range(3):
                out.add(o, o + r[:, k] * size, AXIS_RGB[k])
        axis = s2v[:3, :3] @ np.asarray(j.axis, np.float64)
        if np.linalg.norm(axis) > 0:
            axis = axis / np.linalg.norm(axis)
            out.add(origins[0] - axis * size * 1.5, origins[0] + axis * size * 1.5, c)
        out.add(origins[0], origins[1], c)
        if not np.linalg.norm(axis) > 0:
            # no axis to draw: a short vertical tick marks the joint in its colour
            out.add(origins[0], origins[0] + np.array([0.0, 0.0, size * 0.5]), c)
    return out


def _circle(radius: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0.0, 2.0 * np.pi, n + 1)
    return np.stack([radius * np.cos(t), radius * np.sin(t), np.zeros_like(t)], -1)


def _polyline_segments(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return pts[:-1], pts[1:]


_AXIS_PERM = {
    "Z": np.eye(3),
    "X": np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]]),
    "Y": np.array([[0.0, 1, 0], [0, 0, 1], [1, 0, 0]]),
}


def _box_segments(d: dict, seg) -> None:
    h = np.asarray(d["half_extents"], np.float64)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    for i in range(8):
        for j in range(i + 1, 8):
            if np.count_nonzero(corners[i] != corners[j]) == 1:
                seg(corners[i], corners[j])


def _sphere_segments(d: dict, seg) -> None:
    ring = _circle(float(d["radius"]))
    for perm in (_AXIS_PERM["Z"], _AXIS_PERM["X"], _AXIS_PERM["Y"]):
        seg(*_polyline_segments(ring @ perm.T))


def _round_segments(shape: str, d: dict, seg) -> None:
    """Cylinders, capsules and cones along their ``axis``: end rings, side lines, cap arcs."""
    r, h = float(d["radius"]), float(d["height"])
    perm = _AXIS_PERM[str(d.get("axis", "Z"))]
    ring = _circle(r)
    lo = ring + [0, 0, -h / 2]
    hi = ring + [0, 0, h / 2]
    seg(*_polyline_segments(lo @ perm.T))
    if shape == "cone":
        for k in range(0, 24, 6):
            seg(lo[k] @ perm.T, np.array([0, 0, h / 2]) @ perm.T)
        return
    seg(*_polyline_segments(hi @ perm.T))
    for k in range(0, 24, 6):
        seg(lo[k] @ perm.T, hi[k] @ perm.T)
    if shape == "capsule":
        t = np.linspace(0.0, np.pi, 13)
        for ang in (0.0, np.pi / 2):
            ca, sa = np.cos(ang), np.sin(ang)
            for sign in (1.0, -1.0):
                arc = np.stack([r * np.cos(t) * ca, r * np.cos(t) * sa, sign * (h / 2 + r * np.sin(t))], -1)
                seg(*_polyline_segments(arc @ perm.T))


def _mesh_segments(d: dict, seg) -> None:
    v = np.asarray(d.get("vertices", ()), np.float64).reshape(-1, 3)
    idx = d.get("indices")
    if idx is not None and len(idx):
        tri = np.asarray(idx, np.int64).reshape(-1, 3)
        e = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
        e = np.unique(np.sort(e, axis=1), axis=0)
        seg(v[e[:, 0]], v[e[:, 1]])
    elif len(v):
        # hull faces are not given: draw a star from the centre to each vertex
        centre = v.mean(axis=0)
        seg(np.repeat(centre[None], len(v), 0), v)


def collider_local_segments(c: ColliderInfo) -> tuple[np.ndarray, np.ndarray]:
    """Wireframe of one collider in its own frame (world units), as segment endpoints."""
    a_list: list[np.ndarray] = []
    b_list: list[np.ndarray] = []

    def seg(a, b):
        a_list.append(np.asarray(a, np.float64).reshape(-1, 3))
        b_list.append(np.asarray(b, np.float64).reshape(-1, 3))

    if c.shape == "box":
        _box_segments(c.dims, seg)
    elif c.shape == "sphere":
        _sphere_segments(c.dims, seg)
    elif c.shape in ("cylinder", "capsule", "cone"):
        _round_segments(c.shape, c.dims, seg)
    elif c.shape in ("convex", "trimesh"):
        _mesh_segments(c.dims, seg)
    else:
        raise ValueError(f"collider {c.prim_path}: unknown shape {c.shape!r}")
    if not a_list:
        return np.zeros((0, 3)), np.zeros((0, 3))
    return np.concatenate(a_list), np.concatenate(b_list)


def collider_lines(colliders: tuple[ColliderInfo, ...], s2v: np.ndarray) -> Lines:
    out = Lines()
    for c in colliders:
        a, b = collider_local_segments(c)
        if not len(a):
            continue
        world = np.eye(4)
        world[:3, :3] = quat_to_matrix(np.asarray(c.world_rot, np.float64))
        world[:3, 3] = c.world_pos
        m = s2v @ world
        out.add(apply(m, a), apply(m, b), COLLIDER_DYNAMIC if c.body_path else COLLIDER_STATIC)
    return out


def contact_geometry(info: DebugInfo, s2v: np.ndarray, normal_len: float) -> tuple[Lines, Markers]:
    lines, marks = Lines(), Markers()
    for c in info.contacts:
        p = apply(s2v, np.asarray(c.position))[0]
        n = s2v[:3, :3] @ np.asarray(c.normal, np.float64)
        n = n / max(np.linalg.norm(n), 1e-300)
        lines.add(p, p + n * normal_len, CONTACT_COLOR)
        marks.add(p, CONTACT_COLOR, 8.0)
    return lines, marks


def com_geometry(info: DebugInfo, s2v: np.ndarray, size: float) -> tuple[Lines, Markers]:
    lines, marks = Lines(), Markers()
    for body in sorted(info.centers_of_mass):
        p = apply(s2v, np.asarray(info.centers_of_mass[body]))[0]
        for k in range(3):
            e = np.zeros(3)
            e[k] = size
            lines.add(p - e, p + e, COM_COLOR)
        marks.add(p, COM_COLOR, 10.0)
    return lines, marks


def escaped_geometry(
    info: DebugInfo, s2v: np.ndarray, body_position: np.ndarray | None, size: float
) -> tuple[Lines, Markers]:
    """A large red marker and a vertical beacon at the escaped body (if any)."""
    lines, marks = Lines(), Markers()
    if info.escaped_body is None:
        return lines, marks
    p = body_position
    if p is None and info.escaped_body in info.centers_of_mass:
        p = apply(s2v, np.asarray(info.centers_of_mass[info.escaped_body]))[0]
    if p is None:
        return lines, marks
    marks.add(p, ESCAPED_COLOR, 22.0)
    lines.add(p, p + np.array([0.0, 0.0, size * 4]), ESCAPED_COLOR)
    return lines, marks


def label_geometry(labels: Mapping[str, str], anchor_of) -> Labels:
    """Labels anchored above each prim (``anchor_of(path)`` -> view point or None)."""
    pts, texts = [], []
    for path in sorted(labels):
        a = anchor_of(path)
        if a is not None:
            pts.append(a)
            texts.append(str(labels[path]))
    if not pts:
        return Labels()
    return Labels(np.asarray(pts, np.float32).reshape(-1, 3), tuple(texts))


@dataclass(slots=True)
class GroundImage:
    """An RGBA image (rows, cols, 4 uint8) on a plane: ``transform`` maps image pixel (col, row,
    0, 1) to the view frame (a 4x4, column vector convention)."""

    rgba: np.ndarray
    transform: np.ndarray


def costmap_image(lethal: np.ndarray, corners: np.ndarray, to_view: np.ndarray) -> GroundImage:
    """Lethal cells red and translucent, free cells clear; pixel (c, r) sits on cell (r, c)."""
    rows, cols = lethal.shape
    rgba = np.zeros((rows, cols, 4), np.uint8)
    rgba[lethal] = LETHAL_RGBA
    o, ex, ey = (apply(to_view, np.asarray(c, np.float64))[0] for c in corners)
    m = np.eye(4)
    m[:3, 0] = (ex - o) / max(cols, 1)
    m[:3, 1] = (ey - o) / max(rows, 1)
    m[:3, 2] = np.cross(m[:3, 0], m[:3, 1])
    m[:3, 3] = o
    return GroundImage(rgba, m)


def mission_geometry(drawing, s2v: np.ndarray, meters_per_unit: float = 1.0, with_image: bool = True
                     ) -> tuple[Lines | None, Markers | None, GroundImage | None]:
    """Path and footprint lines, fluid markers and the costmap image of a ``MissionDrawing``
    (world metres, stage axes) in the view frame."""
    if drawing is None:
        return None, None, None
    to_view = s2v @ np.diag([1.0 / meters_per_unit] * 3 + [1.0])
    lines, marks = Lines(), Markers()
    path = np.asarray(drawing.path, np.float64).reshape(-1, 3)
    if len(path) > 1:
        v = apply(to_view, path)
        lines.add(v[:-1], v[1:], PATH_COLOR)
    fp = np.asarray(drawing.footprints, np.float64).reshape(-1, 3)
    if len(fp):
        v = apply(to_view, fp)
        lines.add(v[0::2], v[1::2], FOOTPRINT_COLOR)
    particles = np.asarray(drawing.particles, np.float64).reshape(-1, 3)
    if len(particles):
        marks.add(apply(to_view, particles), FLUID_COLOR, 5.0)
    image = None
    if with_image and drawing.lethal is not None and drawing.corners is not None and np.asarray(drawing.lethal).size:
        image = costmap_image(np.asarray(drawing.lethal, bool), np.asarray(drawing.corners), to_view)
    return lines, marks, image
