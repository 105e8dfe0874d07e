"""The viewport's pure scene model: batched geometry buckets, body poses, selection.

Importable without Qt or GL. Geometry read from the stage is merged into a handful of
:class:`Bucket` s (one per purpose x translucency x static/moving); each bucket holds owner-frame
vertices plus, per vertex, the index of the frame that moves it (0 = static world, i = rigid
body i). Moving bodies is a vectorised gather + matrix product over the bucket's vertex arrays.
Everything here is expressed in the *view frame* (metres, +Z up; see :mod:`.transforms`).
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from pxr import Sdf, Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic

from .stage_reader import PrimGeometry, read_subtree
from .transforms import quat_to_matrix, stage_to_view

_STAMPS = itertools.count(1)  # version stamps unique across buckets and reloads


def _stamp() -> int:
    return next(_STAMPS)


HIGHLIGHT_COLOR = np.array([1.0, 0.62, 0.08, 1.0], dtype=np.float32)
HIGHLIGHT_MIX = 0.65
PURPOSES = ("default", "render", "proxy", "guide")
GROUND_RATIO = 4.0  # a flat static prim this many times wider than the rest of the scene is ground
FLAT_RATIO = 0.1  # ... and at most this tall for its width


@dataclass(frozen=True, slots=True, order=True)
class BucketKey:
    """What decides which merged draw call a prim lands in."""

    purpose: str
    translucent: bool
    dynamic: bool


@dataclass(slots=True)
class Bucket:
    """One merged triangle batch (one GL draw call)."""

    key: BucketKey
    local_positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    local_normals: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    owners: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    base_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    faces: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.uint32))
    prim_paths: tuple[str, ...] = ()
    vertex_starts: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    face_starts: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    normals: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    run_groups: list | None = None  # cached owner runs, see SceneModel._pose_bucket
    geometry_version: int = 0  # faces / vertex count changed
    pose_version: int = 0  # positions / normals changed
    color_version: int = 0

    @property
    def n_vertices(self) -> int:
        return int(self.local_positions.shape[0])

    @property
    def n_faces(self) -> int:
        return int(self.faces.shape[0])

    def prim_index_of_face(self, face: np.ndarray | int) -> np.ndarray:
        return np.searchsorted(self.face_starts, face, side="right") - 1

    def prim_vertex_slice(self, i: int) -> slice:
        return slice(int(self.vertex_starts[i]), int(self.vertex_starts[i + 1]))

    def subtree_prims(self, path: str) -> tuple[int, int]:
        """Index range of the prims at or under ``path``.

        ``prim_paths`` is sorted and prim names only use characters after '/' ([A-Za-z0-9_]),
        so a subtree is the contiguous range [path, path + "0").
        """
        if path == "/":
            return 0, len(self.prim_paths)
        return bisect_left(self.prim_paths, path), bisect_left(self.prim_paths, path + "0")

    def has_subtree(self, path: str) -> bool:
        lo, hi = self.subtree_prims(path)
        return hi > lo

    def subtree_vertices(self, path: str) -> slice:
        """Vertex slice of every prim at or under ``path`` (prims' vertices are contiguous)."""
        lo, hi = self.subtree_prims(path)
        return slice(int(self.vertex_starts[lo]), int(self.vertex_starts[hi]))


def _roots(paths: Iterable[str]) -> list[str]:
    """The given paths without those already covered by an ancestor in the list."""
    out: list[str] = []
    for p in sorted(set(paths)):
        if not any(_under(p, [r]) for r in out):
            out.append(p)
    return out


def _under(path: str, roots: Iterable[str]) -> bool:
    for r in roots:
        if path == r or r == "/" or path.startswith(r.rstrip("/") + "/"):
            return True
    return False


def _run_groups(owners: np.ndarray, local_pos: np.ndarray, local_nrm: np.ndarray) -> list:
    """Group maximal runs of equal owner by run length: (vertex idx (K, L), owner (K,), pos, nrm)."""
    if owners.size == 0:
        return []
    cut = np.flatnonzero(np.diff(owners)) + 1
    starts = np.concatenate([[0], cut])
    lengths = np.diff(np.concatenate([starts, [owners.size]]))
    groups = []
    for length in np.unique(lengths):
        st = starts[lengths == length]
        idx = st[:, None] + np.arange(length)[None, :]
        groups.append((idx, owners[st], local_pos[idx], local_nrm[idx]))
    return groups


class SceneModel:
    """Drawable state of one stage: buckets, body frames, selection and purpose filters."""

    def __init__(self, stage: Usd.Stage | None = None) -> None:
        self.stage: Usd.Stage | None = None
        self.up_axis = "Z"
        self.meters_per_unit = 1.0
        self.stage_to_view = np.eye(4)
        self.diagnostics: list[Diagnostic] = []
        self.buckets: dict[BucketKey, Bucket] = {}
        self.visible_purposes: set[str] = {"default", "render"}
        self.selection: tuple[str, ...] = ()
        self._records: dict[str, PrimGeometry] = {}
        self._body_index: dict[str, int] = {}  # body path -> frame index (>= 1)
        self._body_default: dict[str, np.ndarray] = {}  # stage-unit rigid pose from the stage
        # stage-unit rigid poses set by the runtime, indexed like frames (row 0 unused)
        self._live_rot = np.zeros((1, 3, 3))
        self._live_trans = np.zeros((1, 3))
        self._live_mask = np.zeros(1, bool)
        self._frame_rot = np.eye(3)[None]
        self._frame_trans = np.zeros((1, 3))
        self._pose_cache: tuple | None = None  # (paths, frame idx, known mask, unknown paths)
        self.version = 0
        if stage is not None:
            self.load(stage)

    # ------------------------------------------------------------------ loading
    def load(self, stage: Usd.Stage) -> None:
        """Read the whole composed stage (replaces everything, keeps purpose filters)."""
        self.stage = stage
        self.up_axis = str(UsdGeom.GetStageUpAxis(stage))
        self.meters_per_unit = float(UsdGeom.GetStageMetersPerUnit(stage))
        self.stage_to_view = stage_to_view(self.up_axis, self.meters_per_unit)
        self._records.clear()
        self._body_default.clear()
        self._body_index = {}
        self._live_mask = np.zeros(1, bool)
        self.diagnostics = []
        read = read_subtree(stage, stage.GetPseudoRoot(), UsdGeom.XformCache())
        self._absorb(read)
        old_keys = set(self.buckets)
        self.buckets = {}
        self._rebuild_frames()
        self._rebuild_buckets(old_keys | {self._key(r) for r in self._records.values()})
        self.selection = tuple(p for p in self.selection if p in self._records or self._has_prim(p))
        self._apply_selection_colors(set(self.buckets))

    def _has_prim(self, path: str) -> bool:
        return bool(self.stage and self.stage.GetPrimAtPath(path))

    def _absorb(self, read) -> None:
        for g in read.geometry:
            self._records[g.path] = g
        self._body_default.update(read.bodies)
        self.diagnostics.extend(read.diagnostics)

    def update_prims(self, paths: Sequence[str]) -> set[BucketKey]:
        """Re-read the given prims and their descendants after a document edit.

        Prims that no longer exist are removed; new ones are added. Only buckets whose content
        changed are rebuilt; their keys are returned.
        """
        if self.stage is None:
            raise RuntimeError("update_prims called before a stage was loaded")
        roots = sorted({str(Sdf.Path(p)) for p in paths})
        roots = [r for r in roots if not any(r != o and _under(r, [o]) for o in roots)]
        dirty: set[BucketKey] = set()
        for path in [p for p in self._records if _under(p, roots)]:
            dirty.add(self._key(self._records.pop(path)))
        for body in [b for b in self._body_default if _under(b, roots)]:
            del self._body_default[body]
        self.diagnostics = [d for d in self.diagnostics if not _under(d.path, roots)]
        cache = UsdGeom.XformCache()
        for root in roots:
            prim = self.stage.GetPrimAtPath(root)
            if prim:
                read = read_subtree(self.stage, prim, cache)
                self._absorb(read)
                dirty |= {self._key(g) for g in read.geometry}
        self._rebuild_frames(skip=dirty)
        self._rebuild_buckets(dirty)
        self._apply_selection_colors(dirty & set(self.buckets))
        return dirty

    # ------------------------------------------------------------------ buckets
    def _key(self, g: PrimGeometry) -> BucketKey:
        return BucketKey(g.purpose, g.translucent, g.body_path is not None)

    def _rebuild_buckets(self, keys: Iterable[BucketKey]) -> None:
        by_key: dict[BucketKey, list[PrimGeometry]] = {k: [] for k in keys}
        for path in sorted(self._records):
            g = self._records[path]
            k = self._key(g)
            if k in by_key:
                by_key[k].append(g)
        for key, prims in by_key.items():
            self.buckets.pop(key, None)
            if not prims:
                continue
            b = Bucket(key)
            nv = np.array([g.mesh.n_vertices for g in prims])
            nf = np.array([g.mesh.n_faces for g in prims])
            b.vertex_starts = np.concatenate([[0], np.cumsum(nv)])
            b.face_starts = np.concatenate([[0], np.cumsum(nf)])
            b.local_positions = np.concatenate([g.mesh.positions for g in prims])
            b.local_normals = np.concatenate([g.mesh.normals for g in prims])
            b.faces = np.concatenate(
                [g.mesh.faces + off for g, off in zip(prims, b.vertex_starts[:-1], strict=True)]
            ).astype(np.uint32)
            b.base_colors = np.concatenate([g.colors for g in prims]).astype(np.float32)
            b.colors = b.base_colors.copy()
            owner_of_prim = np.array(
                [self._body_index.get(g.body_path, 0) if g.body_path else 0 for g in prims]
            )
            b.owners = np.repeat(owner_of_prim, nv)
            b.prim_paths = tuple(g.path for g in prims)
            b.geometry_version = _stamp()
            b.color_version = _stamp()
            self._pose_bucket(b)
            self.buckets[key] = b
        self.buckets = dict(sorted(self.buckets.items()))
        self.version += 1

    def _rebuild_frames(self, skip: set[BucketKey] | frozenset = frozenset()) -> None:
        """Re-index bodies and their frames; re-pose existing buckets (except ``skip``, which
        are about to be rebuilt)."""
        live = {
            b: (self._live_rot[i], self._live_trans[i])
            for b, i in self._body_index.items()
            if b in self._body_default and i < self._live_mask.size and self._live_mask[i]
        }
        bodies = sorted(self._body_default)
        self._body_index = {b: i + 1 for i, b in enumerate(bodies)}
        n = len(bodies) + 1
        self._frame_rot = np.empty((n, 3, 3))
        self._frame_trans = np.empty((n, 3))
        self._live_rot = np.zeros((n, 3, 3))
        self._live_trans = np.zeros((n, 3))
        self._live_mask = np.zeros(n, bool)
        self._frame_rot[0] = self.stage_to_view[:3, :3]
        self._frame_trans[0] = self.stage_to_view[:3, 3]
        for b, i in self._body_index.items():
            pose = self._body_default[b]
            if b in live:
                self._live_rot[i], self._live_trans[i] = live[b]
                self._live_mask[i] = True
                pose = np.eye(4)
                pose[:3, :3], pose[:3, 3] = live[b]
            m = self.stage_to_view @ pose
            self._frame_rot[i] = m[:3, :3]
            self._frame_trans[i] = m[:3, 3]
        self._pose_cache = None
        # owners depend on body indices: refresh every bucket's owner column
        for key, b in self.buckets.items():
            if key in skip:
                continue
            owner_of_prim = np.array([self._owner_index(p) for p in b.prim_paths])
            b.owners = np.repeat(owner_of_prim, np.diff(b.vertex_starts))
            b.run_groups = None
            if b.key.dynamic:
                self._pose_bucket(b)

    def _owner_index(self, prim_path: str) -> int:
        rec = self._records.get(prim_path)
        return self._body_index.get(rec.body_path or "", 0) if rec is not None else 0

    def _pose_bucket(self, b: Bucket) -> None:
        """Transform a bucket's owner-frame vertices by their owners' current frames.

        Vertices come in runs sharing one owner; runs of equal length are stacked so each group
        is one batched (K, L, 3) @ (K, 3, 3) product (no per-vertex gather of matrices).
        """
        if b.run_groups is None:
            b.run_groups = _run_groups(b.owners, b.local_positions, b.local_normals)
        pos = np.empty((b.n_vertices, 3), np.float32)
        nrm = np.empty((b.n_vertices, 3), np.float32)
        inv_scale = 1.0 / self.meters_per_unit  # frame rotations carry metersPerUnit
        for idx, own, lp, ln in b.run_groups:
            rt = self._frame_rot[own].transpose(0, 2, 1)
            pos[idx] = np.matmul(lp, rt) + self._frame_trans[own][:, None, :]
            nrm[idx] = np.matmul(ln, rt) * inv_scale
        b.positions = pos
        b.normals = nrm
        b.pose_version = _stamp()

    # ------------------------------------------------------------------ poses
    @property
    def body_paths(self) -> tuple[str, ...]:
        return tuple(self._body_index)

    def set_body_poses(
        self, body_paths: Sequence[str], positions: np.ndarray, orientations: np.ndarray
    ) -> tuple[str, ...]:
        """Move rigid bodies to world poses (metres, stage axes; quaternions wxyz).

        Returns the paths that are not rigid bodies of the loaded stage (ignored).
        """
        paths = tuple(body_paths)
        pos = np.asarray(positions, dtype=np.float64).reshape(-1, 3)
        quat = np.asarray(orientations, dtype=np.float64).reshape(-1, 4)
        if pos.shape[0] != len(paths) or quat.shape[0] != len(paths):
            raise ValueError(
                f"set_body_poses: {len(paths)} paths but {pos.shape[0]} positions and "
                f"{quat.shape[0]} orientations"
            )
        if not (np.all(np.isfinite(pos)) and np.all(np.isfinite(quat))):
            bad = paths[int(np.flatnonzero(~np.isfinite(np.c_[pos, quat]).all(axis=1))[0])]
            raise ValueError(f"set_body_poses: non-finite pose for {bad}")
        if self._pose_cache is None or self._pose_cache[0] != paths:
            idx = np.array([self._body_index.get(p, -1) for p in paths], dtype=np.int64)
            known = idx >= 0
            unknown = tuple(p for p, k in zip(paths, known, strict=True) if not k)
            self._pose_cache = (paths, idx[known], known, unknown)
        _, idx, known, unknown = self._pose_cache
        rot = quat_to_matrix(quat[known])
        trans = pos[known] / self.meters_per_unit  # stage units
        s = self.stage_to_view
        self._frame_rot[idx] = np.matmul(s[:3, :3], rot)
        self._frame_trans[idx] = trans @ s[:3, :3].T + s[:3, 3]
        self._live_rot[idx] = rot
        self._live_trans[idx] = trans
        self._live_mask[idx] = True
        for b in self.buckets.values():
            if b.key.dynamic:
                self._pose_bucket(b)
        return unknown

    def body_position(self, body_path: str) -> np.ndarray | None:
        """Current view-frame origin of a body, or None if it is not a body of the stage."""
        i = self._body_index.get(body_path)
        return None if i is None else self._frame_trans[i].copy()

    # ------------------------------------------------------------------ selection, purposes
    def set_selection(self, paths: Sequence[str]) -> None:
        """Highlight these prims (and everything drawn below them)."""
        new = tuple(dict.fromkeys(str(p) for p in paths))
        if new == self.selection:
            return
        changed = set(new) ^ set(self.selection)
        touched = {k for k, b in self.buckets.items() if any(b.has_subtree(p) for p in changed)}
        self.selection = new
        self._apply_selection_colors(touched)

    def _apply_selection_colors(self, keys: Iterable[BucketKey]) -> None:
        for k in keys:
            b = self.buckets[k]
            colors = b.base_colors.copy()
            for root in _roots(self.selection):
                sl = b.subtree_vertices(root)
                colors[sl, :3] = (
                    colors[sl, :3] * (1 - HIGHLIGHT_MIX) + HIGHLIGHT_COLOR[:3] * HIGHLIGHT_MIX
                )
            b.colors = colors
            b.color_version = _stamp()

    def set_purpose_visible(self, purpose: str, visible: bool) -> None:
        if purpose not in PURPOSES:
            raise ValueError(f"unknown purpose {purpose!r}; expected one of {', '.join(PURPOSES)}")
        if visible:
            self.visible_purposes.add(purpose)
        else:
            self.visible_purposes.discard(purpose)
        self.version += 1

    def is_bucket_visible(self, key: BucketKey) -> bool:
        return key.purpose in self.visible_purposes

    # ------------------------------------------------------------------ queries
    @property
    def prim_paths(self) -> tuple[str, ...]:
        return tuple(sorted(self._records))

    def prim_record(self, path: str) -> PrimGeometry | None:
        return self._records.get(path)

    def prim_vertices(self, path: str) -> np.ndarray:
        """Current view-frame vertices of every drawn prim at or under ``path`` (visible or not)."""
        chunks = [b.positions[b.subtree_vertices(path)] for b in self.buckets.values()]
        chunks = [c for c in chunks if c.shape[0]]
        return np.concatenate(chunks) if chunks else np.zeros((0, 3), np.float32)

    def draws(self, path: str) -> bool:
        """Whether anything is drawn at or under ``path`` (shown or not), or it is a body."""
        return path in self._body_index or any(b.has_subtree(path) for b in self.buckets.values())

    def prim_bounds(self) -> dict[str, tuple[np.ndarray, np.ndarray, bool]]:
        """View-frame AABB of each visible drawn prim, with whether it moves (is on a body)."""
        out: dict[str, tuple[np.ndarray, np.ndarray, bool]] = {}
        for k, b in self.buckets.items():
            if not self.is_bucket_visible(k) or b.n_vertices == 0:
                continue
            starts = b.vertex_starts[:-1]
            drawn = np.flatnonzero(b.vertex_starts[1:] > starts)
            if not drawn.size:
                continue
            lo = np.minimum.reduceat(b.positions, starts[drawn], axis=0)
            hi = np.maximum.reduceat(b.positions, starts[drawn], axis=0)
            for j, i in enumerate(drawn):
                path = b.prim_paths[i]
                if path in out:  # one prim in two buckets (rare): merge
                    plo, phi, moving = out[path]
                    out[path] = (np.minimum(plo, lo[j]), np.maximum(phi, hi[j]), moving or k.dynamic)
                else:
                    out[path] = (lo[j].astype(np.float64), hi[j].astype(np.float64), k.dynamic)
        return out

    def ground_paths(self, ratio: float = GROUND_RATIO) -> tuple[str, ...]:
        """Static, flat prims far wider than everything else (a 120 m ground under 3 m rovers).

        Flat: at most ``FLAT_RATIO`` as tall as wide. Far wider: their width is more than
        ``ratio`` times the width of the rest of the scene. The widest such prims are dropped
        one by one while the rule holds; a scene that is only ground keeps it."""
        boxes = self.prim_bounds()

        def width(lo, hi) -> float:
            return float(np.max(hi[:2] - lo[:2]))

        flat = sorted((p for p, (lo, hi, moving) in boxes.items()
                       if not moving and (hi[2] - lo[2]) <= FLAT_RATIO * width(lo, hi)),
                      key=lambda p: -width(*boxes[p][:2]))
        grounds: list[str] = []
        for path in flat:
            rest = [v for q, v in boxes.items() if q != path and q not in grounds]
            if not rest:
                break
            lo = np.min([v[0] for v in rest], axis=0)
            hi = np.max([v[1] for v in rest], axis=0)
            # the rest's extent, at least 1 m: a lone small marker still sits on a real ground
            if width(*boxes[path][:2]) <= ratio * max(width(lo, hi), float(np.linalg.norm(hi - lo)), 1.0):
                break
            grounds.append(path)
        return tuple(grounds)

    def framing_bounds(self) -> tuple[np.ndarray, np.ndarray] | None:
        """What Fit All frames: everything drawn except ground planes far larger than the rest
        (:meth:`ground_paths`); None when nothing is drawn."""
        grounds = set(self.ground_paths())
        if not grounds:
            return self.bounds()
        boxes = [v for p, v in self.prim_bounds().items() if p not in grounds]
        if not boxes:
            return self.bounds()
        return np.min([v[0] for v in boxes], axis=0), np.max([v[1] for v in boxes], axis=0)

    def bounds(self, paths: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray] | None:
        """View-frame AABB of the visible geometry (or of ``paths``); None when nothing is drawn."""
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        for k, b in self.buckets.items():
            if not self.is_bucket_visible(k) or b.n_vertices == 0:
                continue
            if paths is None:
                pts = b.positions
            else:
                sel = [b.positions[b.subtree_vertices(p)] for p in _roots(paths)]
                sel = [c for c in sel if c.shape[0]]
                if not sel:
                    continue
                pts = np.concatenate(sel)
            lo = np.minimum(lo, pts.min(axis=0))
            hi = np.maximum(hi, pts.max(axis=0))
        if not np.all(np.isfinite(lo)):
            return None
        return lo, hi
