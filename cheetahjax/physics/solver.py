"""MuJoCo's primal constraint problem, solved exactly by Newton's method (batch-last arrays).

Find the joint acceleration a minimising

    1/2 (a - a_smooth)^T M (a - a_smooth) + sum_i 1/2 w_i min(0, J_i a - aref_i)^2

(pyramidal cones make every row a one-sided quadratic; w = D times the row's multiplicity).
The cost is convex and piecewise quadratic; the pieces are the sets of rows with J_i a < aref_i
("active"). Each Newton step minimises the current piece exactly, and a line search moves along
it. When the full step stays in the piece it started in, the result is the exact minimiser and
that environment is done: the point MuJoCo's solver converges to (it stops on tolerances, at the
same point up to ~1e-10). Other environments of the batch keep iterating while finished ones are
frozen.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from cheetahjax.physics.constraint import ConstraintRows
from cheetahjax.physics.dynamics import add_diagonal, joint_space_values, pattern_matvec
from cheetahjax.physics.linalg import ltdl_factor, ltdl_solve
from cheetahjax.physics.maps import tree_maps
from cheetahjax.physics.model import PlanarModel

Array = jnp.ndarray


@struct.dataclass
class SolverResult:
    qacc: Array             # (nv, ...)
    efc_force: Array        # (nrows, ...) force of each MuJoCo row the row stands for
    qfrc_constraint: Array  # (nv, ...)
    iterations: Array       # (...) Newton steps taken by each environment


def line_search(grad_dot: Array, curvature_smooth: Array, jar: Array, jac_step: Array, weight: Array,
                newton_steps: int = 3) -> tuple[Array, Array]:
    """Step length along the Newton direction, per environment. Returns (alpha, exact) where
    exact means alpha = 1 kept the active set, i.e. the step reached the minimiser.

    phi(alpha) = cost(a + alpha s) is convex and piecewise quadratic, so phi' is piecewise linear
    and increasing. From alpha = 1 a few safeguarded 1-D Newton steps on phi' (bracketed, with
    bisection) find its root: a Newton step that lands in the piece it was computed on hits the
    root exactly. The count is fixed (a loop would cost more than it saves); an unfinished search
    still returns a point of lower cost, and the outer Newton loop goes on.
    """

    def derivatives(alpha):
        residual = jar + alpha * jac_step
        active = (residual < 0) & (weight > 0)
        first = grad_dot + alpha * curvature_smooth + jnp.sum(jnp.where(active, weight * residual * jac_step, 0.0), 0)
        second = curvature_smooth + jnp.sum(jnp.where(active, weight * jac_step * jac_step, 0.0), 0)
        return first, second, active

    tiny = jnp.finfo(jar.dtype).tiny
    start_active = (jar < 0) & (weight > 0)
    alpha = jnp.ones_like(grad_dot)
    first, second, active = derivatives(alpha)
    exact = jnp.all(active == start_active, axis=0)
    found = exact | (first == 0)
    lo, hi = jnp.zeros_like(alpha), jnp.full_like(alpha, jnp.inf)
    best = jnp.where(first <= 0, alpha, 0.0)  # the largest point known to be left of the minimum
    for _ in range(newton_steps):
        lo = jnp.where(first < 0, alpha, lo)
        hi = jnp.where(first < 0, hi, alpha)
        newton = alpha - first / jnp.maximum(second, tiny)
        use_newton = (newton > lo) & (newton < hi)
        candidate = jnp.where(use_newton, newton, jnp.where(jnp.isfinite(hi), 0.5 * (lo + hi), 2.0 * alpha))
        new_first, new_second, new_active = derivatives(candidate)
        hit = use_newton & jnp.all(new_active == active, axis=0) | (new_first == 0)
        update = ~found
        alpha = jnp.where(update, candidate, alpha)
        best = jnp.where(update & (new_first <= 0), candidate, best)
        first = jnp.where(update, new_first, first)
        second = jnp.where(update, new_second, second)
        active = jnp.where(update, new_active, active)
        found = found | hit
    # Not found: fall back to the best point on the descending side (cost below the start).
    return jnp.where(found, alpha, jnp.where(best > 0, best, alpha)), exact


def newton_solve(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array, rows: ConstraintRows,
                 qacc_start: Array, max_iterations: int = 50, min_iterations: int | None = None) -> SolverResult:
    """``mass``: pattern entries of M (npat, ...).

    ``min_iterations``: Newton steps taken at least (default 1 in float64, 2 in float32). In float32
    the exact step of a stiff contact problem carries a relative error of about cond(H) * eps; a
    second step from there is an iterative refinement that removes most of it (the worst one-step
    error along trained-policy trajectories drops from 2e-3 to 4e-4).
    """
    dtype = qfrc_smooth.dtype
    if min_iterations is None:
        min_iterations = 2 if dtype == jnp.float32 else 1
    batch = qfrc_smooth.shape[1:]
    weight = rows.weight
    eps = jnp.finfo(dtype).eps

    def cond(carry):
        it, done = carry[0], carry[-1]
        return (it < max_iterations) & jnp.any(~done)

    def body(carry):
        # jar = J a - aref and M a are carried: both are linear in a, so they update with the step.
        it, qacc, mass_acc, jar, steps, done = carry
        active = jar < 0
        grad = mass_acc - qfrc_smooth + rows.jac_transpose_times(model, cdof, jnp.where(active, weight * jar, 0.0))
        body_sym, dof_diag = rows.hessian_terms(model, jnp.where(active, weight, 0.0))
        # H = M + J^T D J over the active rows; the body-row part is a joint-space matrix too.
        hessian = add_diagonal(model, mass + joint_space_values(model, cdof, body_sym), dof_diag)
        step = -ltdl_solve(ltdl_factor(hessian, tree_maps(model).pattern_index, model.dof_parent), model.dof_parent, grad)
        jac_step = rows.jac_times(model, cdof, step)
        mass_step = pattern_matvec(model, mass, step)
        alpha, exact = line_search(jnp.sum(step * (mass_acc - qfrc_smooth), 0), jnp.sum(step * mass_step, 0),
                                   jar, jac_step, weight)
        # Done when the step was exact, or (rounding) when it no longer changes qacc.
        negligible = jnp.max(jnp.abs(alpha * step), 0) <= 4 * eps * (1 + jnp.max(jnp.abs(qacc), 0))
        move = jnp.where(done, 0.0, alpha)
        finished = (exact & (steps + 1 >= min_iterations)) | negligible
        return (it + 1, qacc + move * step, mass_acc + move * mass_step, jar + move * jac_step,
                steps + (~done).astype(jnp.int32), done | finished)

    init = (jnp.zeros((), jnp.int32), qacc_start, pattern_matvec(model, mass, qacc_start),
            rows.jac_times(model, cdof, qacc_start) - rows.aref, jnp.zeros(batch, jnp.int32), jnp.zeros(batch, bool))
    _, qacc, _, _, steps, _ = jax.lax.while_loop(cond, body, init)
    jar = rows.jac_times(model, cdof, qacc) - rows.aref
    force = jnp.where(jar < 0, -rows.D * jar, 0.0)  # per MuJoCo row
    qfrc = rows.jac_transpose_times(model, cdof, jnp.where(jar < 0, -weight * jar, 0.0))
    return SolverResult(qacc=qacc, efc_force=force, qfrc_constraint=qfrc, iterations=steps)
