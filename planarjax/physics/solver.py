"""MuJoCo's primal constraint problem, solved by Newton's method (batch-last arrays).

Find the joint acceleration a minimising

    1/2 (a - a_smooth)^T M (a - a_smooth) + sum_i 1/2 w_i min(0, J_i a - aref_i)^2

(pyramidal cones make every row a one-sided quadratic; w = D times the row's multiplicity).
The cost is convex and piecewise quadratic; the pieces are the sets of rows with J_i a < aref_i
("active"). Each Newton step minimises the current piece, and a line search moves along it.

Two ways to stop, chosen by precision:

- float64 (``mujoco_solve``) follows MuJoCo's Newton solver step for step: the choice between the
  warm start and a_smooth, the zero-iteration exits, MuJoCo's line search with its own
  tolerance and evaluation cap, and the improvement / gradient / Newton-decrement tests scaled
  by the island's inertia. MuJoCo can stop short of the exact minimiser (a good warm start passes
  its tests after one step; along HalfCheetah gaits this left qacc off the minimum by up to 5e-7
  relative, the next qvel by up to 7e-6 after an env step); stopping where it stops is what makes
  warm-started float64 steps agree to ~1e-12, with the same iteration count.
- float32 (``exact_solve``) iterates until a full Newton step keeps the active set, i.e. lands on
  the exact minimiser: MuJoCo's 1e-8 tolerances are below float32 resolution, so its tests would
  run every environment to the iteration cap.

Environments of a batch that have stopped are frozen while the others iterate.

MuJoCo solves each constraint island (kinematic tree touched by constraints) on its own. The
engine's models are one tree, so the island is all dofs whenever a constraint exists.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from planarjax.physics.constraint import ConstraintRows
from planarjax.physics.dynamics import add_diagonal, joint_space_values, pattern_matvec
from planarjax.physics.linalg import ltdl_factor, ltdl_solve, tree_solve
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import MINVAL, PlanarModel

Array = jnp.ndarray


@struct.dataclass
class SolverResult:
    qacc: Array             # (nv, ...)
    efc_force: Array        # (nrows, ...) force of each MuJoCo row the row stands for
    qfrc_constraint: Array  # (nv, ...)
    iterations: Array       # (...) Newton steps taken by each environment (float64: MuJoCo's solver_niter)


def exact_line_search(grad_dot: Array, curvature_smooth: Array, jar: Array, jac_step: Array, weight: Array,
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


def _direction(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array, rows: ConstraintRows,
               mass_acc: Array, jar: Array) -> tuple[Array, Array]:
    """(gradient, H^-1 gradient) at the point a with M a = ``mass_acc`` and J a - aref = ``jar``."""
    weight = rows.weight
    active = jar < 0
    grad = mass_acc - qfrc_smooth + rows.jac_transpose_times(model, cdof, jnp.where(active, weight * jar, 0.0))
    body_sym, dof_diag = rows.hessian_terms(model, jnp.where(active, weight, 0.0))
    # H = M + J^T D J over the active rows; the body-row part is a joint-space matrix too.
    hessian = add_diagonal(model, mass + joint_space_values(model, cdof, body_sym), dof_diag)
    factor = ltdl_factor(hessian, tree_maps(model).pattern_index, model.dof_parent)
    return grad, ltdl_solve(factor, model.dof_parent, grad)


def _constraint_cost(weight: Array, jar: Array) -> Array:
    return jnp.sum(jnp.where(jar < 0, 0.5 * weight * jar * jar, 0.0), 0)


def start_point(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array, qacc_smooth: Array,
                rows: ConstraintRows, qacc_warmstart: Array) -> Array:
    """MuJoCo's starting point: the warm start, unless its cost exceeds that of a_smooth (whose
    Gauss term is 0); a_smooth when the model disables warm starts."""
    if not model.warmstart:
        return qacc_smooth
    jar_warm = rows.jac_times(model, cdof, qacc_warmstart) - rows.aref
    gauss = 0.5 * jnp.sum((pattern_matvec(model, mass, qacc_warmstart) - qfrc_smooth) * (qacc_warmstart - qacc_smooth), 0)
    cost_warm = _constraint_cost(rows.weight, jar_warm) + gauss
    cost_smooth = _constraint_cost(rows.weight, rows.jac_times(model, cdof, qacc_smooth) - rows.aref)
    return jnp.where(cost_warm > cost_smooth, qacc_smooth, qacc_warmstart)


def _finish(model: PlanarModel, cdof: Array, rows: ConstraintRows, qacc: Array, iterations: Array) -> SolverResult:
    jar = rows.jac_times(model, cdof, qacc) - rows.aref
    force = jnp.where(jar < 0, -rows.D * jar, 0.0)  # per MuJoCo row
    qfrc = rows.jac_transpose_times(model, cdof, jnp.where(jar < 0, -rows.weight * jar, 0.0))
    return SolverResult(qacc=qacc, efc_force=force, qfrc_constraint=qfrc, iterations=iterations)


def newton_solve(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array, rows: ConstraintRows,
                 qacc_warmstart: Array, max_iterations: int | None = None,
                 follow_mujoco: bool | None = None) -> SolverResult:
    """``mass``: pattern entries of M (npat, ...). ``max_iterations``: the cap on Newton steps
    (default MuJoCo's opt.iterations). ``follow_mujoco``: stop where MuJoCo stops (default in
    float64) instead of at the exact minimiser (default in float32); see the module docstring."""
    if max_iterations is None:
        max_iterations = model.solver_iterations
    if follow_mujoco is None:
        follow_mujoco = qfrc_smooth.dtype == jnp.float64
    smooth = lambda: tree_solve(mass, tree_maps(model).pattern_index, model.dof_parent, qfrc_smooth)
    if not follow_mujoco:
        # The exact minimiser does not depend on the start: the warm start is taken as it is,
        # which spares float32 MuJoCo's cost comparison and the solve for a_smooth.
        return exact_solve(model, mass, cdof, qfrc_smooth, rows, qacc_warmstart if model.warmstart else smooth(),
                           max_iterations)
    qacc_smooth = smooth()
    start = start_point(model, mass, cdof, qfrc_smooth, qacc_smooth, rows, qacc_warmstart)
    return mujoco_solve(model, mass, cdof, qfrc_smooth, qacc_smooth, rows, start, max_iterations)


def exact_solve(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array,
                rows: ConstraintRows, qacc_start: Array, max_iterations: int,
                min_iterations: int | None = None) -> SolverResult:
    """Newton steps until one keeps the active set (the exact minimiser), or no longer moves qacc.

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
        _, hinv_grad = _direction(model, mass, cdof, qfrc_smooth, rows, mass_acc, jar)
        step = -hinv_grad
        jac_step = rows.jac_times(model, cdof, step)
        mass_step = pattern_matvec(model, mass, step)
        alpha, exact = exact_line_search(jnp.sum(step * (mass_acc - qfrc_smooth), 0), jnp.sum(step * mass_step, 0),
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
    return _finish(model, cdof, rows, qacc, steps)


# ---------------------------------------------------------------------------------------------
# MuJoCo's stopping rules (float64)
# ---------------------------------------------------------------------------------------------

@struct.dataclass
class _Point:
    """A line-search point: phi(alpha) - phi(0) and its first two derivatives."""

    alpha: Array
    cost: Array
    slope: Array
    curvature: Array

    def newton(self) -> Array:
        return self.alpha - self.slope / self.curvature


def _pick(mask: Array, a: _Point, b: _Point) -> _Point:
    return jax.tree.map(lambda x, y: jnp.where(mask, x, y), a, b)


_ONE_SIDED, _OPEN_BRACKET, _BRACKET = 0, 1, 2  # line-search phases


def mujoco_line_search(gauss_slope: Array, gauss_curvature: Array, jar: Array, jac_step: Array, weight: Array,
                       tolerance: Array, max_evaluations: int) -> tuple[Array, Array]:
    """MuJoCo's line search along a Newton direction; returns (alpha, improvement = phi(0) - phi(alpha)).

    phi(alpha) = cost(a + alpha s): the Gauss part is gauss_curvature alpha^2 + gauss_slope alpha;
    ``tolerance`` is MuJoCo's slope tolerance (tolerance * ls_tolerance * |s| / scale).
    The search, as MuJoCo's documentation and engine describe it: from alpha = 0, a 1-D Newton
    step; then Newton steps while the slope keeps its sign ("one-sided"); once the minimum is
    passed, a bracket between the last points on either side, shrunk with Newton steps from both
    ends and the midpoint. It stops at the first point whose |slope| is below the tolerance (which
    may be short of the exact 1-D minimiser), when the bracket stops shrinking, or after
    ``max_evaluations`` evaluations of phi. Each environment runs its own path (masked).
    """
    start_quadratic = 0.5 * weight * jar * jar
    started_active = jar < 0
    linear = weight * jac_step * jar
    quadratic = 0.5 * weight * jac_step * jac_step

    def evaluate(alpha: Array) -> _Point:
        active = jar + alpha * jac_step < 0
        # phi(alpha) - phi(0): rows entering the active set add their cost at 0, rows leaving drop it.
        constant = jnp.sum(jnp.where(active & ~started_active, start_quadratic, 0.0)
                           - jnp.where(~active & started_active, start_quadratic, 0.0), 0)
        slope0 = gauss_slope + jnp.sum(jnp.where(active, linear, 0.0), 0)
        curvature = gauss_curvature + jnp.sum(jnp.where(active, quadratic, 0.0), 0)
        second = 2.0 * curvature
        # MuJoCo guards a non-positive second derivative (impossible for this convex cost) with mjMINVAL.
        return _Point(alpha=alpha, cost=alpha * alpha * curvature + alpha * slope0 + constant,
                      slope=2.0 * alpha * curvature + slope0, curvature=jnp.where(second > 0, second, MINVAL))

    p0 = evaluate(jnp.zeros_like(gauss_slope))
    p1 = evaluate(p0.newton())
    evaluations = jnp.full(gauss_slope.shape, 2, jnp.int32)
    done = (jnp.abs(p1.slope) < tolerance) & ((p1.alpha == 0) | (p1.cost < 0))
    alpha, improvement = jnp.where(done, p1.alpha, 0.0), jnp.where(done, -p1.cost, 0.0)
    direction = jnp.where(p1.slope < 0, 1.0, -1.0)
    phase = jnp.full(gauss_slope.shape, _ONE_SIDED, jnp.int32)

    def settle(phase, done, alpha, improvement, evaluations, p1, p2):
        """Leave the one-sided phase when the slope changes sign (or the evaluations run out);
        after the bracket phase's cap, return the better end with a cost decrease, else 0."""
        leave = ~done & (phase == _ONE_SIDED) & ~((p1.slope * direction <= -tolerance) & (evaluations < max_evaluations))
        capped = leave & (evaluations >= max_evaluations)
        alpha, improvement = jnp.where(capped, p1.alpha, alpha), jnp.where(capped, -p1.cost, improvement)
        done = done | capped
        phase = jnp.where(leave & ~capped, _OPEN_BRACKET, phase)
        out = ~done & (phase == _BRACKET) & (evaluations >= max_evaluations)
        first = (p1.cost <= p2.cost) & (p1.cost < 0)
        second = ~first & (p2.cost <= p1.cost) & (p2.cost < 0)
        alpha = jnp.where(out, jnp.where(first, p1.alpha, jnp.where(second, p2.alpha, 0.0)), alpha)
        improvement = jnp.where(out, jnp.where(first, -p1.cost, jnp.where(second, -p2.cost, 0.0)), improvement)
        return phase, done | out, alpha, improvement

    p2 = p0
    phase, done, alpha, improvement = settle(phase, done, alpha, improvement, evaluations, p1, p2)
    state = (phase, done, alpha, improvement, evaluations, p1, p2, p1, p1)

    def cond(state):
        return jnp.any(~state[1])

    def body(state):
        phase, done, alpha, improvement, evaluations, p1, p2, p1_next, p2_next = state
        live = ~done
        bracket = live & (phase == _BRACKET)
        # One-sided and opening phases evaluate the Newton point of p1; the bracket its midpoint.
        point = evaluate(jnp.where(phase == _BRACKET, 0.5 * (p1.alpha + p2.alpha), p1.newton()))
        evaluations = evaluations + live.astype(jnp.int32)

        one_sided = live & (phase == _ONE_SIDED)
        converged = one_sided & (jnp.abs(point.slope) < tolerance) & (point.cost < 0)
        alpha, improvement = jnp.where(converged, point.alpha, alpha), jnp.where(converged, -point.cost, improvement)
        new_p2 = _pick(one_sided, p1, p2)
        new_p1 = _pick(one_sided, point, p1)
        done = done | converged

        opening = live & (phase == _OPEN_BRACKET)
        p2_next = _pick(opening, p1, p2_next)
        p1_next = _pick(opening, point, p1_next)
        phase = jnp.where(opening, _BRACKET, phase)

        # Bracket: stop at the lowest-cost candidate within tolerance (the first on ties).
        candidates = (p1_next, p2_next, point)
        best_cost = jnp.zeros_like(alpha)
        best_alpha = jnp.zeros_like(alpha)
        found = jnp.zeros_like(done)
        for c in candidates:
            better = (jnp.abs(c.slope) < tolerance) & (~found | (c.cost < best_cost))
            best_cost, best_alpha = jnp.where(better, c.cost, best_cost), jnp.where(better, c.alpha, best_alpha)
            found = found | better
        stop = bracket & found
        alpha, improvement = jnp.where(stop, best_alpha, alpha), jnp.where(stop, -best_cost, improvement)
        done = done | stop

        # Otherwise move each end to a candidate on its side of the minimum with a smaller |slope|.
        def shrink(end: _Point) -> tuple[_Point, Array]:
            moved = jnp.zeros_like(done)
            for c in candidates:
                take = (((end.slope < 0) & (c.slope < 0) & (end.slope < c.slope))
                        | ((end.slope > 0) & (c.slope > 0) & (end.slope > c.slope)))
                end = _pick(take, c, end)
                moved = moved | take
            return end, moved

        shrinking = bracket & ~stop
        end1, moved1 = shrink(new_p1)
        end2, moved2 = shrink(new_p2)
        moved1, moved2 = moved1 & shrinking, moved2 & shrinking
        new_p1, new_p2 = _pick(moved1, end1, new_p1), _pick(moved2, end2, new_p2)
        p1_next = _pick(moved1, evaluate(end1.newton()), p1_next)
        p2_next = _pick(moved2, evaluate(end2.newton()), p2_next)
        evaluations = evaluations + moved1.astype(jnp.int32) + moved2.astype(jnp.int32)
        # Neither end moved: numerical resolution reached, MuJoCo returns the midpoint.
        stuck = shrinking & ~moved1 & ~moved2
        alpha, improvement = jnp.where(stuck, point.alpha, alpha), jnp.where(stuck, -point.cost, improvement)
        done = done | stuck

        phase, done, alpha, improvement = settle(phase, done, alpha, improvement, evaluations, new_p1, new_p2)
        return phase, done, alpha, improvement, evaluations, new_p1, new_p2, p1_next, p2_next

    state = jax.lax.while_loop(cond, body, state)
    return state[2], state[3]


def mujoco_solve(model: PlanarModel, mass: Array, cdof: Array, qfrc_smooth: Array, qacc_smooth: Array,
                 rows: ConstraintRows, qacc_start: Array, max_iterations: int) -> SolverResult:
    """Newton iterations stopped by MuJoCo's tests (mj_solPrimal with the Newton flag):

    - no constraint row: a_smooth, 0 iterations;
    - 0 iterations when the start passes the gradient test and either the duality-gap bound
      1/2 g^T M^-1 g or the Newton decrement 1/2 g^T H^-1 g is below tolerance;
    - a line search returning alpha = 0 ends the solve (that step is not counted);
    - after each step, stop when the scaled improvement is in (0, tolerance), the scaled |g| is
      below tolerance, or the new Newton decrement is; at most ``max_iterations`` steps.

    All tests are scaled by 1/trace(M) of the island (MuJoCo's island mode, the default).
    """
    if len({model.body_root[b] for b in model.dof_body}) > 1:
        raise NotImplementedError("MuJoCo solves each kinematic tree's constraints as its own island; "
                                  "the float64 solver follows it for models of one tree only")
    tolerance = model.solver_tolerance
    line_tolerance = model.solver_tolerance * model.ls_tolerance
    batch = qfrc_smooth.shape[1:]
    scale = 1.0 / jnp.sum(mass[np.array([tree_maps(model).pattern_index[(i, i)] for i in range(model.nv)])], 0)
    has_rows = jnp.any(rows.enabled, 0)
    norm = lambda x: jnp.sqrt(jnp.sum(x * x, 0))

    mass_acc = pattern_matvec(model, mass, qacc_start)
    jar = rows.jac_times(model, cdof, qacc_start) - rows.aref
    grad, hinv_grad = _direction(model, mass, cdof, qfrc_smooth, rows, mass_acc, jar)
    gradient_small = scale * norm(grad) < tolerance
    gap_small = jnp.maximum(0.0, 0.5 * scale * jnp.sum(grad * tree_solve(
        mass, tree_maps(model).pattern_index, model.dof_parent, grad), 0)) < tolerance
    decrement_small = jnp.maximum(0.0, 0.5 * scale * jnp.sum(grad * hinv_grad, 0)) < tolerance
    done = ~has_rows | (gradient_small & (gap_small | decrement_small))

    def cond(carry):
        it, done = carry[0], carry[-1]
        return (it < max_iterations) & jnp.any(~done)

    def body(carry):
        it, qacc, mass_acc, jar, hinv_grad, steps, done = carry
        step = -hinv_grad
        jac_step = rows.jac_times(model, cdof, step)
        mass_step = pattern_matvec(model, mass, step)
        alpha, improvement = mujoco_line_search(
            jnp.sum(step * (mass_acc - qfrc_smooth), 0), 0.5 * jnp.sum(step * mass_step, 0), jar, jac_step,
            rows.weight, line_tolerance * norm(step) / scale, model.ls_iterations)
        # A step too small to search (|s| < mjMINVAL) counts as alpha = 0.
        alpha = jnp.where(norm(step) < MINVAL, 0.0, alpha)
        moving = ~done & (alpha != 0)
        move = jnp.where(moving, alpha, 0.0)
        qacc, mass_acc, jar = qacc + move * step, mass_acc + move * mass_step, jar + move * jac_step
        grad, new_hinv_grad = _direction(model, mass, cdof, qfrc_smooth, rows, mass_acc, jar)
        improvement = scale * improvement
        converged = (((improvement > 0) & (improvement < tolerance)) | (scale * norm(grad) < tolerance)
                     | (jnp.maximum(0.0, 0.5 * scale * jnp.sum(grad * new_hinv_grad, 0)) < tolerance))
        return (it + 1, qacc, mass_acc, jar, new_hinv_grad, steps + moving.astype(jnp.int32),
                done | ~moving | converged)

    init = (jnp.zeros((), jnp.int32), qacc_start, mass_acc, jar, hinv_grad, jnp.zeros(batch, jnp.int32), done)
    _, qacc, _, _, _, steps, _ = jax.lax.while_loop(cond, body, init)
    return _finish(model, cdof, rows, jnp.where(has_rows, qacc, qacc_smooth), steps)
