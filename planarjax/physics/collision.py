"""Narrow-phase collision: candidate contacts for every geom pair the model can ever pair.

Each supported pair type has a function that computes, for all pairs of that type at once, a
fixed number of candidate contacts per pair (static shapes) with their signed distances; whether
a candidate becomes a constraint is decided later from its distance and the pair's margin.
``COLLISION_FUNCTIONS`` is the dispatch table; adding a geom pair type means adding an entry
(and its key in model.SUPPORTED_COLLISION_PAIRS). Arrays are batch-last.
"""

from __future__ import annotations

from typing import Callable

import jax.numpy as jnp
import numpy as np
from flax import struct

from planarjax.physics.kinematics import Kinematics
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import GEOM_BOX, GEOM_CAPSULE, GEOM_PLANE, GEOM_SPHERE, PlanarModel
from planarjax.physics.spatial import lead

Array = jnp.ndarray


@struct.dataclass
class Contacts:
    """Candidate contacts in pair order, and within a pair in the collision function's order."""

    dist: Array      # (ncand, ...)       signed distance, negative = penetration (MuJoCo contact.dist)
    pos: Array       # (ncand, 3, ...)    contact point (MuJoCo contact.pos)
    pos_rel: Array   # (ncand, 2, ...)    (x, z) of the contact point relative to the moving tree's c
    frame: Array     # (ncand, 3, 3, ...) rows: normal (from geom1 into geom2), tangent1, tangent2
    pair: tuple[int, ...] = struct.field(pytree_node=False)  # index into model.contact_pairs


class _GeomData:
    """The kinematics of a list of collision geoms as 3-vectors of (n, ...) arrays."""

    def __init__(self, model: PlanarModel, kin: Kinematics, geoms: np.ndarray):
        index = np.searchsorted(tree_maps(model).collision_geoms, geoms)
        dtype = kin.geom_center.dtype
        center, rel, axis = kin.geom_center[index], kin.geom_center_rel[index], kin.geom_axis[index]
        ndim = center.ndim - 1
        y = lead(model.body_y[np.asarray(model.geom_body)[geoms]] + model.geom_offset[geoms, 1], ndim, dtype)
        self.center = (center[:, 0], jnp.broadcast_to(y, center[:, 0].shape), center[:, 1])
        self.center_rel = (rel[:, 0], rel[:, 1])
        axis_y = lead(model.geom_rot[geoms, 1, 2], ndim, dtype)
        self.axis = (axis[:, 0], jnp.broadcast_to(axis_y, axis[:, 0].shape), axis[:, 1])
        self.size = model.geom_size[geoms]
        self.ndim = ndim
        self.dtype = dtype


def _dot(a: tuple, b: tuple) -> Array:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: tuple, b: tuple) -> tuple:
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


def plane_capsule(model: PlanarModel, kin: Kinematics, planes: np.ndarray, capsules: np.ndarray) -> tuple:
    """For each (plane, capsule) pair two candidates, one per end sphere, the +half-length end
    first. Returns (dist (n, 2, ...), pos (n, 2, 3, ...), pos_rel (n, 2, 2, ...), frame (n, 2, 3, 3, ...))."""
    plane, capsule = _GeomData(model, kin, planes), _GeomData(model, kin, capsules)
    normal, axis = plane.axis, capsule.axis
    radius = lead(capsule.size[:, 0], capsule.ndim, capsule.dtype)
    half_length = lead(capsule.size[:, 1], capsule.ndim, capsule.dtype)
    # Friction directions: the capsule axis projected on the plane (in-plane fallback if vertical).
    along = _dot(axis, normal)
    projected = tuple(a - along * n for a, n in zip(axis, normal))
    norm = jnp.sqrt(_dot(projected, projected))
    ok = norm > 1e-12
    safe = jnp.where(ok, norm, 1.0)
    fallback = (normal[2], jnp.zeros_like(normal[0]), -normal[0])
    tangent1 = tuple(jnp.where(ok, p / safe, f) for p, f in zip(projected, fallback))
    tangent2 = _cross(normal, tangent1)
    frame = jnp.stack([jnp.stack(normal, 1), jnp.stack(tangent1, 1), jnp.stack(tangent2, 1)], 1)  # (n, 3, 3, ...)
    dists, points, points_rel = [], [], []
    for end in (1.0, -1.0):
        sphere = tuple(c + end * half_length * a for c, a in zip(capsule.center, axis))
        dist = _dot(tuple(s - p for s, p in zip(sphere, plane.center)), normal) - radius
        # Midway between the sphere's deepest point and the plane.
        depth = 0.5 * dist + radius
        dists.append(dist)
        points.append(jnp.stack([s - n * depth for s, n in zip(sphere, normal)], 1))
        rel_x = capsule.center_rel[0] + end * half_length * axis[0] - normal[0] * depth
        rel_z = capsule.center_rel[1] + end * half_length * axis[2] - normal[2] * depth
        points_rel.append(jnp.stack([rel_x, rel_z], 1))
    return jnp.stack(dists, 1), jnp.stack(points, 1), jnp.stack(points_rel, 1), jnp.stack([frame, frame], 1)


def plane_capsule_out_of_plane_tangent(model: PlanarModel, plane: int, capsule: int) -> int:
    """2 if the second friction direction is always perpendicular to the x-z plane (plane normal
    and capsule axis both in the x-z plane: then tangent1 is too, and tangent2 = +-y), else 0."""
    return 2 if model.geom_rot[plane][1, 2] == 0.0 and model.geom_rot[capsule][1, 2] == 0.0 else 0


# ---- sphere contacts ----------------------------------------------------------------------------
# MuJoCo's sphere collisions return only the normal; the frame is completed as mju_makeFrame does:
# tangent1 = the world y axis made orthogonal to the normal, tangent2 = normal x tangent1. For a
# normal in the x-z plane (the model checks guarantee it) tangent1 is +y, out of the plane.


def _frame_from_normal(normal: tuple) -> Array:
    """(n, 3, 3, ...) rows normal, tangent1, tangent2 (mju_makeFrame's choice of tangent1)."""
    ny = normal[1]
    # y axis minus its normal component; MuJoCo falls back to z when |n_y| >= 0.5 (never in a planar model).
    t1 = (-ny * normal[0], 1.0 - ny * ny, -ny * normal[2])
    norm = jnp.sqrt(_dot(t1, t1))
    t1 = tuple(t / norm for t in t1)
    t2 = _cross(normal, t1)
    return jnp.stack([jnp.stack(normal, 1), jnp.stack(t1, 1), jnp.stack(t2, 1)], 1)


def _sphere_contact(sphere: "_GeomData", radius: Array, normal: tuple, dist: Array) -> tuple:
    """Contact point and its (x, z) relative to the sphere's tree c, for a normal pointing from the
    sphere into the other geom: midway between the sphere's deepest point and the other surface."""
    reach = radius + 0.5 * dist
    pos = tuple(c + n * reach for c, n in zip(sphere.center, normal))
    rel = (sphere.center_rel[0] + normal[0] * reach, sphere.center_rel[1] + normal[2] * reach)
    return jnp.stack(pos, 1), jnp.stack(rel, 1)


def plane_sphere(model: PlanarModel, kin: Kinematics, planes: np.ndarray, spheres: np.ndarray) -> tuple:
    """One candidate per (plane, sphere) pair; the normal points from the plane into the sphere."""
    plane, sphere = _GeomData(model, kin, planes), _GeomData(model, kin, spheres)
    normal = plane.axis
    radius = lead(sphere.size[:, 0], sphere.ndim, sphere.dtype)
    dist = _dot(tuple(c - p for c, p in zip(sphere.center, plane.center)), normal) - radius
    pos, rel = _sphere_contact(sphere, radius, tuple(-n for n in normal), dist)
    return dist[:, None], pos[:, None], rel[:, None], _frame_from_normal(normal)[:, None]


def sphere_capsule(model: PlanarModel, kin: Kinematics, spheres: np.ndarray, capsules: np.ndarray) -> tuple:
    """One candidate per (sphere, capsule) pair: the sphere against the nearest point of the
    capsule's segment. The normal points from the sphere into the capsule."""
    sphere, capsule = _GeomData(model, kin, spheres), _GeomData(model, kin, capsules)
    r_sphere = lead(sphere.size[:, 0], sphere.ndim, sphere.dtype)
    r_capsule = lead(capsule.size[:, 0], capsule.ndim, capsule.dtype)
    half_length = lead(capsule.size[:, 1], capsule.ndim, capsule.dtype)
    along = jnp.clip(_dot(tuple(c - k for c, k in zip(sphere.center, capsule.center)), capsule.axis),
                     -half_length, half_length)
    nearest = tuple(k + along * a for k, a in zip(capsule.center, capsule.axis))
    delta = tuple(p - c for p, c in zip(nearest, sphere.center))
    length = jnp.sqrt(_dot(delta, delta))
    normal = tuple(d / length for d in delta)
    dist = length - r_sphere - r_capsule
    pos, rel = _sphere_contact(sphere, r_sphere, normal, dist)
    return dist[:, None], pos[:, None], rel[:, None], _frame_from_normal(normal)[:, None]


def sphere_box(model: PlanarModel, kin: Kinematics, spheres: np.ndarray, boxes: np.ndarray) -> tuple:
    """One candidate per (sphere, box) pair, box rotated about y (checked by the model). Outside the
    box the normal runs from the sphere's centre to the nearest box point; with the centre inside,
    the sphere is pushed out through the nearest face. The normal points from the sphere into the box."""
    sphere, box = _GeomData(model, kin, spheres), _GeomData(model, kin, boxes)
    radius = lead(sphere.size[:, 0], sphere.ndim, sphere.dtype)
    half_x = lead(box.size[:, 0], box.ndim, box.dtype)
    half_z = lead(box.size[:, 2], box.ndim, box.dtype)
    ez = (box.axis[0], box.axis[2])          # the box's z axis in (x, z); its x axis is (ez_z, -ez_x)
    ex = (ez[1], -ez[0])
    dx, dz = sphere.center[0] - box.center[0], sphere.center[2] - box.center[2]
    local_x, local_z = dx * ex[0] + dz * ex[1], dx * ez[0] + dz * ez[1]
    off_x = local_x - jnp.clip(local_x, -half_x, half_x)
    off_z = local_z - jnp.clip(local_z, -half_z, half_z)
    off = jnp.sqrt(off_x * off_x + off_z * off_z)
    outside = off > 0
    safe_off = jnp.where(outside, off, 1.0)
    # Inside: the face with the smallest penetration.
    depth_x, depth_z = half_x - jnp.abs(local_x), half_z - jnp.abs(local_z)
    through_x = depth_x < depth_z
    side_x, side_z = jnp.where(local_x >= 0, 1.0, -1.0), jnp.where(local_z >= 0, 1.0, -1.0)
    out_x = jnp.where(outside, off_x / safe_off, jnp.where(through_x, side_x, 0.0))  # box -> sphere, box frame
    out_z = jnp.where(outside, off_z / safe_off, jnp.where(through_x, 0.0, side_z))
    signed = jnp.where(outside, off, -jnp.where(through_x, depth_x, depth_z))
    dist = signed - radius
    zero = jnp.zeros_like(dist)
    normal = (-(out_x * ex[0] + out_z * ez[0]), zero, -(out_x * ex[1] + out_z * ez[1]))
    pos, rel = _sphere_contact(sphere, radius, normal, dist)
    return dist[:, None], pos[:, None], rel[:, None], _frame_from_normal(normal)[:, None]


def _tangent1_out_of_plane(model: PlanarModel, g1: int, g2: int) -> int:
    return 1


# (geom type 1, geom type 2) -> (candidates per pair, collision function, out-of-plane tangent: 0 none,
# 1 or 2 for a tangent that is always perpendicular to the x-z plane, so its two pyramid edges equal n)
COLLISION_FUNCTIONS: dict[tuple[int, int], tuple[int, Callable, Callable]] = {
    (GEOM_PLANE, GEOM_CAPSULE): (2, plane_capsule, plane_capsule_out_of_plane_tangent),
    (GEOM_PLANE, GEOM_SPHERE): (1, plane_sphere, _tangent1_out_of_plane),
    (GEOM_SPHERE, GEOM_CAPSULE): (1, sphere_capsule, _tangent1_out_of_plane),
    (GEOM_SPHERE, GEOM_BOX): (1, sphere_box, _tangent1_out_of_plane),
}


def out_of_plane_tangent(model: PlanarModel, pair: int) -> int:
    g1, g2 = model.contact_pairs[pair]
    return COLLISION_FUNCTIONS[(model.geom_type[g1], model.geom_type[g2])][2](model, g1, g2)


def collide(model: PlanarModel, kin: Kinematics) -> Contacts:
    pairs = model.contact_pairs
    if not pairs:
        batch, dtype = kin.cdof.shape[2:], kin.cdof.dtype
        return Contacts(dist=jnp.zeros((0,) + batch, dtype), pos=jnp.zeros((0, 3) + batch, dtype),
                        pos_rel=jnp.zeros((0, 2) + batch, dtype), frame=jnp.zeros((0, 3, 3) + batch, dtype), pair=())
    types = [(model.geom_type[g1], model.geom_type[g2]) for g1, g2 in pairs]
    parts, pair_of = [], []
    for pair_type in sorted(set(types)):
        count, function, _ = COLLISION_FUNCTIONS[pair_type]
        members = [k for k, t in enumerate(types) if t == pair_type]
        out = function(model, kin, np.array([pairs[k][0] for k in members]), np.array([pairs[k][1] for k in members]))
        parts.append(tuple(x.reshape((len(members) * count,) + x.shape[2:]) for x in out))
        pair_of.extend(k for k in members for _ in range(count))
    dist, pos, pos_rel, frame = (jnp.concatenate(x) for x in zip(*parts))
    order = np.argsort(np.asarray(pair_of), kind="stable")  # back to pair order
    if not np.array_equal(order, np.arange(len(order))):
        dist, pos, pos_rel, frame = dist[order], pos[order], pos_rel[order], frame[order]
    return Contacts(dist=dist, pos=pos, pos_rel=pos_rel, frame=frame, pair=tuple(np.asarray(pair_of)[order].tolist()))
