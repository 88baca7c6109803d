"""PPO driving a numpy vector env from Python: the same learner as `paritygym.train.ppo`
(`paritygym.train.learner`: network, GAE, clipped update, all jitted), with the rollout stepping a `gymnasium.vector.VectorEnv` —
the Rust Game Boy (`GameBoy-v0`), or a reference system wrapped as a vector env (L4 training on
the reference). Policy in JAX, env wherever it lives.

    result = train_host(PPOConfig(env_id="GameBoy-v0", num_envs=64))
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

import paritygym
from paritygym.train.learner import Learner, PPOConfig, TrainResult, Transition, progress, run_loop

# (reward [num_envs], info) -> per-step value, summed over an episode (numpy).
HostEpisodeMetric = Callable[[np.ndarray, Mapping[str, Any]], np.ndarray]


def observation_to_array(obs: Any) -> np.ndarray:
    """A batch of observations as float32 [num_envs, features] (uint8 images scaled to [0, 1])."""
    leaves = obs.values() if isinstance(obs, dict) else [obs]
    parts = []
    for x in leaves:
        x = np.asarray(x)
        x = x.astype(np.float32) / 255.0 if x.dtype == np.uint8 else x.astype(np.float32)
        parts.append(x.reshape(x.shape[0], -1))
    return np.concatenate(parts, axis=1)


class HostPPO(Learner):
    """PPO whose rollouts step a numpy vector env (made by ``make_venv(config)``, default
    ``paritygym.make_vec(config.env_id, ...)``)."""

    def __init__(self, config: PPOConfig, make_venv: Callable[[PPOConfig], gymnasium.vector.VectorEnv] | None = None,
                 episode_metrics: Mapping[str, HostEpisodeMetric] | None = None):  # fmt: skip
        self.venv = (make_venv or _default_venv)(config)
        if self.venv.num_envs != config.num_envs:
            raise ValueError(f"the vector env has {self.venv.num_envs} envs, the config {config.num_envs}")
        default = {"return": lambda r, info: r, "length": lambda r, info: np.ones_like(r)}
        super().__init__(config, self.venv.single_action_space, episode_metrics, default)

        self._act = jax.jit(self.act, static_argnames="greedy")
        self._value = jax.jit(lambda params, obs, carry, start: self.apply(params, obs, carry, start)[1])
        self._learn = jax.jit(self.learn, donate_argnums=0)

    def _mask(self, info: Mapping[str, Any]) -> np.ndarray:
        mask = info.get("action_mask") if isinstance(info, Mapping) else None
        if mask is None or self.continuous:
            return np.ones((self.config.num_envs, self.action_dim), bool)
        return np.asarray(mask, bool)

    def initial_state(self, key: jax.Array):
        obs, info = self.venv.reset(seed=self.config.seed)
        obs = observation_to_array(obs)
        return self.create_train_state(key, jnp.asarray(obs)), obs, info

    def rollout(self, params, obs, info, carry, start, key, stats):
        """`num_steps` steps of every env; returns the trajectory (numpy, [T, B, ...]) and the state after."""
        cfg = self.config
        t_obs, t_act, t_logp, t_val, t_rew, t_done, t_start, t_mask = ([] for _ in range(8))
        carry0 = carry
        for _ in range(cfg.num_steps):
            key, k = jax.random.split(key)
            mask = self._mask(info)
            action, env_action, log_prob, value, carry = self._act(params, obs, carry, start, mask, k)
            next_obs, reward, terminated, truncated, info = self.venv.step(np.asarray(env_action))
            reward = np.asarray(reward, np.float32)
            done = np.asarray(terminated) | np.asarray(truncated)
            train_reward = reward
            cut = np.asarray(truncated) & ~np.asarray(terminated)
            if cfg.policy == "mlp" and cut.any():
                # A time limit is not a terminal state: bootstrap from the last observation's value.
                final = observation_to_array(info["final_obs"])
                train_reward = reward + cfg.gamma * np.where(cut, np.asarray(self._value(params, final, None, None)), 0.0)
            for name, fn in self.metrics.items():
                stats["running"][name] += fn(reward, info)
            ended = np.flatnonzero(done)
            stats["ended"] += len(ended)
            for name in self.metrics:
                stats["sums"][name] += float(stats["running"][name][ended].sum())
                stats["running"][name][ended] = 0.0
            for buf, x in zip((t_obs, t_act, t_logp, t_val, t_rew, t_done, t_start, t_mask),
                              (obs, action, log_prob, value, train_reward, done, start, mask)):  # fmt: skip
                buf.append(np.asarray(x))
            obs, start = observation_to_array(next_obs), done
        traj = Transition(
            obs=np.stack(t_obs), action=np.stack(t_act), log_prob=np.stack(t_logp), value=np.stack(t_val),
            reward=np.stack(t_rew), done=np.stack(t_done), start=np.stack(t_start), mask=np.stack(t_mask),
        )  # fmt: skip
        last_value = self._value(params, obs, carry, start)
        return traj, last_value, carry0, (obs, info, carry, start, key)


def _default_venv(config: PPOConfig) -> gymnasium.vector.VectorEnv:
    return paritygym.make_vec(config.env_id, num_envs=config.num_envs, seed=config.seed, **config.env_kwargs)


def train_host(config: PPOConfig, make_venv: Callable[[PPOConfig], gymnasium.vector.VectorEnv] | None = None,
               episode_metrics: Mapping[str, HostEpisodeMetric] | None = None, verbose: bool = True) -> TrainResult:  # fmt: skip
    """Trains PPO on a numpy vector env with the same stopping rules and outputs as `train` (no resume:
    the vector env's state cannot be saved)."""
    if config.resume or config.checkpoint_every_s is not None:
        raise ValueError("resume and checkpoint_every_s need a JAX env (paritygym.train.train)")
    ppo = HostPPO(config, make_venv, episode_metrics)
    say = progress if verbose else (lambda msg: None)
    key = jax.random.key(config.seed)
    key, k_init = jax.random.split(key)
    train_state, obs, info = ppo.initial_state(k_init)
    carry = ppo.initial_carry(config.num_envs)
    start = np.ones(config.num_envs, bool)
    say(f"PPO (host rollout) on {config.env_id} {config.env_kwargs or ''}: {config.num_envs} envs x "
        f"{config.num_steps} steps per update, {config.policy} policy")  # fmt: skip
    stats = {"running": {k: np.zeros(config.num_envs) for k in ppo.metrics}, "ended": 0, "sums": {}}
    t0 = time.perf_counter()
    compile_s = 0.0
    first = True

    def update() -> dict[str, Any]:
        nonlocal train_state, obs, info, carry, start, key, compile_s, first
        stats["ended"] = 0
        stats["sums"] = {k: 0.0 for k in ppo.metrics}
        traj, last_value, carry0, (obs, info, carry, start, key) = ppo.rollout(
            train_state.params, obs, info, carry, start, key, stats
        )
        key, k_learn = jax.random.split(key)
        train_state, losses = ppo._learn(train_state, jax.tree.map(jnp.asarray, traj), last_value, carry0, k_learn)
        losses = jax.device_get(losses)
        if first:  # the first update includes compiling the policy step and the learner
            compile_s = time.perf_counter() - t0
            first = False
        metrics = dict(losses)
        metrics["episodes"] = stats["ended"]
        metrics.update({f"episode_{k}_sum": v for k, v in stats["sums"].items()})
        return metrics

    try:
        return run_loop(config, list(ppo.metrics), update, lambda: jax.device_get(train_state.params), lambda: compile_s, say)
    finally:
        ppo.venv.close()
