"""The merged-triangle visual and its adapter: one draw call per scene-model bucket.

Vertex positions, normals and colours live in their own GPU buffers so a pose update uploads
positions and normals only, a selection change uploads colours only, and faces are uploaded
only when the bucket's topology changes.
"""

from __future__ import annotations

import numpy as np
from vispy import gloo, scene
from vispy.visuals import Visual

from ..model.scene_model import BucketKey, SceneModel

VERT = """
attribute vec3 a_position;
attribute vec3 a_normal;
attribute vec4 a_color;
varying vec4 v_color;
varying vec3 v_normal;
void main() {
    v_color = a_color;
    v_normal = a_normal;
    gl_Position = $transform(vec4(a_position, 1.0));
}
"""

# Lighting in the view frame (+Z up): a low sun, a weak opposite fill and a sky/ground
# hemisphere ambient, so grey regolith and grey vehicles still separate by shading.
FRAG = """
varying vec4 v_color;
varying vec3 v_normal;
uniform vec3 u_sun;
uniform vec3 u_fill;
void main() {
    vec3 n = normalize(v_normal);
    float sun = max(dot(n, u_sun), 0.0);
    float fill = max(dot(n, u_fill), 0.0);
    float hemi = mix(0.22, 0.42, 0.5 + 0.5 * n.z);
    vec3 rgb = v_color.rgb * (hemi + 0.62 * sun + 0.18 * fill);
    gl_FragColor = vec4(min(rgb, vec3(1.0)), v_color.a);
}
"""

SUN = np.array([0.45, -0.6, 0.66]) / np.linalg.norm([0.45, -0.6, 0.66])
FILL = np.array([-0.5, 0.6, 0.3]) / np.linalg.norm([-0.5, 0.6, 0.3])


class BatchedMeshVisual(Visual):
    """Indexed triangles with per-vertex position, normal and colour buffers."""

    def __init__(self, translucent: bool = False) -> None:
        Visual.__init__(self, vcode=VERT, fcode=FRAG)
        self._pos = gloo.VertexBuffer(np.zeros((0, 3), np.float32))
        self._nrm = gloo.VertexBuffer(np.zeros((0, 3), np.float32))
        self._col = gloo.VertexBuffer(np.zeros((0, 4), np.float32))
        self._index_buffer = gloo.IndexBuffer(np.zeros((0, 3), np.uint32))
        self._n_faces = 0
        self._bounds: np.ndarray | None = None
        self.shared_program["a_position"] = self._pos
        self.shared_program["a_normal"] = self._nrm
        self.shared_program["a_color"] = self._col
        self.shared_program["u_sun"] = tuple(SUN)
        self.shared_program["u_fill"] = tuple(FILL)
        self._draw_mode = "triangles"
        if translucent:
            self.set_gl_state("translucent", depth_test=True, cull_face=False)
        else:
            self.set_gl_state("opaque", depth_test=True, cull_face=False)

    def set_faces(self, faces: np.ndarray) -> None:
        self._index_buffer.set_data(np.ascontiguousarray(faces, np.uint32))
        self._n_faces = int(faces.shape[0])

    def set_positions(self, positions: np.ndarray, normals: np.ndarray) -> None:
        self._pos.set_data(np.ascontiguousarray(positions, np.float32))
        self._nrm.set_data(np.ascontiguousarray(normals, np.float32))
        self._bounds = (
            np.stack([positions.min(axis=0), positions.max(axis=0)]) if len(positions) else None
        )

    def set_colors(self, colors: np.ndarray) -> None:
        self._col.set_data(np.ascontiguousarray(colors, np.float32))

    def _prepare_transforms(self, view) -> None:
        view.view_program.vert["transform"] = view.get_transform()

    def _prepare_draw(self, view) -> bool:
        return self._n_faces > 0

    def _compute_bounds(self, axis, view):
        if self._bounds is None:
            return None
        return float(self._bounds[0, axis]), float(self._bounds[1, axis])


BatchedMesh = scene.visuals.create_visual_node(BatchedMeshVisual)


class BucketMeshAdapter:
    """Keeps one :class:`BatchedMesh` node in step with one scene-model bucket."""

    def __init__(self, model: SceneModel, key: BucketKey, parent) -> None:
        self.model = model
        self.key = key
        self.node = BatchedMesh(translucent=key.translucent, parent=parent)
        # translucent geometry draws after the opaque buckets
        self.node.order = 10 if key.translucent else 0
        self._versions = (-1, -1, -1)

    def sync(self) -> bool:
        """Upload what changed since the last sync; returns True when something was uploaded."""
        b = self.model.buckets.get(self.key)
        visible = b is not None and self.model.is_bucket_visible(self.key)
        if self.node.visible != visible:
            self.node.visible = visible
        if b is None:
            return False
        g, p, c = self._versions
        changed = False
        if g != b.geometry_version:
            self.node.set_faces(b.faces)
            changed = True
        if g != b.geometry_version or p != b.pose_version:
            self.node.set_positions(b.positions, b.normals)
            changed = True
        if g != b.geometry_version or c != b.color_version:
            self.node.set_colors(b.colors)
            changed = True
        self._versions = (b.geometry_version, b.pose_version, b.color_version)
        return changed

    def close(self) -> None:
        self.node.parent = None
