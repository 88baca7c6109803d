"""Constraint rows with MuJoCo's soft-constraint model (joint limits and pyramidal contacts).

Rows come in two kinds, with static structure and masked by ``enabled``:

- dof rows, Jacobian ``sign * e_dof`` (joint limits). When a joint's range is wider than twice
  its margin only one side can be violated, so one row with a sign chosen from the nearer limit
  stands for MuJoCo's lower/upper pair; otherwise both rows are kept.
- body rows, Jacobian ``psi . S_body`` where S_body maps joint rates to the body's planar motion
  vector and psi a planar force direction (contacts of a moving body with a static geom). A
  pyramidal contact has 4 edge rows n +- mu t1, n +- mu t2. When a tangent is perpendicular to
  the plane of motion (t2 for a capsule on a plane, both in the x-z plane; t1 for the sphere
  contacts, whose frame MuJoCo builds from the world y axis) both of its edges equal n: they are
  kept as one row counted twice (``multiplicity``), which is the same cost function. The moving
  geom may be either geom of the pair (the Jacobian then changes sign).
  Body rows are sorted by body, then candidate contact, then edge.

Writing contact Jacobians through the body's motion subspace lets the solver apply J, J^T and
J^T D J with tree sums (dynamics.joint_space_values) instead of dense nefc x nv products.
Arrays are batch-last.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from planarjax.physics import spatial, treeops
from planarjax.physics.collision import Contacts, out_of_plane_tangent
from planarjax.physics.kinematics import Kinematics, body_motion
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import MAXIMP, MINIMP, MINVAL, PlanarModel
from planarjax.physics.spatial import lead, sum_axis, unstack

Array = jnp.ndarray

LIMIT_LOWER, LIMIT_UPPER, LIMIT_NEARER = 0, 1, 2  # which side a dof row tests


@struct.dataclass
class ConstraintRows:
    # static layout
    dof_row_dof: tuple[int, ...] = struct.field(pytree_node=False)
    dof_row_side: tuple[int, ...] = struct.field(pytree_node=False)     # LIMIT_* per dof row
    body_row_body: tuple[int, ...] = struct.field(pytree_node=False)
    body_row_contact: tuple[int, ...] = struct.field(pytree_node=False)  # candidate contact of each body row
    body_row_edges: tuple[tuple[int, ...], ...] = struct.field(pytree_node=False)  # MuJoCo edge(s) of the row
    multiplicity: tuple[int, ...] = struct.field(pytree_node=False)     # MuJoCo rows each row stands for
    # values
    dof_row_sign: Array = None   # (ndof_rows, ...) +1 lower side, -1 upper side
    body_row_psi: Array = None   # (nbody_rows, 3, ...)
    enabled: Array = None        # (nrows, ...) the row exists in MuJoCo's efc arrays
    pos: Array = None            # (nrows, ...) efc_pos
    margin: Array = None         # (nrows, ...) efc_margin
    vel: Array = None            # (nrows, ...) efc_vel = J qvel
    aref: Array = None           # (nrows, ...) efc_aref
    R: Array = None              # (nrows, ...) efc_R (regulariser)
    D: Array = None              # (nrows, ...) efc_D = 1/R where enabled, 0 elsewhere

    @property
    def num_dof_rows(self) -> int:
        return len(self.dof_row_dof)

    @property
    def weight(self) -> Array:
        """D times multiplicity: the row's weight in the solver's cost."""
        mult = np.asarray(self.multiplicity, dtype=float)
        return self.D if np.all(mult == 1) else lead(mult, self.D.ndim, self.D.dtype) * self.D

    def dense_jacobian(self, model: PlanarModel, cdof: Array) -> Array:
        """The Jacobian as a dense (nrows, nv, ...) array (MuJoCo's efc_J), for tests and diagnostics."""
        eye = jnp.eye(model.nv, dtype=cdof.dtype).reshape((model.nv, model.nv) + (1,) * (cdof.ndim - 2))
        columns = [self.jac_times(model, cdof, jnp.broadcast_to(eye[:, j], (model.nv,) + cdof.shape[2:]))
                   for j in range(model.nv)]
        return jnp.stack(columns, 1)

    def mujoco_order(self) -> list[tuple[int, int]]:
        """(row, copy) pairs listing our rows in MuJoCo's efc order when all are enabled: limits by
        joint (lower side before upper), then contacts by candidate, edges in order; a row with
        multiplicity 2 appears twice. Filter by ``enabled`` to compare with MuJoCo's arrays."""
        n_dof = self.num_dof_rows
        order = [(r, 0) for r in range(n_dof)]
        body = sorted(range(len(self.body_row_body)), key=lambda r: (self.body_row_contact[r], self.body_row_edges[r]))
        for r in body:
            order += [(n_dof + r, k) for k in range(len(self.body_row_edges[r]))]
        return order

    def jac_times(self, model: PlanarModel, cdof: Array, x: Array) -> Array:
        """J x (nrows, ...) for joint-space x (nv, ...)."""
        parts = []
        if self.dof_row_dof:
            parts.append(self.dof_row_sign * x[np.asarray(self.dof_row_dof)])
        if self.body_row_body:
            motion = body_motion(model, cdof, x)[np.asarray(self.body_row_body)]
            parts.append(sum_axis(self.body_row_psi * motion, 1))
        return jnp.concatenate(parts) if parts else jnp.zeros((0,) + x.shape[1:], x.dtype)

    def jac_transpose_times(self, model: PlanarModel, cdof: Array, f: Array) -> Array:
        """J^T f (nv, ...) for row values f (nrows, ...)."""
        n_dof = self.num_dof_rows
        out = jnp.zeros((model.nv,) + f.shape[1:], f.dtype)
        if n_dof:
            out = out + treeops.segment_sum(self.dof_row_sign * f[:n_dof], np.asarray(self.dof_row_dof), model.nv)
        if self.body_row_body:
            maps = tree_maps(model)
            wrench = treeops.segment_sum(self.body_row_psi * f[n_dof:, None], np.asarray(self.body_row_body), model.nbody)
            subtree_wrench = treeops.subtree_sum(model, wrench)
            out = out + sum_axis(cdof * subtree_wrench[maps.dof_body], 1)
        return out

    def hessian_terms(self, model: PlanarModel, weight: Array) -> tuple[Array, Array]:
        """(per-body symmetric 3x3s (nbody, 6, ...), per-dof diagonal (nv, ...)) with
        J^T diag(weight) J = sum_b S_b^T W_b S_b + diag(dof_diag)."""
        n_dof = self.num_dof_rows
        diag = jnp.zeros((model.nv,) + weight.shape[1:], weight.dtype)
        if n_dof:
            diag = diag + treeops.segment_sum(weight[:n_dof], np.asarray(self.dof_row_dof), model.nv)  # sign^2 = 1
        body_sym = jnp.zeros((model.nbody, 6) + weight.shape[1:], weight.dtype)
        if self.body_row_body:
            outer = jnp.stack(spatial.sym_outer(weight[n_dof:], unstack(self.body_row_psi)), 1)
            body_sym = treeops.segment_sum(outer, np.asarray(self.body_row_body), model.nbody)
        return body_sym, diag


def impedance(pos: Array, margin: Array, solimp: np.ndarray) -> Array:
    """MuJoCo's constraint impedance d(pos) in (0, 1) for solimp rows (dmin, dmax, width, mid, power)."""
    dtype = pos.dtype
    c = lambda x: lead(x, pos.ndim, dtype)
    dmin = np.clip(solimp[:, 0], MINIMP, MAXIMP)
    dmax = np.clip(solimp[:, 1], MINIMP, MAXIMP)
    width = np.maximum(solimp[:, 2], 0.0)
    mid = np.clip(solimp[:, 3], MINIMP, MAXIMP)
    power = np.maximum(solimp[:, 4], 1.0)
    x = jnp.abs(pos - margin) / c(np.where(width > MINVAL, width, 1.0))
    if np.all(power == 2.0):  # the usual case: squares instead of pow
        below_mid = x * x / c(mid)
        above_mid = 1.0 - (1.0 - x) * (1.0 - x) / c(1.0 - mid)
    else:
        below_mid = x ** c(power) / c(mid ** (power - 1))
        above_mid = 1.0 - (1.0 - x) ** c(power) / c((1.0 - mid) ** (power - 1))
    y = jnp.where(c(power == 1.0), x, jnp.where(x <= c(mid), below_mid, above_mid))
    d = c(dmin) + y * c(dmax - dmin)
    d = jnp.where(x >= 1.0, c(dmax), jnp.where(x <= 0.0, c(dmin), d))
    constant = (dmin == dmax) | (width <= MINVAL)
    return jnp.where(c(constant), c(0.5 * (dmin + dmax)), d)


def stiffness_damping(model: PlanarModel, solref: np.ndarray, solimp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, B) of aref = -B vel - K d (pos - margin); model constants, computed in numpy."""
    dmax = np.clip(solimp[:, 1], MINIMP, MAXIMP)
    timeconst, dampratio = solref[:, 0], solref[:, 1]
    standard = timeconst > 0
    # refsafe: a time constant below two timesteps cannot be resolved by the integrator.
    timeconst_safe = np.maximum(timeconst, 2.0 * float(model.timestep))
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(standard, 1.0 / (dmax * dmax * timeconst_safe ** 2 * dampratio ** 2), -timeconst / (dmax * dmax))
        b = np.where(standard, 2.0 / (dmax * timeconst_safe), -dampratio / dmax)
    return k, b


def _limit_layout(model: PlanarModel) -> tuple[np.ndarray, np.ndarray]:
    joints, sides = [], []
    for j in model.limited_joints:
        lo, hi = model.jnt_range[j]
        if hi - lo > 2.0 * model.jnt_margin[j]:
            joints.append(j)
            sides.append(LIMIT_NEARER)
        else:
            joints += [j, j]
            sides += [LIMIT_LOWER, LIMIT_UPPER]
    return np.asarray(joints, dtype=int), np.asarray(sides, dtype=int)


def make_constraints(model: PlanarModel, qpos: Array, qvel: Array, kin: Kinematics,
                     contacts: Contacts) -> ConstraintRows:
    dtype = qpos.dtype
    batch = qpos.shape[1:]
    c = lambda x: lead(x, 1 + len(batch), dtype)
    # ---- joint limits -------------------------------------------------------------------------
    limit_joint, limit_side = _limit_layout(model)
    q = qpos[limit_joint]
    below = q - c(model.jnt_range[limit_joint, 0])   # distance above the lower limit
    above = c(model.jnt_range[limit_joint, 1]) - q   # distance below the upper limit
    use_lower = jnp.where(c(limit_side == LIMIT_NEARER), below <= above, c(limit_side == LIMIT_LOWER))
    limit_pos = jnp.where(use_lower, below, above)
    limit_sign = jnp.where(use_lower, 1.0, -1.0).astype(dtype)

    # ---- contacts: pyramid edges, edge-major (all candidates' edge 0, then edge 1, ...) -------
    cand_pair = np.asarray(contacts.pair, dtype=int)
    ncand = len(cand_pair)
    if ncand:
        # The moving geom's body carries the contact; MuJoCo's Jacobian is J(geom2) - J(geom1), so a
        # contact whose first geom moves enters with the opposite sign.
        moving = np.array([model.pair_moving[p] for p in cand_pair])
        cand_body = np.array([model.geom_body[model.contact_pairs[p][m]] for p, m in zip(cand_pair, moving)])
        flat = np.array([out_of_plane_tangent(model, p) for p in cand_pair])
        mu1, mu2 = c(model.pair_friction[cand_pair, 0]), c(model.pair_friction[cand_pair, 1])
        rel_x, rel_z = contacts.pos_rel[:, 0], contacts.pos_rel[:, 1]
        frame = contacts.frame
        # psi of the normal and the two tangents: each 3 x (ncand, ...)
        normal, t1, t2 = (spatial.point_direction(frame[:, k, 0], frame[:, k, 2], rel_x, rel_z) for k in range(3))
        if np.any(moving == 0):  # (models where the second geom always moves, like HalfCheetah, skip this)
            side = c(np.where(moving == 1, 1.0, -1.0))
            normal, t1, t2 = (tuple(side * v for v in psi) for psi in (normal, t1, t2))
        # A tangent perpendicular to the plane has psi = 0: its two edges both equal n and are kept as
        # one row counted twice.
        edge_psi = [jnp.stack([n + mu1 * t for n, t in zip(normal, t1)], 1),
                    jnp.stack([n + mu2 * t for n, t in zip(normal, t2)], 1)]
        edges = [[(0, 1) if f == 1 else (0,) for f in flat], [(2, 3) if f == 2 else (2,) for f in flat]]
        row_cand = [np.arange(ncand)] * 2
        for tangent, mu, tangent_index, minus_edge in ((t1, mu1, 1, 1), (t2, mu2, 2, 3)):
            keep = np.flatnonzero(flat != tangent_index)
            if len(keep):
                edge_psi.append(jnp.stack([n[keep] - mu[keep] * t[keep] for n, t in zip(normal, tangent)], 1))
                edges.append([(minus_edge,)] * len(keep))
                row_cand.append(keep)
        row_edges = [e for group in edges for e in group]
        row_cand = np.concatenate(row_cand)
        row_body = cand_body[row_cand]
        # Sort the rows by body (then contact, edge) so that per-body sums are contiguous slices.
        order = np.lexsort(([e[0] for e in row_edges], row_cand, row_body))
        psi_rows = jnp.concatenate(edge_psi)[order]
        row_edges = [row_edges[i] for i in order]
        row_cand, row_body = row_cand[order], row_body[order]
        row_mult = [len(e) for e in row_edges]
        # Per-candidate quantities, repeated for the edges (d is shared by a contact's rows).
        contact_pos = contacts.dist[row_cand]
        row_pair = cand_pair[row_cand]
        contact_margin = (model.pair_margin - model.pair_gap)[row_pair]
        contact_solref, contact_solimp = model.pair_solref[row_pair], model.pair_solimp[row_pair]
        static_body = np.array([model.geom_body[model.contact_pairs[p][1 - model.pair_moving[p]]] for p in row_pair])
        tran = model.body_invweight0[row_body, 0] + model.body_invweight0[static_body, 0]
        mu0 = model.pair_friction[row_pair, 0]
        # Approximate diagonal of A for a pyramid edge, and the pyramid's R scaling 2 mu^2.
        contact_invweight = tran * (1.0 + mu0 * mu0)
        contact_r_scale = 2.0 * mu0 * mu0
    else:
        psi_rows = jnp.zeros((0, 3) + batch, dtype)
        row_body = row_cand = np.zeros(0, dtype=int)
        row_edges, row_mult = [], []
        contact_pos = jnp.zeros((0,) + batch, dtype)
        contact_margin = np.zeros(0)
        contact_solref, contact_solimp = np.zeros((0, 2)), np.zeros((0, 5))
        contact_invweight = contact_r_scale = np.zeros(0)

    pos = jnp.concatenate([limit_pos, contact_pos])
    margin_const = np.concatenate([model.jnt_margin[limit_joint], contact_margin])
    margin = c(margin_const)
    solref = np.concatenate([model.jnt_solref[limit_joint], contact_solref])
    solimp = np.concatenate([model.jnt_solimp[limit_joint], contact_solimp])
    invweight = np.concatenate([model.dof_invweight0[limit_joint], contact_invweight])
    r_scale = np.concatenate([np.ones(len(limit_joint)), contact_r_scale])
    enabled = pos < margin

    rows = ConstraintRows(dof_row_dof=tuple(int(j) for j in limit_joint),
                          dof_row_side=tuple(int(s) for s in limit_side),
                          body_row_body=tuple(int(b) for b in row_body),
                          body_row_contact=tuple(int(k) for k in row_cand),
                          body_row_edges=tuple(row_edges),
                          multiplicity=tuple([1] * len(limit_joint) + row_mult),
                          dof_row_sign=limit_sign, body_row_psi=psi_rows)
    vel = rows.jac_times(model, kin.cdof, qvel)
    d = impedance(pos, margin, solimp)
    k, b = stiffness_damping(model, solref, solimp)
    aref = -c(b) * vel - c(k) * d * (pos - margin)
    regulariser = c(r_scale) * jnp.maximum(MINVAL, (1.0 - d) / d * c(invweight))
    D = jnp.where(enabled, 1.0 / regulariser, 0.0)
    return rows.replace(enabled=enabled, pos=pos, margin=jnp.broadcast_to(margin, pos.shape), vel=vel, aref=aref,
                        R=regulariser, D=D)
