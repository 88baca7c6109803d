"""One MuJoCo step (mj_forward then mj_Euler) for a planar model, composed from the modules.

Arrays are batch-last: ``step`` accepts a state whose arrays are (nq, ...) with any trailing
batch dims. ``make_multi_step`` wraps a fixed number of steps so that ``jax.vmap`` over it moves
the vmapped axis to the end (custom batching rule) instead of letting XLA work environment-major.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from flax import struct

from paritygym.backend import accelerator_form
from planarjax.physics import collision, constraint, dynamics, kinematics, solver
from planarjax.physics.linalg import tree_solve
from planarjax.physics.maps import tree_maps
from planarjax.physics.model import PlanarModel
from planarjax.physics.spatial import lead

Array = jnp.ndarray


@struct.dataclass
class PhysicsState:
    """What mj_step carries from one step to the next (MuJoCo's qpos, qvel, qacc_warmstart)."""

    qpos: Array
    qvel: Array
    qacc_warmstart: Array


@struct.dataclass
class Forward:
    """The mj_forward quantities the step uses (for tests and diagnostics)."""

    kin: kinematics.Kinematics
    mass: Array            # pattern entries (npat, ...)
    qfrc_bias: Array
    qfrc_passive: Array
    qfrc_actuator: Array
    qfrc_smooth: Array
    contacts: collision.Contacts
    rows: constraint.ConstraintRows
    result: solver.SolverResult


def forward(model: PlanarModel, qpos: Array, qvel: Array, ctrl: Array, qacc_warmstart: Array,
            max_iterations: int | None = None) -> Forward:
    kin = kinematics.forward_kinematics(model, qpos)
    mass = dynamics.mass_values(model, kin)
    cvel, cdof_dot = kinematics.com_velocity(model, kin.cdof, qvel)
    bias = dynamics.bias_force(model, kin, cvel, cdof_dot, qvel)
    passive = dynamics.passive_force(model, qpos, qvel)
    actuation = dynamics.actuator_force(model, ctrl, qpos, qvel)
    smooth = passive - bias + actuation
    contacts = collision.collide(model, kin)
    rows = constraint.make_constraints(model, qpos, qvel, kin, contacts)
    result = solver.newton_solve(model, mass, kin.cdof, smooth, rows, qacc_warmstart, max_iterations=max_iterations)
    return Forward(kin=kin, mass=mass, qfrc_bias=bias, qfrc_passive=passive, qfrc_actuator=actuation,
                   qfrc_smooth=smooth, contacts=contacts, rows=rows, result=result)


def euler(model: PlanarModel, state: PhysicsState, fwd: Forward) -> PhysicsState:
    """Semi-implicit Euler with implicit joint damping, as mj_Euler."""
    dtype = state.qvel.dtype
    h = jnp.asarray(model.timestep, dtype)
    if model.implicit_damping:
        damping = jnp.broadcast_to(lead(float(model.timestep) * model.dof_damping, state.qvel.ndim, dtype),
                                   state.qvel.shape)
        damped_mass = dynamics.add_diagonal(model, fwd.mass, damping)
        qacc = tree_solve(damped_mass, tree_maps(model).pattern_index, model.dof_parent,
                          fwd.qfrc_smooth + fwd.result.qfrc_constraint)
    else:
        qacc = fwd.result.qacc
    qvel = state.qvel + h * qacc
    qpos = state.qpos + h * qvel
    return PhysicsState(qpos=qpos, qvel=qvel, qacc_warmstart=fwd.result.qacc)


def step(model: PlanarModel, state: PhysicsState, ctrl: Array, max_iterations: int | None = None) -> PhysicsState:
    fwd = forward(model, state.qpos, state.qvel, ctrl, state.qacc_warmstart, max_iterations)
    return euler(model, state, fwd)


def _in_chunks(fn: Callable, args: tuple, size: int, chunk: int):
    """``fn(*args)`` on batch-last ``args`` of batch ``size``, run as a sequential loop over
    batch slices of ``chunk`` environments (the last slice padded with copies of environment 0).

    Environments are independent, so the result is the same (to float rounding: XLA compiles each
    slice width to its own kernels, summing in its own order); but each slice's working set stays
    in cache, and the solver's while loop stops per slice instead of waiting for the slowest
    environment of the whole batch."""
    if size <= chunk:
        return fn(*args)
    count = -(-size // chunk)
    pad = count * chunk - size

    def split(x):
        if pad:
            x = jnp.concatenate([x, jnp.broadcast_to(x[..., :1], x.shape[:-1] + (pad,))], axis=-1)
        return jnp.moveaxis(x.reshape(x.shape[:-1] + (count, chunk)), -2, 0)

    def merge(x):
        return jnp.moveaxis(x, 0, -2).reshape(x.shape[1:-1] + (count * chunk,))[..., :size]

    out = jax.lax.map(lambda a: fn(*a), jax.tree.map(split, args))
    return jax.tree.map(merge, out)


# Environments per slice of ``_in_chunks`` in each form of the step (``paritygym.backend``). On the
# CPU a slice of 256 keeps its working set in cache. On a TPU every op of a slice is one kernel
# launch of about a microsecond, so slices of 256 left the chip waiting on launches (HalfCheetah-v0
# at 65,536 envs: 431 K launches per call, 0.90 M steps/s); one slice of the whole batch waits on
# the slowest environment's solver iterations instead (1.24 M). 8,192 is the best of 256 / 2,048 /
# 4,096 / 8,192 / 16,384 / 65,536 measured on a TPU v5e: 2.43 M steps/s (`paritygym bench
# HalfCheetah-v0 --batch 65536 --modes scan`), Climb-v0 0.42 M -> 0.87 M.
CPU_BATCH_CHUNK = 256
ACCELERATOR_BATCH_CHUNK = 8192


def make_multi_step(model: PlanarModel, num_steps: int, max_iterations: int | None = None,
                    batch_chunk: int | None = None) -> Callable:
    """``fn(state, ctrl) -> (state, displacement)`` running ``num_steps`` steps with the same ctrl.

    ``displacement`` is the change of qpos, summed from the steps' increments h * qvel (the
    same number as qpos_after - qpos_before, without the cancellation that subtraction suffers
    in float32 once positions are large).

    Works on one environment (qpos (nq,)) or batch-last arrays; under ``jax.vmap`` the mapped
    axis is moved last (and unbatched arguments broadcast) before running, so the engine always
    sees the batch as its trailing axis. Batches larger than ``batch_chunk`` run slice by slice
    (see ``_in_chunks``); by default ``CPU_BATCH_CHUNK`` or ``ACCELERATOR_BATCH_CHUNK``, by the
    form of the step when it is traced (tests/halfcheetah/test_batch_slices.py).
    """

    @jax.custom_batching.custom_vmap
    def multi_step(state: PhysicsState, ctrl: Array) -> tuple[PhysicsState, Array]:
        h = jnp.asarray(model.timestep, state.qvel.dtype)

        def one(carry, _):
            s, displacement = carry
            s = step(model, s, ctrl, max_iterations)
            return (s, displacement + h * s.qvel), None

        return jax.lax.scan(one, (state, jnp.zeros_like(state.qpos)), None, length=num_steps)[0]

    @multi_step.def_vmap
    def _batched(axis_size, in_batched, state, ctrl):
        def to_last(x, batched):
            x = x if batched else jnp.broadcast_to(x, (axis_size,) + x.shape)
            return jnp.moveaxis(x, 0, -1)

        state_batched, ctrl_batched = in_batched
        state = jax.tree.map(to_last, state, state_batched)
        chunk = batch_chunk or (ACCELERATOR_BATCH_CHUNK if accelerator_form() else CPU_BATCH_CHUNK)
        out = _in_chunks(multi_step, (state, to_last(ctrl, ctrl_batched)), axis_size, chunk)
        out = jax.tree.map(lambda x: jnp.moveaxis(x, -1, 0), out)
        return out, jax.tree.map(lambda _: True, out)

    return multi_step
