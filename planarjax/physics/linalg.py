"""Sparse L^T D L factorisation of joint-space matrices of a kinematic tree (Featherstone's LTDL).

For a tree with parents numbered before children, a joint-space matrix has non-zeros only at
(i, j) with j an ancestor of i; factorising from the leaves up (M = L^T D L, L unit lower
triangular) creates no fill-in. The loops are unrolled at trace time over the static
``dof_parent`` list; every entry is a batch row, so the compiled program is straight-line
vector arithmetic.
"""

from __future__ import annotations

import jax.numpy as jnp

Array = jnp.ndarray


def _ancestors(dof_parent: tuple[int, ...], i: int) -> list[int]:
    out = []
    i = dof_parent[i]
    while i >= 0:
        out.append(i)
        i = dof_parent[i]
    return out


def ltdl_factor(values: Array, pattern_index: dict, dof_parent: tuple[int, ...]) -> dict:
    """Factor a symmetric positive-definite matrix given by its tree-pattern entries (npat, ...).
    Returns {(k, k): D_k, (k, i): L_ki for i an ancestor of k}."""
    n = len(dof_parent)
    h = {}
    for i in range(n):
        for j in [i] + _ancestors(dof_parent, i):
            h[(i, j)] = values[pattern_index[(i, j)]]
    for k in range(n - 1, -1, -1):
        for i in _ancestors(dof_parent, k):
            ratio = h[(k, i)] / h[(k, k)]
            for j in [i] + _ancestors(dof_parent, i):
                h[(i, j)] = h[(i, j)] - ratio * h[(k, j)]
            h[(k, i)] = ratio
    return h


def ltdl_solve(factor: dict, dof_parent: tuple[int, ...], rhs: Array) -> Array:
    """Solve (L^T D L) x = rhs (n, ...) with a factor from ltdl_factor."""
    n = len(dof_parent)
    x = [rhs[i] for i in range(n)]
    for i in range(n - 1, -1, -1):
        for j in _ancestors(dof_parent, i):
            x[j] = x[j] - factor[(i, j)] * x[i]
    x = [x[i] / factor[(i, i)] for i in range(n)]
    for i in range(n):
        for j in _ancestors(dof_parent, i):
            x[i] = x[i] - factor[(i, j)] * x[j]
    return jnp.stack(x)


def tree_solve(values: Array, pattern_index: dict, dof_parent: tuple[int, ...], rhs: Array) -> Array:
    return ltdl_solve(ltdl_factor(values, pattern_index, dof_parent), dof_parent, rhs)
