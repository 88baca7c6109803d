"""Sums over the kinematic tree and over static groups of rows, as short unrolled sequences of
array operations on batch rows (batch-last arrays, see spatial.py).

Each is what a constant 0/1 matrix product would compute, but its size in the compiled program
grows with the number of bodies or rows rather than their product.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from planarjax.physics.model import PlanarModel

Array = jnp.ndarray


def body_chain_sum(model: PlanarModel, per_dof: Array) -> Array:
    """(nbody, ...): for each body, the sum of ``per_dof`` (nv, ...) over the dofs that move it
    (its own and its ancestors'); 0 for the world and static bodies."""
    zero = jnp.zeros_like(per_dof[0])
    out = [zero]
    for b in range(1, model.nbody):
        total = out[model.body_parent[b]]
        for j in model.body_joints[b]:
            total = per_dof[j] if total is zero else total + per_dof[j]
        out.append(total)
    return jnp.stack(out)


def dof_strict_chain_sum(model: PlanarModel, per_dof: Array) -> Array:
    """(nv, ...): for each dof, the sum of ``per_dof`` over its strict ancestor dofs."""
    zero = jnp.zeros_like(per_dof[0])
    inclusive: list[Array] = []
    before: list[Array] = []
    for j in range(model.nv):
        parent = model.dof_parent[j]
        before.append(zero if parent < 0 else inclusive[parent])
        inclusive.append(per_dof[j] if parent < 0 else inclusive[parent] + per_dof[j])
    return jnp.stack(before)


def subtree_sum(model: PlanarModel, per_body: Array) -> Array:
    """(nbody, ...): for each body, the sum of ``per_body`` over its subtree (the world keeps 0)."""
    out = list(per_body)
    for b in range(model.nbody - 1, 0, -1):
        p = model.body_parent[b]
        if p > 0:
            out[p] = out[p] + out[b]
    out[0] = jnp.zeros_like(out[0])
    return jnp.stack(out)


def segment_sum(x: Array, segment_ids: np.ndarray, num_segments: int) -> Array:
    """(num_segments, ...): sums of the rows of ``x`` (n, ...) with each static segment id."""
    segment_ids = np.asarray(segment_ids, dtype=int)
    order = np.argsort(segment_ids, kind="stable")
    if not np.array_equal(order, np.arange(len(order))):
        x = x[order]
        segment_ids = segment_ids[order]
    zero = jnp.zeros(x.shape[1:], x.dtype)
    out = []
    for s in range(num_segments):
        start, stop = np.searchsorted(segment_ids, s, "left"), np.searchsorted(segment_ids, s, "right")
        if stop == start:
            out.append(zero)
        elif stop == start + 1:
            out.append(x[start])
        else:
            out.append(jnp.sum(x[start:stop], axis=0))
    return jnp.stack(out)
