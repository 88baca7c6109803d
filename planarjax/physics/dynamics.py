"""Smooth dynamics: joint-space inertia (composite rigid body), bias forces (recursive
Newton-Euler), passive and actuator forces. Each matches one MuJoCo stage. Batch-last arrays.

Joint-space matrices are kept as their tree-pattern entries (npat, ...): entry p is (i, j) =
(maps.pattern_i[p], maps.pattern_j[p]) with j = i or an ancestor of i; all other entries are 0.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from planarjax.physics import spatial, treeops
from planarjax.physics.kinematics import Kinematics
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import PlanarModel
from planarjax.physics.spatial import lead, sum_axis, unstack

Array = jnp.ndarray


def joint_space_values(model: PlanarModel, cdof: Array, body_sym: Array) -> Array:
    """Pattern entries of sum_b S_b^T W_b S_b for per-body symmetric 3x3s W_b (nbody, 6, ...).

    Composite rigid body algorithm: W summed over each subtree, then entry (i, j) is
    cdof_i . Wcomp_body(i) cdof_j. With W the body inertias this is the mass matrix; adding the
    constraint terms gives the Newton Hessian.
    """
    maps = tree_maps(model)
    composite = treeops.subtree_sum(model, body_sym)                                 # (nbody, 6, ...)
    force = spatial.sym_times(unstack(composite[maps.dof_body]), unstack(cdof))       # 3 x (nv, ...)
    cdof_j = cdof[maps.pattern_j]
    return sum(force[k][maps.pattern_i] * cdof_j[:, k] for k in range(3))


def add_diagonal(model: PlanarModel, values: Array, diagonal: Array) -> Array:
    """Pattern entries plus a diagonal (nv, ...)."""
    rows = np.array([tree_maps(model).pattern_index[(i, i)] for i in range(model.nv)])
    return values.at[rows].add(diagonal)


def dense(model: PlanarModel, values: Array) -> Array:
    """(nv, nv, ...) dense symmetric matrix from pattern entries."""
    padded = jnp.concatenate([values, jnp.zeros((1,) + values.shape[1:], values.dtype)])
    return padded[tree_maps(model).dense_from_pattern]


def pattern_matvec(model: PlanarModel, values: Array, x: Array) -> Array:
    """(symmetric pattern matrix) @ x for x (nv, ...)."""
    maps = tree_maps(model)
    lower = values * x[maps.pattern_j]                                  # entry (i, j) times x_j -> row i
    off = maps.pattern_i != maps.pattern_j
    upper = values[off] * x[maps.pattern_i[off]]                        # entry (j, i) times x_i -> row j
    return (treeops.segment_sum(lower, maps.pattern_i, model.nv)
            + treeops.segment_sum(upper, maps.pattern_j[off], model.nv))


def mass_values(model: PlanarModel, kin: Kinematics) -> Array:
    """Pattern entries of the joint-space inertia M with armature (mj_crb, then mj_fullM's values)."""
    body_sym = jnp.stack(spatial.rigid_to_sym(unstack(kin.body_inertia)), 1)
    values = joint_space_values(model, kin.cdof, body_sym)
    armature = lead(model.dof_armature, values.ndim, values.dtype)
    return add_diagonal(model, values, jnp.broadcast_to(armature, (model.nv,) + values.shape[1:]))


def bias_force(model: PlanarModel, kin: Kinematics, cvel: Array, cdof_dot: Array, qvel: Array) -> Array:
    """Coriolis, centrifugal and gravity forces (MuJoCo qfrc_bias): RNE with zero joint acceleration."""
    maps = tree_maps(model)
    dtype = qvel.dtype
    # Gravity enters as a fictitious upward acceleration of the world.
    gravity_acc = lead(np.concatenate([[0.0], -model.gravity_xz]), cvel.ndim - 1, dtype)
    acc = gravity_acc + treeops.body_chain_sum(model, cdof_dot * qvel[:, None])      # (nbody, 3, ...)
    inertia = unstack(kin.body_inertia)
    velocity = unstack(cvel)
    momentum = spatial.inertia_times_motion(inertia, velocity)
    body_force = [a + b for a, b in zip(spatial.inertia_times_motion(inertia, unstack(acc)),
                                        spatial.cross_force(velocity, momentum))]
    subtree_force = treeops.subtree_sum(model, jnp.stack(body_force, 1))
    return sum_axis(kin.cdof * subtree_force[maps.dof_body], 1)


def passive_force(model: PlanarModel, qpos: Array, qvel: Array) -> Array:
    """Joint springs and dampers (MuJoCo qfrc_passive for this feature set)."""
    dtype = qpos.dtype
    stiffness = lead(model.jnt_stiffness, qpos.ndim, dtype)
    spring_ref = lead(model.qpos_spring, qpos.ndim, dtype)
    return -stiffness * (qpos - spring_ref) - lead(model.dof_damping, qvel.ndim, dtype) * qvel


def actuator_force(model: PlanarModel, ctrl: Array, qpos: Array | None = None, qvel: Array | None = None) -> Array:
    """Generalized force of the actuators (MuJoCo qfrc_actuator) for fixed-gain actuators on joints:
    motors (force = gain u) and position servos (affine bias: force = gain u + b0 + b1 length +
    b2 velocity, with length = gear q and velocity = gear qvel). ``qpos``/``qvel`` are needed only
    when the model has biased actuators.

    Out-of-range controls are clamped to ctrlrange where ctrllimited, as MuJoCo does.
    """
    dtype = ctrl.dtype
    c = lambda x: lead(x, ctrl.ndim, dtype)
    u = jnp.where(c(model.actuator_ctrllimited).astype(bool),
                  jnp.clip(ctrl, c(model.actuator_ctrlrange[:, 0]), c(model.actuator_ctrlrange[:, 1])), ctrl)
    force = c(model.actuator_gain) * u
    gear = lead(model.actuator_gear, ctrl.ndim, dtype)
    if any(model.actuator_has_bias):
        dofs = np.asarray(model.actuator_dof, dtype=int)
        length, velocity = gear * qpos[dofs], gear * qvel[dofs]
        bias = c(model.actuator_biasprm[:, 0]) + c(model.actuator_biasprm[:, 1]) * length
        if np.any(model.actuator_biasprm[:, 2]):
            bias = bias + c(model.actuator_biasprm[:, 2]) * velocity
        force = force + jnp.where(c(model.actuator_has_bias), bias, 0.0)
    force = jnp.where(c(model.actuator_forcelimited).astype(bool),
                      jnp.clip(force, c(model.actuator_forcerange[:, 0]), c(model.actuator_forcerange[:, 1])), force)
    return treeops.segment_sum(gear * force, np.asarray(model.actuator_dof, dtype=int), model.nv)
