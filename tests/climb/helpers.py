"""Shared helpers for the climb tests: MuJoCo running course.xml as the reference, random states
of the climber near the terrain, and the engine's quantities for one state."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

from climbjax import course
from climbjax.data import course_model
from climbjax.data.generate import compile_course
from planarjax.physics import dynamics, step as physics

from ..mujoco_reference import mujoco_forward  # noqa: F401  (re-exported for the tests here)

POT_Z_OFFSET = 0.25  # the pot body's rest height in course.xml (pot_z is relative to it)


def new_mujoco():
    m = compile_course()
    return m, mujoco.MjData(m)


def random_states(seed: int, count: int, speed: float = 2.0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Climber states touching or near the terrain: the pot near the route (sometimes sunk into
    it), any hammer pose including a bit past its limits, random velocities and controls (some out
    of range, to exercise the clamp)."""
    rng = np.random.default_rng(seed)
    m = compile_course()
    (a_lo, a_hi), (e_lo, e_hi) = m.jnt_range[3], m.jnt_range[4]
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    out = []
    for _ in range(count):
        k = rng.integers(len(course.ROUTE) - 1)
        t = rng.uniform()
        x, z = course.ROUTE[k] + t * (course.ROUTE[k + 1] - course.ROUTE[k])
        if rng.uniform() < 0.15:  # against the side walls
            x = rng.choice([-2.4, 17.4])
        z += rng.uniform(-0.35, 0.6)
        qpos = np.array([x, z - POT_Z_OFFSET, rng.uniform(-0.7, 0.7), rng.uniform(a_lo - 0.1, a_hi + 0.1),
                         rng.uniform(e_lo - 0.05, e_hi + 0.05)])
        qvel = speed * rng.standard_normal(5)
        ctrl = rng.uniform(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo))
        out.append((qpos, qvel, ctrl))
    return out


@functools.lru_cache(maxsize=None)
def probe64():
    """Session-wide jitted float64 probe: one state -> the engine's forward quantities and next state."""
    model = course_model()

    def probe(qpos, qvel, ctrl, warmstart):
        fwd = physics.forward(model, qpos, qvel, ctrl, warmstart)
        nxt = physics.euler(model, physics.PhysicsState(qpos, qvel, warmstart), fwd)
        return dict(fwd=fwd, jac=fwd.rows.dense_jacobian(model, fwd.kin.cdof), next=nxt,
                    mass=dynamics.dense(model, fwd.mass))

    return jax.jit(probe)


def run_probe64(qpos, qvel, ctrl, warmstart=None) -> dict:
    with jax.enable_x64(True):
        warm = np.zeros(5) if warmstart is None else warmstart
        out = probe64()(*(jnp.asarray(np.asarray(x, dtype=np.float64)) for x in (qpos, qvel, ctrl, warm)))
        return jax.tree.map(np.asarray, out)


def contacts_by_pair(model, contacts) -> dict[tuple[int, int], dict]:
    """Our candidate contacts that MuJoCo would keep (dist <= margin), keyed by geom pair."""
    margin = model.pair_margin[np.asarray(contacts.pair)]
    out = {}
    for k, pair in enumerate(contacts.pair):
        if contacts.dist[k] <= margin[k]:
            out[model.contact_pairs[pair]] = dict(dist=contacts.dist[k], pos=contacts.pos[k], frame=contacts.frame[k])
    return out
