"""Narrow-phase collision: candidate contacts for every geom pair the model can ever pair.

Each supported pair type has a function that returns a fixed number of candidate contacts
(static shapes), each with its signed distance; whether a candidate becomes a constraint is
decided later from its distance and the pair's margin. ``COLLISION_FUNCTIONS`` is the dispatch
table; adding a geom pair type means adding an entry (and its key in
model.SUPPORTED_COLLISION_PAIRS). Arrays are batch-last.
"""

from __future__ import annotations

from typing import Callable

import jax.numpy as jnp
import numpy as np
from flax import struct

from cheetahjax.physics.kinematics import Kinematics
from cheetahjax.physics.model import GEOM_CAPSULE, GEOM_PLANE, PlanarModel

Array = jnp.ndarray


@struct.dataclass
class Contacts:
    """Candidate contacts in pair order (MuJoCo's geom1 < geom2 order within a pair)."""

    dist: Array      # (ncand, ...)       signed distance, negative = penetration (MuJoCo contact.dist)
    pos: Array       # (ncand, 3, ...)    contact point (MuJoCo contact.pos)
    pos_rel: Array   # (ncand, 2, ...)    (x, z) of the contact point relative to the moving tree's c
    frame: Array     # (ncand, 3, 3, ...) rows: normal (from geom1 into geom2), tangent1, tangent2
    pair: tuple[int, ...] = struct.field(pytree_node=False)  # index into model.contact_pairs


def _geom_frame_axis(model: PlanarModel, kin: Kinematics, geom: int) -> tuple[Array, Array, Array]:
    """3D z axis of a geom's frame: (x, z) from the kinematics, y constant in a planar model."""
    index = int(np.searchsorted(model.maps.collision_geoms, geom))
    axis = kin.geom_axis[index]
    return axis[0], jnp.full_like(axis[0], model.geom_rot[geom][1, 2]), axis[1]


def _geom_center(model: PlanarModel, kin: Kinematics, geom: int) -> tuple[tuple, tuple]:
    index = int(np.searchsorted(model.maps.collision_geoms, geom))
    center, rel = kin.geom_center[index], kin.geom_center_rel[index]
    y = jnp.full_like(center[0], model.body_y[model.geom_body[geom]] + model.geom_offset[geom][1])
    return (center[0], y, center[1]), (rel[0], rel[1])


def _dot(a: tuple, b: tuple) -> Array:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: tuple, b: tuple) -> tuple:
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


def plane_capsule(model: PlanarModel, kin: Kinematics, plane: int, capsule: int) -> tuple:
    """Two candidates: one per end sphere of the capsule, the +half-length end first."""
    normal = _geom_frame_axis(model, kin, plane)
    plane_point, _ = _geom_center(model, kin, plane)
    axis = _geom_frame_axis(model, kin, capsule)
    center, center_rel = _geom_center(model, kin, capsule)
    dtype = normal[0].dtype
    radius = np.asarray(model.geom_size[capsule, 0], dtype)
    half_length = np.asarray(model.geom_size[capsule, 1], dtype)
    # Friction directions: the capsule axis projected on the plane (in-plane fallback if vertical).
    along = _dot(axis, normal)
    projected = tuple(a - along * n for a, n in zip(axis, normal))
    norm = jnp.sqrt(_dot(projected, projected))
    ok = norm > 1e-12
    safe = jnp.where(ok, norm, 1.0)
    fallback = (normal[2], jnp.zeros_like(normal[0]), -normal[0])
    tangent1 = tuple(jnp.where(ok, p / safe, f) for p, f in zip(projected, fallback))
    tangent2 = _cross(normal, tangent1)
    frame = jnp.stack([jnp.stack(normal), jnp.stack(tangent1), jnp.stack(tangent2)])
    dists, points, points_rel = [], [], []
    for end in (1.0, -1.0):
        sphere = tuple(c + end * half_length * a for c, a in zip(center, axis))
        dist = _dot(tuple(s - p for s, p in zip(sphere, plane_point)), normal) - radius
        # Midway between the sphere's deepest point and the plane.
        depth = 0.5 * dist + radius
        dists.append(dist)
        points.append(jnp.stack([s - n * depth for s, n in zip(sphere, normal)]))
        rel_x = center_rel[0] + end * half_length * axis[0] - normal[0] * depth
        rel_z = center_rel[1] + end * half_length * axis[2] - normal[2] * depth
        points_rel.append(jnp.stack([rel_x, rel_z]))
    return jnp.stack(dists), jnp.stack(points), jnp.stack(points_rel), jnp.stack([frame, frame])


def plane_capsule_tangent2_leaves_plane(model: PlanarModel, plane: int, capsule: int) -> bool:
    """True if the second friction direction is always perpendicular to the x-z plane: plane
    normal and capsule axis both in the x-z plane (then tangent1 is too, and tangent2 = +-y)."""
    return model.geom_rot[plane][1, 2] == 0.0 and model.geom_rot[capsule][1, 2] == 0.0


def tangent2_leaves_plane(model: PlanarModel, pair: int) -> bool:
    g1, g2 = model.contact_pairs[pair]
    return COLLISION_FUNCTIONS[(model.geom_type[g1], model.geom_type[g2])][2](model, g1, g2)


# (geom type 1, geom type 2) -> (candidates per pair, collision function, tangent2-leaves-plane test)
COLLISION_FUNCTIONS: dict[tuple[int, int], tuple[int, Callable, Callable]] = {
    (GEOM_PLANE, GEOM_CAPSULE): (2, plane_capsule, plane_capsule_tangent2_leaves_plane),
}


def collide(model: PlanarModel, kin: Kinematics) -> Contacts:
    parts, pair_of = [], []
    for index, (g1, g2) in enumerate(model.contact_pairs):
        count, function, _ = COLLISION_FUNCTIONS[(model.geom_type[g1], model.geom_type[g2])]
        parts.append(function(model, kin, g1, g2))
        pair_of.extend([index] * count)
    if not parts:
        batch = kin.cdof.shape[2:]
        dtype = kin.cdof.dtype
        return Contacts(dist=jnp.zeros((0,) + batch, dtype), pos=jnp.zeros((0, 3) + batch, dtype),
                        pos_rel=jnp.zeros((0, 2) + batch, dtype), frame=jnp.zeros((0, 3, 3) + batch, dtype), pair=())
    dist, pos, pos_rel, frame = (jnp.concatenate(x) for x in zip(*parts))
    return Contacts(dist=dist, pos=pos, pos_rel=pos_rel, frame=frame, pair=tuple(pair_of))
