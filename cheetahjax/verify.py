"""Parity runs of cheetahjax against MuJoCo (Gymnasium HalfCheetah-v5), shared by the tests and
`paritygym verify HalfCheetah-v0`.

- One step from injected states: MuJoCo's own states along real trajectories (qpos, qvel and the
  solver's warm start) are copied into our env, both take the same action, and the next
  observation, reward, qpos and qvel are compared.
- Lockstep rollouts (L3): both start from Gymnasium's reset state, take the same actions for a
  whole episode, and we record the per-step L-inf error of the observation and the reward and the
  first step where it exceeds a threshold. The dynamics are chaotic (contacts): a 1e-15 difference
  grows until trajectories part, so long rollouts are compared statistically, single steps
  pointwise (docs/envs/halfcheetah.md).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from cheetahjax.env import EnvState, HalfCheetah
from cheetahjax.reference import MujocoHalfCheetah
from planarjax.physics.step import PhysicsState

POLICIES = ("random", "smooth", "trained")
DIVERGENCE_THRESHOLD = 1e-3
# L3 passes when our median divergence step is at least this fraction of MuJoCo's own (see
# mujoco_sensitivity): float64 must be as good as a 1e-14 disturbance; float32 arithmetic is
# allowed to lose up to half the horizon of mere float32 storage.
L3_FLOOR_FACTOR = {"float64": 0.8, "float32": 0.5}


# ---------------------------------------------------------------------------------------------
# Policies (actions are float32, as Gymnasium's action space)
# ---------------------------------------------------------------------------------------------

def open_loop_actions(policy: str, steps: int, seed: int) -> np.ndarray:
    """[steps, 6] actions: "random" uniform in [-1, 1]; "smooth" a correlated random walk that
    makes the cheetah bound and flip (more varied contacts than white noise)."""
    rng = np.random.default_rng(seed)
    if policy == "random":
        return rng.uniform(-1, 1, (steps, 6)).astype(np.float32)
    if policy == "smooth":
        out = np.zeros((steps, 6))
        a = np.zeros(6)
        for t in range(steps):
            a = 0.85 * a + 0.5 * rng.standard_normal(6)
            out[t] = np.clip(a, -1, 1)
        return out.astype(np.float32)
    raise ValueError(f"unknown open-loop policy {policy!r}")


@functools.lru_cache(maxsize=None)
def trained_policy() -> Callable[[np.ndarray], np.ndarray] | None:
    """The PPO policy shipped in cheetahjax/data (deterministic mean action), or None if absent."""
    from cheetahjax.data import DATA_DIR

    path = DATA_DIR / "ppo_policy.msgpack"
    if not path.exists():
        return None
    from paritygym.train import load_checkpoint
    from paritygym.train import networks

    _, params, ppo = load_checkpoint(path)

    def mean_action(obs):
        dist, _, _ = ppo.apply(params, obs[None])
        return ppo.env_action(networks.greedy_action(dist, True, None))[0]

    act = jax.jit(mean_action)
    return lambda obs: np.asarray(act(jnp.asarray(obs, jnp.float32)), np.float32)


@functools.lru_cache(maxsize=256)
def reference_episode(policy: str, steps: int, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """One Gymnasium episode: stacked records [steps + 1, ...] and the actions taken [steps, 6].
    Closed-loop policies ("trained") act on MuJoCo's observations. Cached: do not modify the result."""
    ref = MujocoHalfCheetah()
    try:
        records = [ref.reset(seed)]
        if policy == "trained":
            act = trained_policy()
            if act is None:
                raise RuntimeError("no trained policy shipped (cheetahjax/data/ppo_policy.msgpack)")
            actions = []
            for _ in range(steps):
                actions.append(act(records[-1]["obs"]))
                records.append(ref.step(actions[-1]))
            actions = np.stack(actions)
        else:
            actions = open_loop_actions(policy, steps, seed)
            records += [ref.step(a) for a in actions]
    finally:
        ref.close()
    return {k: np.stack([r[k] for r in records]) for k in records[0]}, actions


# ---------------------------------------------------------------------------------------------
# Our env, batched
# ---------------------------------------------------------------------------------------------

def _maybe_x64(precision: str):
    return jax.enable_x64(True) if precision == "float64" else jax.enable_x64(jax.config.jax_enable_x64)


@functools.lru_cache(maxsize=None)
def _env(precision: str) -> HalfCheetah:
    return HalfCheetah(precision=precision)


@functools.lru_cache(maxsize=None)
def _one_step_fn(precision: str):
    env = _env(precision)
    params = env.default_params

    def one(qpos, qvel, warm, action):
        state = EnvState(physics=PhysicsState(qpos, qvel, warm), time=jnp.int32(0))
        obs, new, reward, _, _ = env.step_env(jax.random.key(0), state, action, params)
        return dict(obs=obs, reward=reward, qpos=new.physics.qpos, qvel=new.physics.qvel,
                    qacc_warmstart=new.physics.qacc_warmstart)

    return jax.jit(jax.vmap(one))


def one_step(precision: str, qpos: np.ndarray, qvel: np.ndarray, warm: np.ndarray, actions: np.ndarray) -> dict:
    """Our env's next records for a batch of injected states [N, ...]. Actions keep their dtype
    (the env uses float64 actions unrounded in float64 mode)."""
    with _maybe_x64(precision):
        dtype = np.dtype(precision)
        out = _one_step_fn(precision)(*(jnp.asarray(np.asarray(x), dtype) for x in (qpos, qvel, warm)),
                                      jnp.asarray(actions))
        return {k: np.asarray(v, np.float64) for k, v in out.items()}


@functools.lru_cache(maxsize=None)
def _rollout_fn(precision: str, steps: int):
    env = _env(precision)
    params = env.default_params

    def run(qpos, qvel, actions):
        physics = PhysicsState(qpos, qvel, jnp.zeros_like(qvel))
        state = EnvState(physics=physics, time=jnp.int32(0))

        def body(state, action):
            obs, state, reward, _, _ = env.step_env(jax.random.key(0), state, action, params)
            return state, dict(obs=obs, reward=reward, qpos=state.physics.qpos, qvel=state.physics.qvel)

        _, records = jax.lax.scan(body, state, actions)
        return records

    return jax.jit(jax.vmap(run))


def rollouts(precision: str, qpos0: np.ndarray, qvel0: np.ndarray, actions: np.ndarray) -> dict[str, np.ndarray]:
    """Our env from given initial states [E, 9] with given actions [E, T, 6]: records [E, T, ...]."""
    with _maybe_x64(precision):
        dtype = np.dtype(precision)
        out = _rollout_fn(precision, actions.shape[1])(jnp.asarray(qpos0, dtype), jnp.asarray(qvel0, dtype),
                                                       jnp.asarray(actions, np.float32))
        return {k: np.asarray(v, np.float64) for k, v in out.items()}


# ---------------------------------------------------------------------------------------------
# The two checks
# ---------------------------------------------------------------------------------------------

def collect_transitions(policy: str, episodes: int, steps: int, seed: int, stride: int = 1) -> dict[str, np.ndarray]:
    """MuJoCo transitions along real episodes: the state before each (strided) step, the action,
    and MuJoCo's record after it. Arrays [N, ...]."""
    out: dict[str, list] = {k: [] for k in ("qpos", "qvel", "qacc_warmstart", "action", "next_obs", "next_reward",
                                            "next_qpos", "next_qvel", "next_qacc_warmstart")}
    for e in range(episodes):
        recs, actions = reference_episode(policy, steps, seed + e)
        for t in range(0, steps, stride):
            out["qpos"].append(recs["qpos"][t])
            out["qvel"].append(recs["qvel"][t])
            out["qacc_warmstart"].append(recs["qacc_warmstart"][t])
            out["action"].append(actions[t])
            out["next_obs"].append(recs["obs"][t + 1])
            out["next_reward"].append(recs["reward"][t + 1])
            out["next_qpos"].append(recs["qpos"][t + 1])
            out["next_qvel"].append(recs["qvel"][t + 1])
            out["next_qacc_warmstart"].append(recs["qacc_warmstart"][t + 1])
    return {k: np.stack(v) for k, v in out.items()}


def one_step_errors(precision: str, transitions: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per transition, the max abs error of obs, reward, qpos, qvel after one env step (5 mj_steps)."""
    ours = one_step(precision, transitions["qpos"], transitions["qvel"], transitions["qacc_warmstart"],
                    transitions["action"])
    err = lambda a, b: np.abs(a - b).reshape(len(a), -1).max(axis=1)
    return dict(obs=err(ours["obs"], transitions["next_obs"]), reward=err(ours["reward"], transitions["next_reward"]),
                qpos=err(ours["qpos"], transitions["next_qpos"]), qvel=err(ours["qvel"], transitions["next_qvel"]))


def lockstep(precision: str, policy: str, episodes: int, steps: int, seed: int) -> dict[str, Any]:
    """L3: per episode and step, the L-inf error of obs and reward; and the first step (1-based)
    where it exceeds DIVERGENCE_THRESHOLD (steps + 1 if never)."""
    refs, actions = zip(*(reference_episode(policy, steps, seed + e) for e in range(episodes)))
    actions = np.stack(actions)
    ours = rollouts(precision, np.stack([r["qpos"][0] for r in refs]), np.stack([r["qvel"][0] for r in refs]), actions)
    ref_obs = np.stack([r["obs"][1:] for r in refs])
    ref_reward = np.stack([r["reward"][1:] for r in refs])
    step_linf = np.maximum(np.abs(ours["obs"] - ref_obs).max(axis=2), np.abs(ours["reward"] - ref_reward))
    above = step_linf > DIVERGENCE_THRESHOLD
    first = np.where(above.any(axis=1), above.argmax(axis=1) + 1, steps + 1)
    return dict(step_linf=step_linf, first_divergence=first, actions=actions)


def verify(level: int = 3, episodes: int = 100, seed: int = 0) -> list[Any]:
    """`paritygym verify HalfCheetah-v0`: level 1/2 one-step checks from MuJoCo states along
    trajectories; level 3 lockstep rollouts of ``episodes`` x 1000 steps per policy and precision;
    level 4 the shipped PPO policy's return on both backends (``episodes`` per backend)."""
    from paritygym.verify import ParityReport

    policies = [p for p in POLICIES if p != "trained" or trained_policy() is not None]
    reports = []
    if level in (1, 2):
        for precision, tol in (("float64", 1e-5), ("float32", 1e-3)):
            for policy in policies:
                tr = collect_transitions(policy, max(1, episodes // 10), 1000, seed, stride=5)
                errors = one_step_errors(precision, tr)
                worst = {k: float(v.max()) for k, v in errors.items()}
                reports.append(ParityReport(
                    "HalfCheetah-v0", 2, f"one step from MuJoCo states, {policy} policy, {precision}",
                    passed=max(worst.values()) <= tol, episodes=max(1, episodes // 10), steps=len(tr["action"]),
                    tolerance=f"{tol:g} abs", details=worst,
                    failure=None if max(worst.values()) <= tol else f"max error {max(worst.values()):.3g}"))
        return reports
    if level == 4:
        return verify_l4(episodes=episodes, seed=seed)
    if level != 3:
        return [ParityReport("HalfCheetah-v0", level, f"level {level}", passed=False,
                             failure=f"no level {level}: levels are 1-4")]
    for precision in ("float64", "float32"):
        for policy in policies:
            run = lockstep(precision, policy, episodes, 1000, seed)
            first = run["first_divergence"]
            median = float(np.median(first))
            floor = float(np.median(mujoco_sensitivity(policy, episodes, 1000, seed, precision)))
            factor = L3_FLOOR_FACTOR[precision]
            passed = median >= factor * floor
            reports.append(ParityReport(
                "HalfCheetah-v0", 3, f"lockstep rollouts, {policy} policy, {precision}",
                passed=passed, episodes=episodes, steps=int(run["step_linf"].size),
                tolerance=f"median first step with error > {DIVERGENCE_THRESHOLD:g} >= {factor:g} x MuJoCo's own",
                details=dict(median_first_divergence=median, mujoco_self_median=floor,
                             min_first_divergence=int(first.min()),
                             episodes_within_threshold_to_the_end=int(np.sum(first > 1000)),
                             max_error_first_10_steps=float(run["step_linf"][:, :10].max())),
                failure=None if passed else f"median divergence at step {median} vs MuJoCo's own {floor}"))
    return reports


def mujoco_sensitivity(policy: str, episodes: int, steps: int, seed: int, precision: str) -> np.ndarray:
    """The chaos floor for ``precision``: per episode, the first step (1-based) where MuJoCo departs
    by more than DIVERGENCE_THRESHOLD from its own undisturbed run (same actions, open loop) when
    disturbed at that precision's level: float64, qvel + 1e-14 at the start; float32, qpos and qvel
    rounded to float32 after every mj_step (float32 storage; float32 arithmetic errs more)."""
    import mujoco

    first = []
    for e in range(episodes):
        recs, actions = reference_episode(policy, steps, seed + e)
        ref = MujocoHalfCheetah()
        try:
            ref.reset(seed + e)
            m, d = ref.sim.model, ref.sim.data
            d.qpos[:], d.qvel[:], d.qacc_warmstart[:] = recs["qpos"][0], recs["qvel"][0], 0.0
            if precision == "float64":
                d.qvel[:] += 1e-14
            step = steps + 1
            for t, action in enumerate(actions):
                x_before = d.qpos[0]
                d.ctrl[:] = action
                for _ in range(ref.sim.frame_skip):
                    mujoco.mj_step(m, d)
                    if precision == "float32":
                        d.qpos[:], d.qvel[:] = d.qpos.astype(np.float32), d.qvel.astype(np.float32)
                obs = np.concatenate([d.qpos[1:], d.qvel])
                reward = (d.qpos[0] - x_before) / ref.sim.dt - 0.1 * np.sum(np.square(action))
                err = max(np.abs(obs - recs["obs"][t + 1]).max(), abs(reward - recs["reward"][t + 1]))
                if err > DIVERGENCE_THRESHOLD:
                    step = t + 1
                    break
        finally:
            ref.close()
        first.append(step)
    return np.asarray(first)


# ---------------------------------------------------------------------------------------------
# L4: the same trained policy on both backends
# ---------------------------------------------------------------------------------------------

L4_MARGIN = 100.0  # equivalence margin of the TOST on mean episode return


def l4_backends():
    """(ours, reference) vector-env factories (num_envs, seed) -> gymnasium VectorEnv."""
    import gymnasium

    import paritygym
    from cheetahjax.reference import make_gymnasium_env

    def ours(n: int, seed: int):
        return paritygym.make_vec("HalfCheetah-v0", num_envs=n, seed=seed)

    def reference(n: int, seed: int):
        return gymnasium.vector.SyncVectorEnv([make_gymnasium_env for _ in range(n)])

    return ours, reference


def verify_l4(episodes: int = 32, seed: int = 0, alpha: float = 0.05) -> list[Any]:
    """L4: the PPO policy trained in cheetahjax and shipped in cheetahjax/data (made by
    `python examples/ppo_halfcheetah.py`) acts greedily for ``episodes`` full episodes on each
    backend; a Welch TOST (margin L4_MARGIN return) judges whether its mean return is the same.

    Training on the reference (Gymnasium + MuJoCo C, ~10K steps/s on one core) for the 5M steps
    the shipped policy took is not affordable here, so only the JAX-trained direction is run.
    """
    from paritygym.train import load_checkpoint
    from paritygym.train.transfer import evaluate_on_vector_env
    from paritygym.verify import ParityReport, tost

    from cheetahjax.data import DATA_DIR

    if episodes < 2:
        raise ValueError(f"L4 needs at least 2 episodes per backend, got {episodes}")
    _, params, learner = load_checkpoint(DATA_DIR / "ppo_policy.msgpack")
    metrics = {"return": lambda reward, info: reward}
    returns = {}
    for name, factory in zip(("ours", "reference"), l4_backends()):
        venv = factory(min(episodes, 32), seed)
        try:
            returns[name] = evaluate_on_vector_env(learner, params, venv, episodes, metrics, seed=seed,
                                                   greedy=True)["return"]
        finally:
            venv.close()
    result = tost(returns["ours"], returns["reference"], L4_MARGIN, alpha)
    return [ParityReport(
        env_id="HalfCheetah-v0", level=4, name="shipped PPO policy (trained on cheetahjax): ours vs MuJoCo C",
        passed=result.equivalent, episodes=episodes, steps=2 * episodes * 1000,
        tolerance=f"TOST on mean return, margin +-{L4_MARGIN:g}, alpha {alpha}",
        details={"summary": result.describe(), "mean_return_ours": float(returns["ours"].mean()),
                 "mean_return_reference": float(returns["reference"].mean()),
                 "std_return_ours": float(returns["ours"].std(ddof=1)),
                 "std_return_reference": float(returns["reference"].std(ddof=1))},
        failure=None if result.equivalent else result.describe())]
