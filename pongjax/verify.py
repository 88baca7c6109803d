"""Lockstep parity runs of pongjax against the C reference, shared by the tests and `paritygym verify`.

A run steps a batch of envs in both engines with the same actions and the same round-start random
bits (those our env draws from its keys), and records every state field, observation, reward and
terminal flag at every step. The tests assert on these records; `verify` turns them into reports.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from pongjax import game
from pongjax.env import EnvState, Pong
from pongjax.reference import STATE_FIELDS, CPong

POLICIES = ("random", "tracking")


def tracking_action(state: EnvState, params: game.PongParams, continuous: bool, key: jax.Array) -> jax.Array:
    """A scripted policy: move the paddle's centre towards the ball's centre, aiming with a random
    offset and acting at random 30% of the time, so that it both rallies and loses points (games
    end) and hits the ball at every angle. Continuous actions are arbitrary floats."""
    s = state.game
    k_offset, k_explore, k_random = jax.random.split(key, 3)
    offset = jax.random.uniform(k_offset, (), jnp.float32, -30.0, 30.0)
    gap = (s.ball_y + params.ball_height / 2) - (s.paddle_yr + params.paddle_height / 2) + offset
    explore = jax.random.bernoulli(k_explore, 0.3)
    if continuous:
        aimed = jnp.clip(gap / 8.0, -1.0, 1.0)
        action = jnp.where(explore, jax.random.uniform(k_random, (), jnp.float32, -1.0, 1.0), aimed)
        return action.astype(jnp.float32).reshape(1)
    aimed = jnp.where(gap > 4, 1, jnp.where(gap < -4, 2, 0))
    return jnp.where(explore, jax.random.randint(k_random, (), 0, 3), aimed).astype(jnp.int32)


@functools.lru_cache(maxsize=None)
def _rollout_fn(num_envs: int, num_steps: int, frameskip: int, continuous: bool, corrected: bool, policy: str):
    env = Pong(frame_skip=frameskip, continuous=continuous, corrected=corrected)
    params = env.default_params
    space = env.action_space(params)

    def act(key, state):
        if policy == "random":
            return space.sample(key)
        return tracking_action(state, params, continuous, key)

    def run(key):
        k_reset, k_run = jax.random.split(key)
        reset_keys = jax.random.split(k_reset, num_envs)
        _, states = jax.vmap(env.reset, in_axes=(0, None))(reset_keys, params)
        reset_bits = jax.vmap(env.round_bit)(reset_keys)

        def body(states, k):
            k_act, k_step = jax.random.split(k)
            act_keys, step_keys = jax.random.split(k_act, num_envs), jax.random.split(k_step, num_envs)
            actions = jax.vmap(act)(act_keys, states)
            obs, states, reward, terminated, truncated, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                step_keys, states, actions, params
            )
            record = {name: getattr(states.game, name) for name in STATE_FIELDS}
            record.update(reward=reward, terminated=terminated, returned_obs=obs)
            return states, (actions, jax.vmap(env.round_bit)(step_keys), record)

        _, (actions, bits, records) = jax.lax.scan(body, states, jax.random.split(k_run, num_steps))
        first = {name: getattr(states.game, name) for name in STATE_FIELDS}
        return reset_bits, first, actions, bits, records

    return jax.jit(run)


@dataclasses.dataclass
class LockstepRun:
    """Both engines' records of one lockstep run: per field, an array [num_steps + 1, num_envs, ...]
    (index 0 = after reset)."""

    ours: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    episodes_completed: int
    envs_with_full_episode: int
    num_envs: int
    num_steps: int


def run_lockstep(num_envs: int, num_steps: int, seed: int, policy: str = "random", frameskip: int = 1,
                 continuous: bool = False, corrected: bool = False) -> LockstepRun:
    """Runs our env and the C reference side by side for ``num_steps`` steps of ``num_envs`` envs."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}")
    run = _rollout_fn(num_envs, num_steps, frameskip, continuous, corrected, policy)
    reset_bits, first, actions, bits, records = jax.device_get(run(jax.random.key(seed)))
    # The returned observation must be the state's observation (PufferLib returns its obs buffer).
    if not np.array_equal(np.asarray(records["returned_obs"]), np.asarray(records["obs"])):
        raise AssertionError("env.step returned an observation other than the state's observation")

    ours = {}
    for name in STATE_FIELDS:
        ours[name] = np.concatenate([np.asarray(first[name])[None], np.asarray(records[name])])
    ours["reward"] = np.concatenate([np.zeros((1, num_envs), np.float32), np.asarray(records["reward"])])
    ours["terminated"] = np.concatenate([np.zeros((1, num_envs), bool), np.asarray(records["terminated"])])

    ref_env = CPong(num_envs, frameskip=frameskip, continuous=continuous, corrected=corrected)
    ref_env.reset(np.asarray(reset_bits, np.uint8))
    reference = {name: np.empty_like(ours[name]) for name in ours}
    acts = np.asarray(actions, np.float32).reshape(num_steps, num_envs)
    bits = np.asarray(bits, np.uint8)
    for name in STATE_FIELDS:
        reference[name][0] = ref_env.states[name]
    reference["reward"][0] = 0.0
    reference["terminated"][0] = False
    for t in range(num_steps):
        _, reward, terminal = ref_env.step(acts[t], bits[t])
        for name in STATE_FIELDS:
            reference[name][t + 1] = ref_env.states[name]
        reference["reward"][t + 1] = reward
        reference["terminated"][t + 1] = terminal
    terminated = ours["terminated"]
    return LockstepRun(
        ours=ours,
        reference=reference,
        episodes_completed=int(terminated.sum()),
        envs_with_full_episode=int(terminated.any(axis=0).sum()),
        num_envs=num_envs,
        num_steps=num_steps,
    )


# (policy, frameskip, continuous, steps): enough steps for 100 envs to each finish a 21-point game.
CONFIGS = [
    ("random", 1, False, 4000), ("tracking", 1, False, 16000), ("random", 4, False, 1500),
    ("tracking", 4, False, 4000), ("random", 1, True, 4000), ("tracking", 4, True, 4000),
]  # fmt: skip


# L4 setup: PPO as in examples/ppo_pong.py, with a fixed step budget (no early stop) so that every
# seed trains for the same number of steps on both backends.
L4_ENV = {"frame_skip": 4, "max_steps_in_episode": 20_000}
L4_MARGIN = 1.0  # equivalence margin of the TOST on mean episode return
# Per seed and backend. examples/ppo_pong.py needs about 8M steps to beat the opponent by 10 points;
# 20 such runs do not fit one verification run on a 2-core CPU, so L4 trains each policy for 2M steps
# (about a minute per run on either backend), which already learns a clearly non-random policy.
L4_TOTAL_TIMESTEPS = 2_000_000


def l4_config(total_timesteps: int = L4_TOTAL_TIMESTEPS):
    from paritygym.train import PPOConfig

    return PPOConfig(env_id="Pong-v0", env_kwargs=dict(L4_ENV), num_envs=512, num_steps=64, num_minibatches=8,
                     total_timesteps=total_timesteps, log_every_s=1e9)  # fmt: skip


def l4_backends():
    """(ours, reference) vector-env factories (num_envs, seed) -> VectorEnv for the L4 setup."""
    import paritygym
    from pongjax.reference import CPongVectorEnv

    def ours(n, seed):
        return paritygym.make_vec("Pong-v0", num_envs=n, seed=seed, **L4_ENV)

    def reference(n, seed):
        return CPongVectorEnv(n, seed, frameskip=L4_ENV["frame_skip"], max_steps_in_episode=L4_ENV["max_steps_in_episode"])

    return ours, reference


def verify_l4(seeds: int = 10, eval_episodes: int = 32, seed: int = 0, total_timesteps: int = L4_TOTAL_TIMESTEPS) -> list[Any]:
    """L4: PPO trained on pongjax and on the C reference (10 seeds each), every policy evaluated on both."""
    import dataclasses
    import time

    from paritygym.train.transfer import policy_transfer

    ours, reference = l4_backends()
    config = l4_config(total_timesteps)
    start = time.perf_counter()
    result = policy_transfer(
        "Pong-v0", config, range(seed, seed + seeds), ours, reference, margin=L4_MARGIN,
        eval_episodes=eval_episodes, train_on_reference=True,
    )  # fmt: skip
    training = {k: v for k, v in dataclasses.asdict(config).items() if k not in ("seed", "out_dir", "log_every_s")}
    for report in result.reports:
        report.details["per_policy_means"] = result.scores
        report.details["training"] = training | {"seeds": list(range(seed, seed + seeds)), "eval_episodes_per_backend": eval_episodes}
        report.details["wall_seconds"] = time.perf_counter() - start
    return result.reports


def verify(level: int = 3, episodes: int = 100, seed: int = 0, seeds: int = 10) -> list[Any]:
    """`paritygym verify Pong-v0`: L3 lockstep rollouts until every env has finished a game, per
    config; L4 policy transfer (``episodes`` evaluation episodes per policy and backend)."""
    from paritygym.verify import ParityReport, compare_trajectories

    if level == 4:
        return verify_l4(seeds=seeds, eval_episodes=episodes, seed=seed)
    if level != 3:
        return [
            ParityReport("Pong-v0", level, f"level {level}", passed=False,
                         failure="L1/L2 run in the test suite (pytest tests/pong); the CLI runs L3 and L4")
        ]  # fmt: skip
    reports = []
    for policy, frameskip, continuous, steps in CONFIGS:
        run = run_lockstep(episodes, steps, seed, policy, frameskip, continuous)
        result = compare_trajectories(run.ours, run.reference, tolerance=0.0)
        name = f"{policy} policy, frameskip {frameskip}, {'continuous' if continuous else 'discrete'}"
        reports.append(
            ParityReport(
                env_id="Pong-v0", level=3, name=name,
                passed=result.matched and run.envs_with_full_episode == episodes,
                episodes=run.episodes_completed, steps=run.num_steps * run.num_envs,
                tolerance="exact (bit-identical float32)",
                details={"envs_with_a_full_game": run.envs_with_full_episode},
                failure=None if result.matched else result.describe(),
            )
        )  # fmt: skip
    return reports


@functools.lru_cache(maxsize=None)
def _replay_fn(frameskip: int, continuous: bool, corrected: bool):
    params = game.PongParams()

    def replay(reset_bits, actions, bits):
        states = jax.vmap(lambda b: game.new_game(params, b))(reset_bits)

        def body(s, inputs):
            action, bit = inputs
            direction = jax.vmap(lambda a: game.paddle_direction(a, continuous))(action)
            s, reward, terminal, _ = jax.vmap(lambda s, d, b: game.step(s, d, b, params, frameskip, corrected))(s, direction, bit)
            return s, ({k: getattr(s, k) for k in STATE_FIELDS} | {"reward": reward, "terminated": terminal})

        return jax.lax.scan(body, states, (actions, bits))[1]

    return jax.jit(replay)


def replay_with_bits(reset_bits: np.ndarray, actions: np.ndarray, bits: np.ndarray, frameskip: int = 1,
                     continuous: bool = False, corrected: bool = False) -> dict[str, np.ndarray]:
    """Our game functions driven by given round-start bits (e.g. those a C run drew from `rand()`):
    per field, an array [num_steps, num_envs, ...] of the state after each step."""
    actions = np.asarray(actions, np.float32 if continuous else np.int32)
    if continuous:
        actions = actions[..., None]
    out = _replay_fn(frameskip, continuous, corrected)(
        jnp.asarray(reset_bits, jnp.uint8), jnp.asarray(actions), jnp.asarray(np.minimum(bits, 1), jnp.uint8)
    )
    return {k: np.asarray(v) for k, v in jax.device_get(out).items()}
