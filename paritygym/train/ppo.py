"""PPO for every paritygym JAX env, in the PureJaxRL style: one jitted update = a `lax.scan` rollout
of the vmapped env, GAE, and several epochs of minibatch updates. The Python loop around it only
logs progress, checks stopping rules and writes checkpoints.

    config = PPOConfig(env_id="Pong-v0", env_kwargs={"frame_skip": 4})
    result = train(config)            # progress on stdout, metrics/curve/checkpoint in config.out_dir

Policies: `mlp` (feed-forward) or `gru` (recurrent; hidden state reset at episode starts).
Action masks: envs with `action_mask(state, params)` (the card and battle games) get masked logits.
Several devices: the env batch is sharded over all JAX devices when it divides evenly.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import sys
import time
from typing import Any, Callable, Mapping

import flax
import jax
import jax.numpy as jnp
import numpy as np
from flax.training.train_state import TrainState

import paritygym
from paritygym.batching import batched_step, batched_step_on_devices, env_axis_sharding
from paritygym.train import networks as nets
from paritygym.train.learner import Learner, PPOConfig, TrainResult, Transition, progress, run_loop

# A per-step quantity summed over an episode and reported at its end, e.g. Pong's score margin:
# (reward, info) -> value for this step.
EpisodeMetric = Callable[[jax.Array, Mapping[str, jax.Array]], jax.Array]


@flax.struct.dataclass
class EpisodeStats:
    """Running per-env sums and, per update, the sums over the episodes that ended."""

    running: dict  # name -> [num_envs]
    ended_count: jax.Array
    ended_sums: dict  # name -> scalar: sum over ended episodes this update


@flax.struct.dataclass
class RunnerState:
    train_state: TrainState
    env_state: Any
    obs: jax.Array
    start: jax.Array
    carry: jax.Array  # GRU hidden state ([num_envs, hidden]; unused zeros for MLP)
    key: jax.Array
    stats: EpisodeStats


def _flatten_obs(obs: Any) -> jax.Array:
    leaves = jax.tree.leaves(obs)
    if len(leaves) == 1:
        return jnp.asarray(leaves[0], jnp.float32)
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(x.shape[0], -1) for x in leaves], axis=-1)


class PPO(Learner):
    """PPO on a paritygym JAX env: rollout, GAE and updates in one jitted function (`update`)."""

    def __init__(self, config: PPOConfig, episode_metrics: Mapping[str, EpisodeMetric] | None = None,
                 env: tuple[Any, Any] | None = None):
        # env: (env, env_params) to train on instead of `paritygym.make(config.env_id, **config.env_kwargs)`,
        # e.g. a training wrapper with a shaped reward or other starts (same observation and action spaces)
        self.env, self.env_params = env if env is not None else paritygym.make(config.env_id, **config.env_kwargs)
        default = {"return": lambda r, info: r, "length": lambda r, info: jnp.ones_like(r)}
        super().__init__(config, self.env.action_space(self.env_params), episode_metrics, default)
        self.has_mask = callable(getattr(self.env, "action_mask", None))
        self.sharding = env_axis_sharding(config.num_envs)
        # the rollout's batched env step `(key, states, actions)`; with several devices each steps its own envs
        self._step_envs = batched_step_on_devices(self.env, self.env_params, config.num_envs, self.sharding)
        self.update = jax.jit(self._update, donate_argnums=0)

    def _constrain(self, tree):
        if self.sharding is None:
            return tree
        return jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, self.sharding) if x.ndim else x, tree)

    def _mask(self, env_state) -> jax.Array:
        if not self.has_mask:
            return jnp.ones((self.config.num_envs, self.action_dim), bool)
        return jax.vmap(self.env.action_mask, in_axes=(0, None))(env_state, self.env_params)

    def init(self, key: jax.Array) -> RunnerState:
        cfg = self.config
        k_net, k_env, k_run = jax.random.split(key, 3)
        obs, env_state = jax.vmap(self.env.reset, in_axes=(0, None))(jax.random.split(k_env, cfg.num_envs), self.env_params)
        obs = _flatten_obs(obs)
        carry = self.initial_carry(cfg.num_envs)
        train_state = self.create_train_state(k_net, obs)
        # Separate buffers per field: the update donates its input, and one buffer cannot be donated twice.
        stats = EpisodeStats(
            running={k: jnp.zeros(cfg.num_envs, jnp.float32) for k in self.metrics},
            ended_count=jnp.zeros((), jnp.int32),
            ended_sums={k: jnp.zeros((), jnp.float32) for k in self.metrics},
        )
        runner = RunnerState(train_state, env_state, obs, jnp.ones(cfg.num_envs, bool), carry, k_run, stats)
        return self.place(runner)

    def place(self, runner: RunnerState) -> RunnerState:
        """The runner's per-env arrays on the devices (sharded over the env axis where there are several)."""
        if self.sharding is not None:
            runner = runner.replace(
                env_state=jax.device_put(runner.env_state, self.sharding),
                obs=jax.device_put(runner.obs, self.sharding),
                start=jax.device_put(runner.start, self.sharding),
                carry=jax.device_put(runner.carry, self.sharding),
            )
        return runner

    def _rollout(self, runner: RunnerState):
        cfg = self.config
        params = runner.train_state.params

        def env_step(r: RunnerState, _):
            key, k_act, k_env = jax.random.split(r.key, 3)
            mask = self._mask(r.env_state)
            dist, value, carry = self.apply(params, r.obs, r.carry, r.start)
            action, log_prob = nets.sample_action(k_act, dist, self.continuous, None if self.continuous else mask)
            obs, env_state, reward, terminated, truncated, info = self._step_envs(k_env, r.env_state, self.env_action(action))
            obs = _flatten_obs(obs)
            reward = reward.astype(jnp.float32)
            done = terminated | truncated
            train_reward = reward
            if cfg.policy == "mlp":
                # A time limit is not a terminal state: bootstrap from the value of the last observation.
                # The barrier materialises the observation first: otherwise XLA may fuse the whole env
                # step into the matmul's operand and recompute it for every output unit (100x slower).
                final_obs = jax.lax.optimization_barrier(_flatten_obs(info["final_observation"]))
                _, final_value, _ = self.apply(params, final_obs)
                train_reward = reward + cfg.gamma * jnp.where(truncated & ~terminated, final_value, 0.0)
            transition = Transition(r.obs, action, log_prob, value, train_reward, done, r.start, mask)
            running = {k: r.stats.running[k] + fn(reward, info) for k, fn in self.metrics.items()}
            stats = EpisodeStats(
                running={k: jnp.where(done, 0.0, v) for k, v in running.items()},
                ended_count=r.stats.ended_count + done.sum(),
                ended_sums={k: r.stats.ended_sums[k] + jnp.where(done, v, 0.0).sum() for k, v in running.items()},
            )
            r = r.replace(env_state=self._constrain(env_state), obs=self._constrain(obs), start=done, carry=carry,
                          key=key, stats=stats)  # fmt: skip
            return r, transition

        start_carry, start_flags = runner.carry, runner.start
        runner, traj = jax.lax.scan(env_step, runner, None, cfg.num_steps)
        _, last_value, _ = self.apply(params, runner.obs, runner.carry, runner.start)
        return runner, traj, last_value, start_carry, start_flags

    def _update(self, runner: RunnerState):
        runner = runner.replace(stats=runner.stats.replace(
            ended_count=jnp.zeros((), jnp.int32), ended_sums={k: jnp.zeros((), jnp.float32) for k in self.metrics}))  # fmt: skip
        runner, traj, last_value, carry0, _ = self._rollout(runner)
        key, k_learn = jax.random.split(runner.key)
        train_state, metrics = self.learn(runner.train_state, traj, last_value, carry0, k_learn)
        runner = runner.replace(train_state=train_state, key=key)
        metrics["episodes"] = runner.stats.ended_count
        for k, v in runner.stats.ended_sums.items():
            metrics[f"episode_{k}_sum"] = v
        return runner, metrics


def train(config: PPOConfig, episode_metrics: Mapping[str, EpisodeMetric] | None = None, verbose: bool = True,
          env: tuple[Any, Any] | None = None) -> TrainResult:
    """Trains until ``total_timesteps``, ``time_budget_s`` or the target metric, whichever comes first.

    With ``config.resume`` and a ``training_state.msgpack`` in ``config.out_dir`` (written every
    ``config.checkpoint_every_s`` seconds and at the end), training continues from that state: the
    same params, optimiser state, envs, RNG key, step count and history. ``env``: see `PPO`."""
    ppo = PPO(config, episode_metrics, env)
    runner = ppo.init(jax.random.key(config.seed))
    say = progress if verbose else (lambda msg: None)
    say(f"PPO on {config.env_id} {config.env_kwargs or ''}: {config.num_envs} envs x {config.num_steps} steps per update, "
        f"{config.policy} policy, {jax.device_count()} {jax.default_backend()} device(s)")  # fmt: skip
    state_path = pathlib.Path(config.out_dir) / TRAINING_STATE if config.out_dir else None
    resumed = None
    if config.resume and state_path is not None and state_path.is_file():
        runner, resumed = load_training_state(state_path, runner, config)
        runner = ppo.place(runner)
        say(f"resumed from {state_path} at {resumed['steps']:,} steps ({len(resumed['history'])} updates)")
    save_state = None
    if state_path is not None and (config.resume or config.checkpoint_every_s is not None):
        def save_state(progress_so_far):
            save_training_state(state_path, runner, config, progress_so_far)
    t0 = time.perf_counter()
    compiled = ppo.update.lower(runner).compile()
    compile_s = time.perf_counter() - t0
    say(f"compiled the update in {compile_s:.1f} s")

    def update() -> dict[str, float]:
        nonlocal runner
        runner, metrics = compiled(runner)
        return jax.device_get(metrics)

    return run_loop(config, list(ppo.metrics), update, lambda: jax.device_get(runner.train_state.params), compile_s, say,
                    resumed, save_state)


# ---- resumable training state ---------------------------------------------------------------------

TRAINING_STATE = "training_state.msgpack"
# Config fields that may change between the invocations of one resumed run (a new total_timesteps
# moves the end of the learning-rate annealing, when anneal_lr is set).
_RESUMABLE_CHANGES = {"total_timesteps", "time_budget_s", "resume", "checkpoint_every_s", "log_every_s", "out_dir",
                      "target_metric", "target_value", "target_window"}


def _portable(runner: RunnerState) -> RunnerState:
    """The runner with its RNG key as raw key data (typed keys do not serialise)."""
    return runner.replace(key=jax.random.key_data(runner.key))


def save_training_state(path: str | pathlib.Path, runner: RunnerState, config: PPOConfig, progress_so_far: Mapping[str, Any]) -> None:
    """The whole training state (params, optimiser state, env states, observations, RNG key, episode
    statistics) and the progress (steps, seconds, history) in one msgpack file, written atomically."""
    path = pathlib.Path(path)
    meta = {"config": dataclasses.asdict(config), "steps": int(progress_so_far["steps"]),
            "seconds": float(progress_so_far["seconds"]), "history": list(progress_so_far["history"])}
    blob = flax.serialization.msgpack_serialize({
        "runner": flax.serialization.to_state_dict(jax.device_get(_portable(runner))),
        "meta": json.dumps(meta, default=float),
    })  # fmt: skip
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(blob)
    os.replace(tmp, path)


def load_training_state(path: str | pathlib.Path, template: RunnerState, config: PPOConfig) -> tuple[RunnerState, dict]:
    """(runner, progress) from `save_training_state`; ``template``: a fresh runner of the same config.
    Refuses a state written with a config that differs in more than the fields a resume may change."""
    data = flax.serialization.msgpack_restore(pathlib.Path(path).read_bytes())
    meta = json.loads(data["meta"])
    now = dataclasses.asdict(config)
    changed = sorted(k for k in now if k not in _RESUMABLE_CHANGES and json.loads(json.dumps(now[k])) != meta["config"].get(k))
    if changed:
        raise ValueError(f"{path} was written by a run with other settings ({', '.join(changed)}): "
                         "use another out_dir, delete the file, or resume with the same settings")
    portable = flax.serialization.from_state_dict(jax.device_get(_portable(template)), data["runner"])
    runner = jax.tree.map(jnp.asarray, portable)
    return runner.replace(key=jax.random.wrap_key_data(runner.key)), meta


def trained_steps(checkpoint: str | pathlib.Path) -> int | None:
    """Env steps a checkpoint was trained for, from the metrics.json its run wrote beside it
    (None when that file is missing or unreadable)."""
    metrics = pathlib.Path(checkpoint).parent / "metrics.json"
    try:
        return int(json.loads(metrics.read_text())["steps"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def find_checkpoint(env_var: str, default: str, example: str, user: str) -> pathlib.Path:
    """The checkpoint named by the environment variable `env_var`, else `default`; a clear error
    naming the example that writes it when neither exists; `user` names the tool that needs it."""
    path = pathlib.Path(os.environ.get(env_var, default))
    if not path.is_file():
        raise FileNotFoundError(
            f"{user} evaluates a trained policy, and {path} does not exist: run `python {example}` first (or set {env_var} to a "
            "checkpoint.msgpack written by paritygym.train)")
    return path


def load_checkpoint(path: str | pathlib.Path) -> tuple[PPOConfig, Any, Learner]:
    """Returns (config, params, learner) from a checkpoint written by `save_checkpoint`; the learner
    is a `PPO` for JAX envs and a `HostPPO` (with its vector env open) for native ones."""
    path = pathlib.Path(path)
    config = PPOConfig(**json.loads(path.with_suffix(".config.json").read_text()))
    if paritygym.spec(config.env_id).kind == "native":
        from paritygym.train.host import HostPPO

        learner: Learner = HostPPO(config)
        template = learner.initial_state(jax.random.key(0))[0].params
    else:
        learner = PPO(config)
        # Only the parameters' structure is needed: trace, do not compile or run the envs' reset.
        template = jax.eval_shape(lambda: learner.init(jax.random.key(0)).train_state.params)
    params = flax.serialization.from_bytes(template, path.read_bytes())
    return config, params, learner


def evaluate(ppo: PPO, params: Any, num_episodes: int, seed: int = 0, greedy: bool = False,
             max_steps: int = 100_000) -> dict[str, np.ndarray]:
    """Runs the policy in our env until ``num_episodes`` episodes have ended (the first episode of each
    of ``num_episodes`` parallel envs); returns each episode's metrics."""
    cfg = ppo.config
    n = num_episodes
    keys = jax.random.split(jax.random.key(seed), n)
    obs, state = jax.vmap(ppo.env.reset, in_axes=(0, None))(keys, ppo.env_params)
    carry = ppo.network.initial_carry(n) if cfg.policy == "gru" else jnp.zeros((n, 1))

    run_chunk = _evaluation_chunk(ppo, n, greedy)
    zeros = {k: jnp.zeros(n) for k in ppo.metrics}
    carry_state = (obs, state, carry, jnp.ones(n, bool), zeros, jnp.zeros(n, bool), zeros)
    key = jax.random.key(seed + 1)
    for _ in range(0, max_steps, 256):
        key, k = jax.random.split(key)
        carry_state = run_chunk(carry_state, k, params, ppo.env_params)
        if bool(carry_state[5].all()):
            break
    finished = np.asarray(carry_state[5])
    if not finished.all():
        print(f"warning: {int((~finished).sum())} of {n} evaluation episodes did not end within {max_steps} steps", file=sys.stderr)
    return {k: np.asarray(v)[finished] for k, v in carry_state[6].items()}


def rate_interval(outcomes: Any, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (95% for z = 1.96) of the rate of a 0/1 outcome (e.g. per-episode wins)."""
    x = np.asarray(outcomes, np.float64)
    n = x.size
    if n == 0:
        raise ValueError("no outcomes: the interval of an empty sample is undefined")
    p = float(x.mean())
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _evaluation_chunk(ppo: PPO, n: int, greedy: bool):
    """The jitted 256-step evaluation scan for ``n`` envs. Network and env params are arguments, not
    constants, so evaluating another checkpoint or against another opponent (a params field) reuses
    the compiled program; it is cached on ``ppo``."""
    cache = ppo.__dict__.setdefault("_evaluation_chunks", {})
    cache_key = (n, greedy, tuple(ppo.metrics.items()))
    if cache_key in cache:
        return cache[cache_key]

    def step(carry_state, key, params, env_params):
        obs, state, carry, start, running, finished, totals = carry_state
        k_act, k_env = jax.random.split(key)
        if ppo.has_mask:
            mask = jax.vmap(ppo.env.action_mask, in_axes=(0, None))(state, env_params)
        else:
            mask = None
        dist, _, carry = ppo.apply(params, _flatten_obs(obs), carry, start)
        if greedy:
            action = nets.greedy_action(dist, ppo.continuous, mask)
        else:
            action, _ = nets.sample_action(k_act, dist, ppo.continuous, mask)
        obs, state, reward, term, trunc, info = batched_step(ppo.env)(
            jax.random.split(k_env, n), state, ppo.env_action(action), env_params
        )
        done = term | trunc
        running = {k: running[k] + jnp.where(finished, 0.0, fn(reward.astype(jnp.float32), info)) for k, fn in ppo.metrics.items()}
        totals = {k: jnp.where(done & ~finished, running[k], totals[k]) for k in running}
        return (obs, state, carry, done, running, finished | done, totals), None

    def chunk(carry_state, k, params, env_params):
        return jax.lax.scan(lambda c, key: step(c, key, params, env_params), carry_state, jax.random.split(k, 256))[0]

    cache[cache_key] = jax.jit(chunk)
    return cache[cache_key]
