"""Position and velocity stages (MuJoCo's mj_kinematics, mj_comPos, mj_comVel) for a planar tree.

Positions come from one matrix product with a feature vector of qpos (see maps.py): the
trigonometric functions are evaluated once per distinct angle, and every point, axis and dof
motion vector is a linear function of those values. Arrays are batch-last (see spatial.py).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from planarjax.physics import spatial, treeops
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import PlanarModel
from planarjax.physics.spatial import lead, matmul_const

Array = jnp.ndarray

_DYNAMICS_GROUPS = ("com_offset", "cdof_linear", "collision_center", "collision_center_rel", "collision_axis")
_POSE_GROUPS = ("body_origin", "body_com", "body_rotation", "joint_anchor", "geom_center")


@struct.dataclass
class Kinematics:
    """What the dynamics needs from the positions (batch-last)."""

    body_inertia: Array     # (nbody, 4, ...) rigid inertia about c: (m, m d_x, m d_z, I_c), d = com - c
    cdof: Array             # (nv, 3, ...)    motion vector of each dof about its tree's c (MuJoCo cdof)
    geom_center: Array      # (ncg, 2, ...)   (x, z) centres of the collision geoms (maps.collision_geoms)
    geom_center_rel: Array  # (ncg, 2, ...)   the same relative to the geom's tree c (absolute if static)
    geom_axis: Array        # (ncg, 2, ...)   (x, z) of the geom frame's z axis (its y part is constant)


@struct.dataclass
class Poses:
    """World poses in MuJoCo's terms (for tests, rendering and diagnostics)."""

    body_xz: Array        # (nbody, 2, ...) body frame origin (MuJoCo xpos x/z)
    body_cos: Array       # (nbody, ...)    cos and sin of the body frame's rotation about y
    body_sin: Array       # (nbody, ...)
    body_com_xz: Array    # (nbody, 2, ...) centre of mass (MuJoCo xipos x/z)
    jnt_anchor_xz: Array  # (njnt, 2, ...)  (MuJoCo xanchor x/z)
    geom_pos: Array       # (ngeom, 3, ...) (MuJoCo geom_xpos)
    geom_mat: Array       # (ngeom, 3, 3, ...) (MuJoCo geom_xmat)


def features(model: PlanarModel, qpos: Array) -> Array:
    """The vector F (nfeat, ...) with points = point_map @ F."""
    maps = tree_maps(model)
    angles = matmul_const(maps.angle_rows, qpos)
    cos, sin = jnp.cos(angles), jnp.sin(angles)
    parts = [jnp.ones((1,) + qpos.shape[1:], qpos.dtype), cos, sin, qpos[maps.const_slide_joints]]
    if len(maps.rot_slide_joint):
        slide_q = qpos[maps.rot_slide_joint]
        parts += [cos[maps.rot_slide_class] * slide_q, sin[maps.rot_slide_class] * slide_q]
    return jnp.concatenate(parts)


def _points(model: PlanarModel, qpos: Array, groups: tuple[str, ...]) -> dict[str, Array]:
    """{group: (n, 2, ...) points}."""
    matrix, index = tree_maps(model).point_map(groups)
    values = matmul_const(matrix, features(model, qpos))
    n = matrix.shape[0] // 2
    return {g: jnp.stack([values[:n][s], values[n:][s]], 1) for g, s in index.items()}


def forward_kinematics(model: PlanarModel, qpos: Array) -> Kinematics:
    maps = tree_maps(model)
    dtype = qpos.dtype
    p = _points(model, qpos, _DYNAMICS_GROUPS)
    dx, dz = p["com_offset"][:, 0], p["com_offset"][:, 1]
    mass = lead(model.body_mass, dx.ndim, dtype)
    inertia_yy = lead(model.body_inertia_yy, dx.ndim, dtype)
    body_inertia = jnp.stack([jnp.broadcast_to(mass, dx.shape), mass * dx, mass * dz,
                              inertia_yy + mass * (dx * dx + dz * dz)], 1)
    angular = jnp.broadcast_to(lead(maps.dof_angular, dx.ndim, dtype), (model.nv,) + dx.shape[1:])
    cdof = jnp.concatenate([angular[:, None], p["cdof_linear"]], 1)
    return Kinematics(body_inertia=body_inertia, cdof=cdof, geom_center=p["collision_center"],
                      geom_center_rel=p["collision_center_rel"], geom_axis=p["collision_axis"])


def rotation_matrix_3d(cos: Array, sin: Array) -> Array:
    """(3, 3, ...) rotation about +y (the only rotation a planar model has)."""
    zero, one = jnp.zeros_like(cos), jnp.ones_like(cos)
    return jnp.stack([jnp.stack([cos, zero, sin]), jnp.stack([zero, one, zero]), jnp.stack([-sin, zero, cos])])


def poses(model: PlanarModel, qpos: Array) -> Poses:
    dtype = qpos.dtype
    p = _points(model, qpos, _POSE_GROUPS)
    body_cos, body_sin = p["body_rotation"][:, 0], -p["body_rotation"][:, 1]
    geom_body = np.asarray(model.geom_body)
    center = p["geom_center"]
    y = lead(model.body_y[geom_body] + model.geom_offset[:, 1], center.ndim - 1, dtype)
    geom_pos = jnp.stack([center[:, 0], jnp.broadcast_to(y, center[:, 0].shape), center[:, 1]], 1)
    body_rot = jnp.moveaxis(rotation_matrix_3d(body_cos[geom_body], body_sin[geom_body]), 2, 0)  # (ng, 3, 3, ...)
    geom_rot = lead(model.geom_rot, body_rot.ndim, dtype)                                        # (ng, 3, 3, 1...)
    geom_mat = jnp.sum(body_rot[:, :, :, None] * geom_rot[:, None, :, :], axis=2)
    return Poses(body_xz=p["body_origin"], body_cos=body_cos, body_sin=body_sin, body_com_xz=p["body_com"],
                 jnt_anchor_xz=p["joint_anchor"], geom_pos=geom_pos, geom_mat=geom_mat)


def body_motion(model: PlanarModel, cdof: Array, rates: Array) -> Array:
    """Motion vector of every body (nbody, 3, ...) when the dofs move at ``rates`` (nv, ...):
    cvel for qvel; the world and static bodies get 0. This is x -> S_b x for all bodies."""
    return treeops.body_chain_sum(model, cdof * rates[:, None])


def com_velocity(model: PlanarModel, cdof: Array, qvel: Array) -> tuple[Array, Array]:
    """(cvel (nbody, 3, ...), cdof_dot (nv, 3, ...)) as MuJoCo's mj_comVel: cdof_dot_j = v x cdof_j
    where v is the motion of dof j's parent dof (the body's velocity before dof j's own part)."""
    rates = cdof * qvel[:, None]
    before = treeops.dof_strict_chain_sum(model, rates)
    cvel = treeops.body_chain_sum(model, rates)
    cdof_dot = jnp.stack(spatial.cross_motion(spatial.unstack(before), spatial.unstack(cdof)), 1)
    return cvel, cdof_dot
