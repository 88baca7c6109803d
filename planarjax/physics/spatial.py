"""Planar spatial algebra and the engine's array conventions.

Array layout: structural axes first (bodies, dofs, rows, then vector components), batch axes
LAST. A quantity for 9 dofs of a batch of 1024 environments is (9, 1024); a motion vector per
body is (nbody, 3, 1024). On CPU this makes every operation a loop over contiguous batch rows,
which XLA vectorises well (an environment-major layout was ~10-30x slower for the row-wise
parts). Model constants are numpy arrays aligned from the left (``lead``).

Planar vectors: a motion vector is (omega_y, v_x, v_z): angular velocity about +y and the
velocity of the body-fixed point at the reference point c; a force vector is (torque_y, f_x,
f_z) about c. A rigid-body inertia about c is 4 numbers (m, m d_x, m d_z, I_c) (d: COM - c);
a general symmetric 3x3 is 6 numbers (upper triangle, row-major). These are the planar
components of MuJoCo's cdof/cvel/cinert; out-of-plane components never act on a planar dof.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

Array = jnp.ndarray


def lead(constant: Any, ndim: int, dtype: Any) -> np.ndarray:
    """A numpy constant reshaped to broadcast against an array of ``ndim`` dims (aligned left)."""
    c = np.asarray(constant, dtype=dtype)
    return c.reshape(c.shape + (1,) * (ndim - c.ndim))


def matmul_const(matrix: np.ndarray, x: Array) -> Array:
    """Constant matrix (m, n) times x (n, ...) -> (m, ...): contracts x's leading axis.

    Sparse matrices (tree sums, scatters: mostly 0/1) are unrolled into adds of the selected
    rows of x, skipping zeros; XLA's CPU matmul is slower for such small, sparse shapes.
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    m, n = matrix.shape
    if n and np.count_nonzero(matrix) > 0.25 * m * n and m * n > 64:
        return jnp.tensordot(matrix.astype(x.dtype), x, axes=1)
    rows = []
    for i in range(m):
        terms = [x[j] if matrix[i, j] == 1.0 else (-x[j] if matrix[i, j] == -1.0 else matrix[i, j].astype(x.dtype) * x[j])
                 for j in np.flatnonzero(matrix[i])]
        rows.append(sum_terms(terms) if terms else jnp.zeros(x.shape[1:], x.dtype))
    return jnp.stack(rows) if rows else jnp.zeros((0,) + x.shape[1:], x.dtype)


def sum_terms(terms: list) -> Array:
    """Sum of a list of arrays as a balanced tree of adds."""
    while len(terms) > 1:
        terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
    return terms[0]


def sum_axis(x: Array, axis: int) -> Array:
    """Sum over a small axis by explicit adds (XLA's CPU reduce is slow for small inner axes)."""
    return sum_terms([jnp.take(x, i, axis=axis) for i in range(x.shape[axis])])


def inertia_times_motion(inertia: tuple, v: tuple) -> tuple:
    """Momentum (force vector) of a rigid-body inertia (m, m d_x, m d_z, I_c) moving with v."""
    m, mdx, mdz, ic = inertia
    w, vx, vz = v
    return ic * w + mdz * vx - mdx * vz, m * vx + mdz * w, m * vz - mdx * w


def rigid_to_sym(inertia: tuple) -> tuple:
    """The rigid-body inertia as a general symmetric 3x3 (6 numbers, upper triangle row-major)."""
    m, mdx, mdz, ic = inertia
    return ic, mdz, -mdx, m, jnp.zeros_like(m), m


def sym_times(sym: tuple, v: tuple) -> tuple:
    s00, s01, s02, s11, s12, s22 = sym
    return (s00 * v[0] + s01 * v[1] + s02 * v[2],
            s01 * v[0] + s11 * v[1] + s12 * v[2],
            s02 * v[0] + s12 * v[1] + s22 * v[2])


def sym_outer(weight: Array, u: tuple) -> tuple:
    """weight * u u^T as 6 numbers."""
    wu0, wu1, wu2 = weight * u[0], weight * u[1], weight * u[2]
    return wu0 * u[0], wu0 * u[1], wu0 * u[2], wu1 * u[1], wu1 * u[2], wu2 * u[2]


def cross_motion(v: tuple, m: tuple) -> tuple:
    """v x m for motion vectors (planar part of [w; v] x [a; b] = [w x a; w x b + v x a])."""
    w, vx, vz = v
    a, bx, bz = m
    return jnp.zeros_like(w * a), w * bz - a * vz, a * vx - w * bx


def cross_force(v: tuple, f: tuple) -> tuple:
    """v x* f for a motion vector v and force vector f (planar part of [w x n + v x f; w x f])."""
    w, vx, vz = v
    _, fx, fz = f
    return vz * fx - vx * fz, w * fz, -w * fx


def point_direction(direction_x: Array, direction_z: Array, rel_x: Array, rel_z: Array) -> tuple:
    """Force vector of a unit force along (d_x, d_z) at the point c + (r_x, r_z): psi . v is the
    velocity component along d of that point for any motion vector v."""
    return direction_x * rel_z - direction_z * rel_x, direction_x, direction_z


def unstack(x: Array, axis: int = 1) -> tuple:
    """Split the component axis of an array into a tuple (e.g. (n, 3, ...) -> three (n, ...))."""
    return tuple(jnp.moveaxis(x, axis, 0))
