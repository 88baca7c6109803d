"""Parity runs of climbjax against MuJoCo (course.xml in the C engine), shared by the tests and
`paritygym verify Climb-v0`.

- One step from injected states: MuJoCo's own states along trajectories (qpos, qvel and the
  solver's warm start) are copied into our env, both take the same action, and the next qpos,
  qvel, observation and reward are compared (float64).
- Lockstep rollouts (L3): both start from the same state and take the same actions; we record the
  per-step L-inf error of qpos/qvel and the first step where it exceeds DIVERGENCE_THRESHOLD (the
  divergence horizon). Contacts make the dynamics chaotic, so a 1e-15 difference grows until the
  trajectories part: long rollouts are compared by their horizon, single steps pointwise.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from climbjax import course
from climbjax.env import Climb, EnvState
from climbjax.reference import MujocoClimb
from paritygym.verify import ParityReport, compare_trajectories
from planarjax.physics.step import PhysicsState

DIVERGENCE_THRESHOLD = 1e-3
ONE_STEP_TOLERANCE = 1e-5  # our one-step target for float64


def smooth_actions(steps: int, seed: int) -> np.ndarray:
    """[steps, 2] float32 actions: a correlated random walk in [-1, 1] (the hammer sweeps, pushes
    and hooks the terrain, unlike white noise which only jitters)."""
    rng = np.random.default_rng(seed)
    out, a = np.zeros((steps, 2)), np.zeros(2)
    for t in range(steps):
        a = 0.9 * a + 0.35 * rng.standard_normal(2)
        out[t] = np.clip(a, -1, 1)
    return out.astype(np.float32)


def reference_episode(section: int, steps: int, seed: int, actions: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """A MuJoCo episode from the section start; stacked records [steps + 1, ...] and the actions."""
    ref = MujocoClimb(section=section)
    actions = smooth_actions(steps, seed) if actions is None else actions
    records = [ref.reset(seed)]
    for a in actions:
        records.append(ref.step(a))
    out = {k: np.stack([r[k] for r in records]) for k in records[0]}
    out["action"] = actions
    return out


def collect_transitions(episodes: int, steps: int, seed: int, stride: int = 1) -> dict[str, np.ndarray]:
    """(state, action, next record) triples from MuJoCo episodes that start in every section."""
    parts = []
    for e in range(episodes):
        ep = reference_episode(e % course.NUM_SECTIONS, steps, seed + e)
        pick = np.arange(0, steps, stride)
        parts.append(dict(qpos=ep["qpos"][pick], qvel=ep["qvel"][pick], qacc_warmstart=ep["qacc_warmstart"][pick],
                          action=ep["action"][pick], next_qpos=ep["qpos"][pick + 1], next_qvel=ep["qvel"][pick + 1],
                          next_obs=ep["obs"][pick + 1], next_reward=ep["reward"][pick + 1]))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


@functools.lru_cache(maxsize=None)
def _env64() -> Climb:
    return Climb(precision="float64")


@functools.lru_cache(maxsize=None)
def _one_step_fn():
    env = _env64()
    params = env.default_params

    def one(qpos, qvel, warm, action):
        state = EnvState(physics=PhysicsState(qpos=qpos, qvel=qvel, qacc_warmstart=warm), time=jnp.int32(0))
        obs, nxt, reward, terminated, info = env.step_env(jax.random.PRNGKey(0), state, action, params)
        return dict(obs=obs, qpos=nxt.physics.qpos, qvel=nxt.physics.qvel, reward=reward)

    return jax.jit(jax.vmap(one))


def one_step_errors(transitions: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per-transition max |ours - MuJoCo| of next qpos, qvel, observation and reward (float64)."""
    with jax.enable_x64(True):
        out = jax.device_get(_one_step_fn()(*(jnp.asarray(transitions[k]) for k in ("qpos", "qvel", "qacc_warmstart")),
                                            jnp.asarray(transitions["action"])))
    err = lambda a, b: np.abs(np.asarray(a, np.float64) - b).reshape(len(b), -1).max(axis=1)
    return dict(qpos=err(out["qpos"], transitions["next_qpos"]), qvel=err(out["qvel"], transitions["next_qvel"]),
                obs=err(out["obs"], transitions["next_obs"]), reward=err(out["reward"], transitions["next_reward"]))


@functools.lru_cache(maxsize=None)
def _rollout_fn(steps: int):
    env = _env64()
    params = env.default_params

    def run(qpos, qvel, actions):
        zeros = jnp.zeros_like(qpos)
        state = EnvState(physics=PhysicsState(qpos=qpos, qvel=qvel, qacc_warmstart=zeros), time=jnp.int32(0))

        def body(state, action):
            _, nxt, _, _, _ = env.step_env(jax.random.PRNGKey(0), state, action, params)
            return nxt, dict(qpos=nxt.physics.qpos, qvel=nxt.physics.qvel)

        return jax.lax.scan(body, state, actions)[1]

    return jax.jit(jax.vmap(run))


def lockstep(episodes: int, steps: int, seed: int) -> dict[str, Any]:
    """L3: our float64 rollouts vs MuJoCo from the same start with the same actions. Returns the
    per-episode divergence step (steps if never), the comparisons and the MuJoCo episodes."""
    refs = [reference_episode(e % course.NUM_SECTIONS, steps, seed + e) for e in range(episodes)]
    with jax.enable_x64(True):
        ours = jax.device_get(_rollout_fn(steps)(jnp.asarray(np.stack([r["qpos"][0] for r in refs])),
                                                 jnp.asarray(np.stack([r["qvel"][0] for r in refs])),
                                                 jnp.asarray(np.stack([r["action"] for r in refs]))))
    comparisons, horizons = [], []
    for e, ref in enumerate(refs):
        mine = dict(qpos=np.asarray(ours["qpos"][e]), qvel=np.asarray(ours["qvel"][e]))
        theirs = dict(qpos=ref["qpos"][1:], qvel=ref["qvel"][1:])
        cmp = compare_trajectories(mine, theirs, tolerance=DIVERGENCE_THRESHOLD)
        comparisons.append(cmp)
        first = cmp.first_step_above(DIVERGENCE_THRESHOLD)
        horizons.append(steps if first is None else first)
    return dict(horizons=np.array(horizons), comparisons=comparisons, references=refs)


def verify(level: int = 3, episodes: int = 8, seed: int = 0) -> list[ParityReport]:
    """paritygym's verify hook: one-step parity (level >= 1) and L3 divergence horizons (level >= 3)."""
    reports = []
    tr = collect_transitions(episodes=max(4, episodes), steps=200, seed=seed, stride=2)
    errors = one_step_errors(tr)
    worst = {k: float(v.max()) for k, v in errors.items()}
    reports.append(ParityReport("Climb-v0", 1, "one step from injected MuJoCo states (float64)",
                                passed=max(worst.values()) <= ONE_STEP_TOLERANCE, episodes=max(4, episodes),
                                steps=len(tr["action"]), tolerance=f"{ONE_STEP_TOLERANCE:g} abs", details=worst))
    if level >= 3:
        run = lockstep(episodes, 900, seed)
        h = run["horizons"]
        reports.append(ParityReport(
            "Climb-v0", 3, f"lockstep rollouts, smooth random actions, divergence > {DIVERGENCE_THRESHOLD:g}",
            passed=bool(np.median(h) >= 30), episodes=episodes, steps=900, tolerance="median horizon >= 30 agent steps",
            details=dict(horizon_min=int(h.min()), horizon_median=float(np.median(h)), horizon_max=int(h.max()),
                         horizons=h.tolist())))
    return reports


def mujoco_sensitivity(episodes: int, steps: int, seed: int, nudge: float = 1e-14) -> np.ndarray:
    """MuJoCo against itself: the same episodes as ``lockstep`` with the start x moved by ``nudge``.
    The divergence horizons this gives are the chaos floor our L3 horizons are compared with."""
    import mujoco

    horizons = []
    for e in range(episodes):
        section, episode_seed = e % course.NUM_SECTIONS, seed + e
        base = reference_episode(section, steps, episode_seed)
        ref = MujocoClimb(section=section)
        ref.reset(episode_seed)
        ref.d.qpos[0] += nudge
        mujoco.mj_forward(ref.m, ref.d)
        nudged = np.array([np.concatenate([ref.step(a)["qpos"], ref.d.qvel]) for a in base["action"]])
        err = np.abs(nudged - np.concatenate([base["qpos"][1:], base["qvel"][1:]], axis=1)).max(axis=1)
        above = np.flatnonzero(err > DIVERGENCE_THRESHOLD)
        horizons.append(int(above[0]) if above.size else steps)
    return np.array(horizons)
