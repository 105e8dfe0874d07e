"""Reading the bodies' state back from pybullet once a tick, as few numpy operations as possible.

pybullet reports each body's *inertial* frame (its centre of mass, principal axes); a body prim's
frame is that frame times the inverse of its constant COM frame. With that COM frame fixed per
body, both halves are linear algebra on constants prepared once:

* the prim's rotation ``q_inertial * conj(q_com)`` is ``q_inertial`` times a fixed 4x4 matrix;
* the COM offset in world axes, ``rotate(q_prim, p_com)`` = ``rotate(q_inertial, c)`` with
  ``c = rotate(conj(q_com), p_com)`` fixed, is a quadratic form in ``q_inertial`` (the rotation
  matrix's homogeneous form), so one outer product and one contraction give every body's.
"""

from __future__ import annotations

import numpy as np
import pybullet as pb

from .frames import quat_rotate

# coefficient matrices A[k][l] with R(q)[k, l] = q^T A q for a unit quaternion q = (w, x, y, z)
_ROT_FORM = np.zeros((3, 3, 4, 4))
for _k in range(3):
    _ROT_FORM[_k, _k] = np.diag([1.0, -1.0, -1.0, -1.0])
    _ROT_FORM[_k, _k, _k + 1, _k + 1] = 1.0
for (_k, _l), (_a, _b, _s) in {(0, 1): (1, 2, -1), (1, 0): (1, 2, 1), (0, 2): (1, 3, 1), (2, 0): (1, 3, -1),
                               (1, 2): (2, 3, -1), (2, 1): (2, 3, 1)}.items():
    _ROT_FORM[_k, _l, _a, _b] = _ROT_FORM[_k, _l, _b, _a] = 1.0  # the symmetric part: 2 * q_a q_b
    _w = 6 - _a - _b  # the remaining vector component pairs with w: the antisymmetric part, 2 * w q_c
    _ROT_FORM[_k, _l, 0, _w] = _ROT_FORM[_k, _l, _w, 0] = float(_s)


def _right_mul_matrix(b: np.ndarray) -> np.ndarray:
    """(4, 4) M with ``a @ M == quat_mul(a, b)`` (w-x-y-z)."""
    bw, bx, by, bz = b
    return np.array([[bw, bx, by, bz], [-bx, bw, -bz, by], [-by, bz, bw, -bx], [-bz, -by, bx, bw]])


class BodyStateReader:
    """One tick's read-back of every body: positions, orientations (w-x-y-z), linear and
    angular velocities of the body prims' frames, and their centres of mass, in ``order``.

    ``steps`` is per multibody (uid, has a body as its base, the link indices that are bodies);
    ``rows`` the body index of each reported row in that order; ``com_p``/``com_q`` each body's
    COM frame in its prim frame."""

    def __init__(self, client_id: int, steps: list[tuple[int, bool, list[int]]], rows: np.ndarray,
                 com_p: np.ndarray, com_q: np.ndarray) -> None:
        n = len(com_p)
        self._cid = client_id
        self._steps = steps
        self._n = n
        # reported rows -> body order: a permutation when every body is reported (the usual case)
        self._gather = np.argsort(rows) if len(rows) == n and np.array_equal(np.sort(rows), np.arange(n)) else None
        self._rows = rows
        conj = com_q * np.array([1.0, -1.0, -1.0, -1.0])
        self._to_prim = np.array([_right_mul_matrix(c) for c in conj]).reshape(n, 4, 4)
        offsets = np.array([quat_rotate(c, p) for c, p in zip(conj, com_p, strict=True)]).reshape(n, 3)
        self._offset_form = np.einsum("kl...,nl->nk...", _ROT_FORM, offsets).reshape(n, 3, 16)
        self._has_offset = bool(np.any(offsets))

    def read(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(positions, orientations, linear velocities, angular velocities, COM positions)."""
        cid = self._cid
        reported: list[tuple] = []
        for uid, has_base, links in self._steps:
            if has_base:
                p, o = pb.getBasePositionAndOrientation(uid, physicsClientId=cid)
                v, w = pb.getBaseVelocity(uid, physicsClientId=cid)
                reported.append(p + o + v + w)
            if links:
                reported += [st[0] + st[1] + st[6] + st[7] for st in pb.getLinkStates(
                    uid, links, computeLinkVelocity=1, computeForwardKinematics=1, physicsClientId=cid)]
        n = self._n
        if self._gather is not None:
            table = np.array(reported, dtype=float).reshape(n, 13)[self._gather]
        else:
            table = np.zeros((n, 13))
            table[:, 6] = 1.0  # an unreported body stands at the origin, unrotated
            if len(reported):
                table[self._rows] = reported
        com = table[:, 0:3]
        inertial_q = table[:, (6, 3, 4, 5)]  # pybullet's x-y-z-w -> w-x-y-z
        orn = np.einsum("ni,nij->nj", inertial_q, self._to_prim)
        ang = table[:, 10:13]
        if self._has_offset:
            outer = (inertial_q[:, :, None] * inertial_q[:, None, :]).reshape(n, 16)
            offset = np.einsum("nm,nkm->nk", outer, self._offset_form)  # COM - prim origin, world axes
            pos = com - offset
            lin = table[:, 7:10].copy()  # the origin's velocity: v_com - w x (com - origin)
            lin[:, 0] -= ang[:, 1] * offset[:, 2] - ang[:, 2] * offset[:, 1]
            lin[:, 1] -= ang[:, 2] * offset[:, 0] - ang[:, 0] * offset[:, 2]
            lin[:, 2] -= ang[:, 0] * offset[:, 1] - ang[:, 1] * offset[:, 0]
        else:
            pos, lin = com.copy(), table[:, 7:10].copy()
        return pos, orn, lin, np.ascontiguousarray(ang), np.ascontiguousarray(com)
