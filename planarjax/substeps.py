"""Substep parity of the planar engine with MuJoCo along warm-started trajectories (float64).

MuJoCo runs whole episodes of a gait; before every env step its state (qpos, qvel and the
solver's warm start) is recorded, and after every physics substep of that env step its state and
``solver_niter``. Our engine starts each env step from MuJoCo's state, runs the same substeps with
its own warm start carried from substep to substep (as the env does), and is compared after every
substep: qpos, qvel, qacc (the next warm start) and the Newton iteration count.

This module is the method (recording, our engine's run, the comparison); each env brings its
model, start states and gaits:

    python -m cheetahjax.substeps --transitions 20000      # HalfCheetah
    python -m climbjax.substeps --transitions 20000        # Climb

print the largest differences. The tests (tests/substep_parity.py, used by
tests/halfcheetah/test_l2_substeps.py and tests/climb/test_l2_substeps.py) run the same check on
fewer transitions.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from planarjax.physics import step as physics
from planarjax.physics.model import PlanarModel

Records = dict[str, np.ndarray]
# A controller: (rng, MuJoCo data) -> ctrl (float64, as written to d.ctrl) for the next env step.
Controller = Callable[[np.random.Generator, object], np.ndarray]

RECORD_FIELDS = ("qpos", "qvel", "qacc_warmstart", "ctrl", "sub_qpos", "sub_qvel", "sub_qacc", "sub_niter",
                 "sub_nefc")


def record_mujoco(m, initial_state: Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]],
                  controller: Controller, episodes: int, steps: int, substeps: int, seed: int) -> Records:
    """MuJoCo episodes from ``initial_state`` (warm start 0, as after mj_resetData) under
    ``controller``. Per env step: the state before it and its ctrl; per substep ([N, substeps, ...]):
    qpos, qvel and qacc after it, solver_niter and nefc of its solve."""
    import mujoco

    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    out: dict[str, list] = {k: [] for k in RECORD_FIELDS}
    for _ in range(episodes):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:] = initial_state(rng)
        for _ in range(steps):
            d.ctrl[:] = controller(rng, d)
            out["qpos"].append(d.qpos.copy())
            out["qvel"].append(d.qvel.copy())
            out["qacc_warmstart"].append(d.qacc_warmstart.copy())
            out["ctrl"].append(d.ctrl.copy())
            sub = {k: [] for k in ("sub_qpos", "sub_qvel", "sub_qacc", "sub_niter", "sub_nefc")}
            for _ in range(substeps):
                mujoco.mj_step(m, d)
                sub["sub_qpos"].append(d.qpos.copy())
                sub["sub_qvel"].append(d.qvel.copy())
                sub["sub_qacc"].append(d.qacc.copy())
                # One island (the engine's models are one tree): its count is solver_niter[0].
                sub["sub_niter"].append(int(d.solver_niter[0]))
                sub["sub_nefc"].append(int(d.nefc))
            for k, v in sub.items():
                out[k].append(np.stack(v))
    return {k: np.stack(v) for k, v in out.items()}


_COMPILED: dict[tuple[int, int], tuple[PlanarModel, Callable]] = {}


def _substep_fn(model: PlanarModel, substeps: int) -> Callable:
    """Jitted (qpos, qvel, warm, ctrl) [nq, N] batch-last -> per-substep (qpos, qvel, qacc, iterations).
    Cached per model object (models hold arrays, so they are not hashable)."""
    key = (id(model), substeps)
    if key not in _COMPILED:
        _COMPILED[key] = (model, _build_substep_fn(model, substeps))  # the model is kept: its id stays unique
    return _COMPILED[key][1]


def _build_substep_fn(model: PlanarModel, substeps: int) -> Callable:

    def run(qpos, qvel, warm, ctrl):
        def one(state, _):
            fwd = physics.forward(model, state.qpos, state.qvel, ctrl, state.qacc_warmstart)
            new = physics.euler(model, state, fwd)
            return new, (new.qpos, new.qvel, new.qacc_warmstart, fwd.result.iterations)

        return jax.lax.scan(one, physics.PhysicsState(qpos, qvel, warm), None, length=substeps)[1]

    return jax.jit(run)


def engine_substeps(model: PlanarModel, records: Records, chunk: int = 8192) -> Records:
    """Our engine (float64) from each recorded env-step start: per-substep arrays like
    ``record_mujoco``'s ``sub_*`` ([N, substeps, ...]). Runs ``chunk`` transitions per call (the
    last chunk padded), so every size compiles once."""
    substeps = records["sub_qpos"].shape[1]
    n = len(records["ctrl"])
    chunk = min(chunk, n)
    parts: dict[str, list] = {k: [] for k in ("sub_qpos", "sub_qvel", "sub_qacc", "sub_niter")}
    with jax.enable_x64(True):
        fn = _substep_fn(model, substeps)
        for start in range(0, n, chunk):
            idx = np.arange(start, start + chunk).clip(max=n - 1)
            args = [jnp.asarray(records[k][idx].T, jnp.float64) for k in ("qpos", "qvel", "qacc_warmstart", "ctrl")]
            out = jax.device_get(fn(*args))  # each [substeps, nq, chunk] or [substeps, chunk]
            take = min(chunk, n - start)
            for key, value in zip(parts, out):
                parts[key].append(np.moveaxis(np.asarray(value), -1, 0)[:take])
    return {k: np.concatenate(v) for k, v in parts.items()}


def compare(records: Records, ours: Records) -> dict[str, float]:
    """Largest absolute differences over all substeps (qpos, qvel, qacc), the count of substeps
    whose Newton iteration counts differ, and what the records exercise: substeps with constraint
    rows, solves that the warm start ended with 0 iterations, the largest iteration count."""
    return dict(
        substeps=float(records["sub_niter"].size),
        with_constraints=float(np.sum(records["sub_nefc"] > 0)),
        qpos=float(np.abs(ours["sub_qpos"] - records["sub_qpos"]).max()),
        qvel=float(np.abs(ours["sub_qvel"] - records["sub_qvel"]).max()),
        qacc=float(np.abs(ours["sub_qacc"] - records["sub_qacc"]).max()),
        niter_mismatches=float(np.sum(ours["sub_niter"] != records["sub_niter"])),
        warm_start_exits=float(np.sum((records["sub_niter"] == 0) & (records["sub_nefc"] > 0))),
        max_niter=float(records["sub_niter"].max()),
    )


def report(name: str, records: Records, ours: Records) -> dict[str, float]:
    result = compare(records, ours)
    print(f"{name}: {len(records['ctrl'])} transitions, " + ", ".join(f"{k} {v:.3g}" for k, v in result.items()))
    return result
