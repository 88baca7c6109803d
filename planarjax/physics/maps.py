"""Constant tables that turn the tree recursions into a few array operations.

XLA on CPU runs best on a handful of array operations over small structural axes (bodies,
dofs, constraint rows), with the batch of environments as the large axis; long chains of
scalar operations get duplicated across fusions. So the tree structure is compiled, once per
model and in numpy, into constant matrices:

* Forward kinematics of a planar tree is linear in a small feature vector. Every frame angle is
  an affine function of qpos; with F = [1, cos a_k, sin a_k, (slide terms)] over the distinct
  angle functions a_k, every point and direction of interest (body origins, centres of mass,
  joint anchors, the trees' centres of mass, geom centres and axes, dof motion vectors) is
  ``F @ W`` for one constant matrix W (built here by symbolic forward kinematics).
* Sums over ancestor chains and subtrees become products with 0/1 matrices.
* Joint-space matrices have non-zeros only on the tree pattern (j an ancestor of i); they are
  assembled from a list of pattern entries.
"""

from __future__ import annotations

import math
import numpy as np

from planarjax.physics.model import JNT_HINGE, JNT_SLIDE, PlanarModel


def _rotate(angle: float, v: np.ndarray) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([c * v[0] + s * v[1], -s * v[0] + c * v[1]])


class _Angle:
    """An angle affine in qpos: row . qpos + const."""

    def __init__(self, row: np.ndarray, const: float):
        self.row, self.const = row, const

    def plus(self, row: np.ndarray | None = None, const: float = 0.0) -> "_Angle":
        return _Angle(self.row + (0 if row is None else row), self.const + const)

    @property
    def key(self) -> tuple | None:
        return None if not np.any(self.row) else tuple(np.round(self.row, 12))


class _Features:
    """Registry of the runtime feature vector F and linear expressions over it (values (x, z))."""

    def __init__(self, nq: int):
        self.nq = nq
        self.angle_rows: dict[tuple, int] = {}      # angle class -> index k
        self.const_slides: dict[int, int] = {}      # joint -> position among q features
        self.rot_slides: dict[tuple[int, int], int] = {}  # (class k, joint) -> position

    def angle_class(self, angle: _Angle) -> int | None:
        key = angle.key
        if key is None:
            return None
        return self.angle_rows.setdefault(key, len(self.angle_rows))

    # Expressions are dicts: feature name -> np.array([coef_x, coef_z]).
    @staticmethod
    def _add(expr: dict, name: tuple, coef: np.ndarray) -> None:
        expr[name] = expr.get(name, np.zeros(2)) + coef

    def add_rotated(self, expr: dict, angle: _Angle, v: np.ndarray, scale_feature: int | None = None) -> None:
        """expr += R(angle) v  (times q[scale_feature] if given)."""
        v = _rotate(angle.const, np.asarray(v, dtype=np.float64))
        k = self.angle_class(angle)
        if k is None:
            if scale_feature is None:
                self._add(expr, ("one",), v)
            else:
                self.const_slides.setdefault(scale_feature, len(self.const_slides))
                self._add(expr, ("q", scale_feature), v)
            return
        # R(a) v = cos(a) (v_x, v_z) + sin(a) (v_z, -v_x), with a = row . qpos (const folded into v)
        if scale_feature is None:
            self._add(expr, ("cos", k), v)
            self._add(expr, ("sin", k), np.array([v[1], -v[0]]))
        else:
            self.rot_slides.setdefault((k, scale_feature), len(self.rot_slides))
            self._add(expr, ("cosq", k, scale_feature), v)
            self._add(expr, ("sinq", k, scale_feature), np.array([v[1], -v[0]]))

    def names(self) -> list[tuple]:
        nk = len(self.angle_rows)
        return ([("one",)] + [("cos", k) for k in range(nk)] + [("sin", k) for k in range(nk)]
                + [("q", j) for j in sorted(self.const_slides, key=self.const_slides.get)]
                + [("cosq", k, j) for (k, j) in sorted(self.rot_slides, key=self.rot_slides.get)]
                + [("sinq", k, j) for (k, j) in sorted(self.rot_slides, key=self.rot_slides.get)])


def _scale(expr: dict, factor: float) -> dict:
    return {k: v * factor for k, v in expr.items()}


def _sum(*exprs: dict) -> dict:
    out: dict = {}
    for e in exprs:
        for k, v in e.items():
            out[k] = out.get(k, np.zeros(2)) + v
    return out


class TreeMaps:
    """Constant tables of one model (numpy, float64). See the module docstring."""

    def __init__(self, **tables):
        self.__dict__.update(tables)
        self._point_maps: dict = {}

    # Attributes (set by build_maps):
    #   angle_rows (nclass, nq)        a_k = angle_rows[k] . qpos
    #   const_slide_joints (n,)        joints whose q enters F directly
    #   rot_slide_class, rot_slide_joint (m,)   slide features cos(a_k) q_j, sin(a_k) q_j
    #   expressions {group: [expr]}    linear expressions of points over the feature names
    #   feature_names [name]
    #   dof_angular (nv,)              angular component of cdof (hinge sign; 0 for slides)
    #   body_tree (nbody,)             tree index of each body (-1 for the world)
    #   body_chain (nbody, nv)         1 where the dof moves the body
    #   dof_strict_chain (nv, nv)      [j, k] = 1 if dof k is a strict ancestor of dof j
    #   subtree (nbody, nbody)         [b, k] = 1 if body k is in the subtree of body b
    #   dof_body (nv,)
    #   pattern_i, pattern_j (npat,)   tree-pattern entries (i, j), j = i or an ancestor of i
    #   pattern_index {(i, j): p}      for both (i, j) and (j, i)
    #   dense_from_pattern (nv, nv)    index into [pattern values, 0]
    #   collision_geoms (ncg,)         geoms that appear in a collision pair

    def point_map(self, groups: tuple[str, ...]) -> tuple[np.ndarray, dict[str, slice]]:
        """(W, index): rows 0..n-1 of W @ F are the x coordinates of the groups' points, rows
        n..2n-1 the z coordinates; index[group] is that group's slice of the n points."""
        if groups not in self._point_maps:
            column = {name: i for i, name in enumerate(self.feature_names)}
            exprs, index = [], {}
            for group in groups:
                index[group] = slice(len(exprs), len(exprs) + len(self.expressions[group]))
                exprs.extend(self.expressions[group])
            n = len(exprs)
            matrix = np.zeros((2 * n, len(self.feature_names)))
            for p, expr in enumerate(exprs):
                for name, coef in expr.items():
                    matrix[p, column[name]] += coef[0]
                    matrix[n + p, column[name]] += coef[1]
            self._point_maps[groups] = (matrix, index)
        return self._point_maps[groups]


def tree_maps(model: PlanarModel) -> TreeMaps:
    """The model's constant tables, built on first use and kept on the model (in its ``__dict__``, as
    ``functools.cached_property`` keeps a value: the model is a frozen dataclass)."""
    maps = model.__dict__.get("_tree_maps")
    if maps is None:
        maps = model.__dict__["_tree_maps"] = build_maps(model)
    return maps


def build_maps(model: PlanarModel) -> TreeMaps:
    nq, nb = model.nq, model.nbody
    feats = _Features(nq)
    zero_row = np.zeros(nq)

    body_origin: list[dict] = [{}]
    body_angle: list[_Angle] = [_Angle(zero_row.copy(), 0.0)]
    anchors: list[dict] = [None] * model.njnt  # type: ignore[list-item]
    slide_axes: list[dict] = [None] * model.njnt  # type: ignore[list-item]
    for b in range(1, nb):
        p = model.body_parent[b]
        pos = dict(body_origin[p])
        feats.add_rotated(pos, body_angle[p], model.body_offset_xz[b])
        theta = body_angle[p].plus(const=float(model.body_offset_angle[b]))
        for j in model.body_joints[b]:
            anchor = dict(pos)
            feats.add_rotated(anchor, theta, model.jnt_anchor_xz[j])
            anchors[j] = anchor
            if model.jnt_type[j] == JNT_SLIDE:
                axis = model.jnt_slide_axis_xz[j]
                slide_axes[j] = {}
                feats.add_rotated(slide_axes[j], theta, axis)
                feats.add_rotated(pos, theta, axis, scale_feature=j)          # + R axis q_j
                feats.add_rotated(pos, theta, -float(model.qpos0[j]) * axis)  # - R axis q0_j
            elif model.jnt_type[j] == JNT_HINGE:
                row = zero_row.copy()
                row[j] = model.jnt_hinge_sign[j]
                theta = theta.plus(row, -float(model.jnt_hinge_sign[j] * model.qpos0[j]))
                pos = dict(anchor)
                feats.add_rotated(pos, theta, -model.jnt_anchor_xz[j])
        body_origin.append(pos)
        body_angle.append(theta)

    com = [dict(body_origin[b]) for b in range(nb)]
    for b in range(1, nb):
        feats.add_rotated(com[b], body_angle[b], model.body_com_xz[b])
    roots = sorted(set(model.body_root[1:]))
    tree_com = []
    for r in roots:
        members = [b for b in range(1, nb) if model.body_root[b] == r]
        total = float(sum(model.body_mass[b] for b in members))
        tree_com.append(_sum(*[_scale(com[b], float(model.body_mass[b]) / max(total, 1e-300)) for b in members]))
    body_tree = np.array([-1] + [roots.index(model.body_root[b]) for b in range(1, nb)])

    def relative_to_c(expr: dict, body: int) -> dict:
        # Moving bodies: relative to their tree's COM (exact cancellation of large coordinates).
        if model.body_last_dof[body] < 0:
            return expr
        return _sum(expr, _scale(tree_com[body_tree[body]], -1.0))

    rotation = []  # R(theta_b) (1, 0) = (cos theta_b, -sin theta_b)
    for b in range(nb):
        e: dict = {}
        feats.add_rotated(e, body_angle[b], np.array([1.0, 0.0]))
        rotation.append(e)
    com_offset = [{}] + [relative_to_c(com[b], b) for b in range(1, nb)]
    cdof_linear = []
    for j in range(model.njnt):
        if model.jnt_type[j] == JNT_HINGE:
            r = _scale(relative_to_c(anchors[j], model.jnt_body[j]), -1.0)  # c - anchor
            s = float(model.jnt_hinge_sign[j])
            cdof_linear.append({k: s * np.array([v[1], -v[0]]) for k, v in r.items()})
        else:
            cdof_linear.append(slide_axes[j])
    geom_center, geom_center_rel, geom_axis = [], [], []
    for g in range(model.ngeom):
        b = model.geom_body[g]
        e = dict(body_origin[b])
        feats.add_rotated(e, body_angle[b], model.geom_offset[g][[0, 2]])
        geom_center.append(e)
        geom_center_rel.append(relative_to_c(e, b))
        a: dict = {}
        feats.add_rotated(a, body_angle[b], model.geom_rot[g][[0, 2], 2])
        geom_axis.append(a)

    nclass = len(feats.angle_rows)
    angle_rows = np.zeros((nclass, nq))
    for key, k in feats.angle_rows.items():
        angle_rows[k] = np.array(key)
    rot = sorted(feats.rot_slides, key=feats.rot_slides.get)

    nv = model.nv
    body_chain = np.zeros((nb, nv))
    for b in range(nb):
        for j in model.body_chain(b):
            body_chain[b, j] = 1.0
    strict = np.zeros((nv, nv))
    for j in range(nv):
        for k in model.dof_chain(j)[1:]:
            strict[j, k] = 1.0
    subtree = np.zeros((nb, nb))
    for k in range(1, nb):
        b = k
        while b > 0:
            subtree[b, k] = 1.0
            b = model.body_parent[b]
    pattern = [(i, j) for i in range(nv) for j in model.dof_chain(i)]
    pattern_index = {}
    dense = np.full((nv, nv), len(pattern))
    for index, (i, j) in enumerate(pattern):
        dense[i, j] = dense[j, i] = index
        pattern_index[(i, j)] = pattern_index[(j, i)] = index
    collision_geoms = sorted({g for pair in model.contact_pairs for g in pair})
    return TreeMaps(
        angle_rows=angle_rows,
        const_slide_joints=np.array(sorted(feats.const_slides, key=feats.const_slides.get), dtype=int),
        rot_slide_class=np.array([k for k, _ in rot], dtype=int),
        rot_slide_joint=np.array([j for _, j in rot], dtype=int),
        expressions=dict(body_origin=body_origin, body_com=com, body_rotation=rotation, tree_com=tree_com,
                         joint_anchor=anchors, com_offset=com_offset, cdof_linear=cdof_linear,
                         geom_center=geom_center, geom_center_rel=geom_center_rel, geom_axis=geom_axis,
                         collision_center=[geom_center[g] for g in collision_geoms],
                         collision_center_rel=[geom_center_rel[g] for g in collision_geoms],
                         collision_axis=[geom_axis[g] for g in collision_geoms]),
        feature_names=feats.names(),
        dof_angular=model.jnt_hinge_sign.copy(), body_tree=body_tree,
        body_chain=body_chain, dof_strict_chain=strict, subtree=subtree, dof_body=np.array(model.dof_body),
        pattern_i=np.array([i for i, _ in pattern], dtype=int), pattern_j=np.array([j for _, j in pattern], dtype=int),
        pattern_index=pattern_index, dense_from_pattern=dense, collision_geoms=np.array(collision_geoms, dtype=int))
