"""The transform manipulator (gizmo) as pure math: handles, hit tests and drags (numpy, pxr).

A manipulator sits on one Xformable prim. Its handles are the three axes of the prim's parent
frame (``world`` space) or of the prim itself (``local``), in the view frame (metres, +Z up). A
drag along an axis moves the prim's ``xformOp:translate`` by the closest approach of the mouse
ray to that axis line; a drag around an axis ring turns the matching ``xformOp:rotateXYZ``
component by the angle swept in the ring's plane; a drag of a scale handle (an axis ending in a
square, always on the prim's own axes) multiplies the matching ``xformOp:scale`` component by
how far along the axis the cursor went against where it was pressed. Snapping rounds the move
to ``grid_step`` metres, the turn to ``angle_step`` degrees and the scale to ``scale_step``
(never below one step). The result is the new op value in the prim's own (parent) frame, ready
for one ``SetTransform`` op when the drag ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from pxr import Gf, Usd, UsdGeom

MODES = ("translate", "rotate", "scale")
SPACES = ("world", "local")
HIT_PX = 9.0  # how close (pixels) the cursor must be to a handle
SIZE_PX = 90.0  # on-screen length of an axis handle
RING_SEGMENTS = 48
CAP = 0.08  # half the side of a scale handle's square, as a share of the handle length
MIN_SCALE = 1e-3  # an unsnapped scale drag never reaches zero or flips

Project = Callable[[np.ndarray], np.ndarray]  # (N, 3) view points -> (N, 2) pixels


@dataclass(frozen=True)
class Frame:
    """Where a prim's handles are: origin and unit axes (view frame), the stage axes they stand
    for, and the prim's authored translate / rotateXYZ / scale (what a drag starts from)."""

    path: str
    origin: np.ndarray  # (3,) view frame
    axes: np.ndarray  # (3, 3) rows: unit axes in the view frame
    translate: tuple[float, float, float]
    rotate: tuple[float, float, float]
    to_parent: np.ndarray  # (3, 3): a view-frame displacement -> the parent frame (stage units)
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)


def prim_frame(stage: Usd.Stage, path: str, stage_to_view: np.ndarray, space: str = "world",
               origin_view: np.ndarray | None = None) -> Frame | None:
    """The manipulator frame of ``path`` (None if it is not Xformable). ``origin_view``
    overrides the origin (a simulated body's live position)."""
    prim = stage.GetPrimAtPath(path) if path else None
    if not prim or not prim.IsA(UsdGeom.Xformable):
        return None
    world = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    parent = UsdGeom.Xformable(prim.GetParent()).ComputeLocalToWorldTransform(Usd.TimeCode.Default()) \
        if prim.GetParent().IsA(UsdGeom.Xformable) else Gf.Matrix4d(1.0)
    s2v = stage_to_view[:3, :3]
    p2s = np.array(parent.ExtractRotationMatrix(), np.float64).T  # column vectors: parent -> stage
    basis = p2s if space == "world" else np.array(world.RemoveScaleShear().ExtractRotationMatrix(), np.float64).T
    axes = (s2v @ basis).T
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    origin = np.asarray(origin_view, np.float64) if origin_view is not None else \
        (s2v @ np.array(world.ExtractTranslation(), np.float64)) + stage_to_view[:3, 3]
    to_parent = np.linalg.inv(s2v @ p2s)
    return Frame(path, origin, axes, _authored(prim, "xformOp:translate"), _authored(prim, "xformOp:rotateXYZ"),
                 to_parent, _authored(prim, "xformOp:scale", 1.0))


def _authored(prim, name: str, default: float = 0.0) -> tuple[float, float, float]:
    attr = prim.GetAttribute(name)
    value = attr.Get() if attr else None
    return tuple(float(v) for v in value) if value is not None else (default, default, default)


def handle_length(frame: Frame, project: Project) -> float:
    """View-frame length that shows as about ``SIZE_PX`` pixels at the frame's origin."""
    pts = np.vstack([frame.origin, frame.origin + frame.axes])
    px = project(pts)
    per_m = max(float(np.max(np.linalg.norm(px[1:] - px[0], axis=1))), 1e-6)
    return SIZE_PX / per_m


def handle_lines(frame: Frame, mode: str, length: float) -> list[np.ndarray]:
    """One polyline per axis handle: an arrow shaft (translate), a ring about it (rotate), or a
    shaft ending in a small square across it (scale)."""
    if mode == "translate":
        return [np.vstack([frame.origin, frame.origin + a * length]) for a in frame.axes]
    if mode == "scale":
        out = []
        for i, a in enumerate(frame.axes):
            tip = frame.origin + a * length
            u, v = frame.axes[(i + 1) % 3] * CAP * length, frame.axes[(i + 2) % 3] * CAP * length
            square = [tip + u + v, tip - u + v, tip - u - v, tip + u - v, tip + u + v]
            out.append(np.vstack([frame.origin, tip, *square]))
        return out
    out = []
    t = np.linspace(0.0, 2.0 * math.pi, RING_SEGMENTS + 1)
    for i in range(3):
        u, v = frame.axes[(i + 1) % 3], frame.axes[(i + 2) % 3]
        out.append(frame.origin + length * 0.8 * (np.outer(np.cos(t), u) + np.outer(np.sin(t), v)))
    return out


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def hit_axis(frame: Frame, mode: str, length: float, project: Project, mouse: tuple[float, float]) -> int | None:
    """The axis whose handle is under the cursor (nearest within ``HIT_PX``), or None."""
    m = np.asarray(mouse, np.float64)
    best, best_d = None, HIT_PX
    for i, line in enumerate(handle_lines(frame, mode, length)):
        px = project(line)
        d = min(_segment_distance(m, px[k], px[k + 1]) for k in range(len(px) - 1))
        if d < best_d:
            best, best_d = i, d
    return best


def axis_parameter(origin: np.ndarray, axis: np.ndarray, ray_o: np.ndarray, ray_d: np.ndarray) -> float | None:
    """Where along ``origin + t * axis`` the ray passes closest (None when they are parallel)."""
    w = ray_o - origin
    b = float(np.dot(axis, ray_d))
    denom = 1.0 - b * b
    if denom < 1e-9:
        return None
    return (float(np.dot(w, axis)) - b * float(np.dot(w, ray_d))) / denom


def ring_angle(origin: np.ndarray, axes: np.ndarray, i: int, ray_o: np.ndarray, ray_d: np.ndarray) -> float | None:
    """The angle (degrees) of the ray's crossing of the plane normal to axis ``i``."""
    n = axes[i]
    dn = float(np.dot(ray_d, n))
    if abs(dn) < 1e-9:
        return None
    p = ray_o + ray_d * (float(np.dot(origin - ray_o, n)) / dn) - origin
    u, v = axes[(i + 1) % 3], axes[(i + 2) % 3]
    return math.degrees(math.atan2(float(np.dot(p, v)), float(np.dot(p, u))))


def snap(value: float, step: float) -> float:
    return round(value / step) * step if step > 0 else value


@dataclass
class Drag:
    """One drag of one handle: started at a ray, updated with rays, ends in one op value."""

    frame: Frame
    mode: str
    axis: int
    start: float  # axis parameter (translate) or ring angle (rotate) at the press
    grid_step: float = 0.25
    angle_step: float = 15.0
    snapping: bool = True
    scale_step: float = 0.1

    @staticmethod
    def begin(frame: Frame, mode: str, axis: int, ray_o, ray_d, **kw) -> Drag | None:
        """The drag of ``axis``'s handle pressed at a ray (None when the ray cannot drive it:
        parallel to the axis or the ring, or a scale press at the prim's origin)."""
        start = ring_angle(frame.origin, frame.axes, axis, ray_o, ray_d) if mode == "rotate" \
            else axis_parameter(frame.origin, frame.axes[axis], ray_o, ray_d)
        if start is None or (mode == "scale" and abs(start) < 1e-6):
            return None
        return Drag(frame, mode, axis, start, **kw)

    def value(self, ray_o, ray_d) -> tuple[str, tuple[float, float, float]] | None:
        """``("translate", xyz)``, ``("rotate", xyz degrees)`` or ``("scale", xyz factors)``: the
        op value for the cursor ray."""
        f = self.frame
        if self.mode == "scale":
            t = axis_parameter(f.origin, f.axes[self.axis], ray_o, ray_d)
            if t is None:
                return None
            scale = list(f.scale)
            factor = f.scale[self.axis] * t / self.start
            scale[self.axis] = round(max(snap(factor, self.scale_step), self.scale_step), 9) if self.snapping \
                else max(factor, MIN_SCALE)
            return "scale", (float(scale[0]), float(scale[1]), float(scale[2]))
        if self.mode == "translate":
            t = axis_parameter(f.origin, f.axes[self.axis], ray_o, ray_d)
            if t is None:
                return None
            delta = snap(t - self.start, self.grid_step) if self.snapping else t - self.start
            moved = f.to_parent @ (f.axes[self.axis] * delta)
            return "translate", tuple(float(a + b) for a, b in zip(f.translate, moved, strict=True))
        angle = ring_angle(f.origin, f.axes, self.axis, ray_o, ray_d)
        if angle is None:
            return None
        delta = (angle - self.start + 180.0) % 360.0 - 180.0
        delta = snap(delta, self.angle_step) if self.snapping else delta
        rotate = list(f.rotate)
        rotate[self.axis] += delta
        return "rotate", (float(rotate[0]), float(rotate[1]), float(rotate[2]))
