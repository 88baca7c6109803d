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
from typing import Any, Callable, Mapping, Sequence

import flax
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

import paritygym
from paritygym.batching import batched_step, batched_step_on_devices, env_axis_sharding
from paritygym.train import networks as nets

# A per-step quantity summed over an episode and reported at its end, e.g. Pong's score margin:
# (reward, info) -> value for this step.
EpisodeMetric = Callable[[jax.Array, Mapping[str, jax.Array]], jax.Array]


@dataclasses.dataclass
class PPOConfig:
    env_id: str = "Pong-v0"
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    num_envs: int = 256
    num_steps: int = 128  # rollout length per update
    total_timesteps: int = 10_000_000
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    update_epochs: int = 4
    num_minibatches: int = 4
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    policy: str = "mlp"  # "mlp" or "gru"
    hidden: int = 64
    layers: int = 2  # MLP hidden layers
    seed: int = 0
    time_budget_s: float | None = None  # stop after this much wall time
    target_metric: str | None = None  # stop early once the rolling mean of this episode metric...
    target_value: float | None = None  # ...reaches this value
    target_window: int = 100  # ...over this many most recent episodes
    log_every_s: float = 5.0
    out_dir: str | None = None  # metrics.csv, metrics.json, curve.png, checkpoint.msgpack, config.json

    @property
    def batch_size(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        return max(1, self.total_timesteps // self.batch_size)

    def validate(self) -> None:
        if self.policy not in ("mlp", "gru"):
            raise ValueError(f"policy must be 'mlp' or 'gru', got {self.policy!r}")
        if self.num_envs < 1 or self.num_steps < 1:
            raise ValueError("num_envs and num_steps must be positive")
        split = self.num_envs if self.policy == "gru" else self.batch_size
        if split % self.num_minibatches:
            raise ValueError(
                f"num_minibatches ({self.num_minibatches}) must divide "
                + ("num_envs for a GRU policy" if self.policy == "gru" else "num_envs * num_steps")
            )


@flax.struct.dataclass
class Transition:
    obs: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    done: jax.Array  # the episode ended at this step (terminated or truncated)
    start: jax.Array  # this step's observation is an episode's first (GRU resets here)
    mask: jax.Array  # legal actions (all True for envs without masks)


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


class Learner:
    """What every PPO variant shares: the network, its optimiser, GAE and the clipped-objective update.

    Subclasses provide rollouts: `PPO` steps a JAX env inside the jitted update; `HostPPO`
    (paritygym.train.host) steps a numpy vector env (the Rust Game Boy, C references) from Python.
    """

    def __init__(self, config: PPOConfig, action_space: Any, episode_metrics: Mapping[str, Any] | None, default_metrics):
        config.validate()
        self.config = config
        self.continuous = not hasattr(action_space, "n")
        self.action_dim = int(np.prod(action_space.shape)) if self.continuous else int(action_space.n)
        if self.continuous:
            self.action_low = jnp.asarray(action_space.low, jnp.float32)
            self.action_high = jnp.asarray(action_space.high, jnp.float32)
        self.metrics = dict(default_metrics)
        self.metrics.update(episode_metrics or {})
        if config.policy == "mlp":
            self.network = nets.MLPActorCritic(self.action_dim, self.continuous, (config.hidden,) * config.layers)
        else:
            self.network = nets.GRUActorCritic(self.action_dim, self.continuous, config.hidden)

    def initial_carry(self, batch: int) -> jax.Array:
        if self.config.policy == "gru":
            return self.network.initial_carry(batch)
        return jnp.zeros((batch, 1), jnp.float32)

    def create_train_state(self, key: jax.Array, sample_obs: jax.Array) -> TrainState:
        cfg = self.config
        if cfg.policy == "mlp":
            params = self.network.init(key, sample_obs[:1])
        else:
            params = self.network.init(key, self.initial_carry(1), sample_obs[None, :1], jnp.zeros((1, 1), bool))
        lr = cfg.learning_rate
        if cfg.anneal_lr:
            lr = optax.linear_schedule(cfg.learning_rate, 0.0, cfg.num_updates * cfg.update_epochs * cfg.num_minibatches)
        tx = optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), optax.adam(lr, eps=1e-5))
        return TrainState.create(apply_fn=self.network.apply, params=params, tx=tx)

    def apply(self, params, obs, carry=None, start=None):
        """Policy outputs for one step of a batch: (dist, value, new_carry)."""
        if self.config.policy == "mlp":
            dist, value = self.network.apply(params, obs)
            return dist, value, carry
        carry, dist, value = self.network.apply(params, carry, obs[None], start[None])
        dist = jax.tree.map(lambda x: x[0], dist)
        return dist, value[0], carry

    def env_action(self, action: jax.Array) -> jax.Array:
        """The policy's action as the env takes it (continuous actions clipped to the space)."""
        if self.continuous:
            return jnp.clip(action, self.action_low, self.action_high)
        return action.astype(jnp.int32)

    def act(self, params, obs, carry, start, mask, key, greedy: bool = False):
        """One policy step for a batch: (action, env_action, log_prob, value, carry). ``mask`` may be None."""
        dist, value, carry = self.apply(params, obs, carry, start)
        mask = None if self.continuous else mask
        if greedy:
            action = nets.greedy_action(dist, self.continuous, mask)
            log_prob, _ = nets.log_prob_and_entropy(dist, action, self.continuous, mask)
        else:
            action, log_prob = nets.sample_action(key, dist, self.continuous, mask)
        return action, self.env_action(action), log_prob, value, carry

    def _gae(self, traj: Transition, last_value: jax.Array):
        cfg = self.config

        def backward(carry, t: Transition):
            gae, next_value = carry
            not_done = 1.0 - t.done.astype(jnp.float32)
            delta = t.reward + cfg.gamma * next_value * not_done - t.value
            gae = delta + cfg.gamma * cfg.gae_lambda * not_done * gae
            return (gae, t.value), gae

        _, advantages = jax.lax.scan(backward, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
        return advantages, advantages + traj.value

    def _loss(self, params, batch: Transition, advantages, targets, carry0):
        cfg = self.config
        if cfg.policy == "mlp":
            dist, value = self.network.apply(params, batch.obs)
        else:
            _, dist, value = self.network.apply(params, carry0, batch.obs, batch.start)
        log_prob, entropy = nets.log_prob_and_entropy(dist, batch.action, self.continuous, None if self.continuous else batch.mask)
        value_clipped = batch.value + jnp.clip(value - batch.value, -cfg.clip_eps, cfg.clip_eps)
        value_loss = 0.5 * jnp.maximum((value - targets) ** 2, (value_clipped - targets) ** 2).mean()
        ratio = jnp.exp(log_prob - batch.log_prob)
        adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip_eps, 1 + cfg.clip_eps) * adv).mean()
        entropy = entropy.mean()
        total = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy
        approx_kl = ((ratio - 1) - (log_prob - batch.log_prob)).mean()
        return total, {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy, "approx_kl": approx_kl}

    def learn(self, train_state: TrainState, traj: Transition, last_value: jax.Array, carry0: jax.Array, key: jax.Array):
        """GAE, then `update_epochs` epochs of minibatch updates. Returns (train_state, mean losses)."""
        cfg = self.config
        advantages, targets = self._gae(traj, last_value)
        grad_fn = jax.value_and_grad(self._loss, has_aux=True)

        def epoch(train_state, key):
            if cfg.policy == "mlp":
                flat = lambda x: x.reshape((cfg.batch_size,) + x.shape[2:])  # noqa: E731
                data = jax.tree.map(flat, (traj, advantages, targets))
                perm = jax.random.permutation(key, cfg.batch_size)
                shuffled = jax.tree.map(lambda x: x[perm].reshape((cfg.num_minibatches, -1) + x.shape[1:]), data)
                carries = jnp.zeros((cfg.num_minibatches, 1))
            else:
                # Recurrent: minibatches of whole env sequences (time stays axis 0).
                perm = jax.random.permutation(key, cfg.num_envs)
                shuffled = jax.tree.map(
                    lambda x: jnp.swapaxes(x[:, perm].reshape((x.shape[0], cfg.num_minibatches, -1) + x.shape[2:]), 0, 1),
                    (traj, advantages, targets),
                )
                carries = carry0[perm].reshape((cfg.num_minibatches, -1) + carry0.shape[1:])

            def minibatch(train_state, mb):
                (batch, adv, tgt), carry = mb
                (_, aux), grads = grad_fn(train_state.params, batch, adv, tgt, carry)
                return train_state.apply_gradients(grads=grads), aux

            return jax.lax.scan(minibatch, train_state, (shuffled, carries))

        train_state, aux = jax.lax.scan(epoch, train_state, jax.random.split(key, cfg.update_epochs))
        return train_state, {k: v.mean() for k, v in aux.items()}


class PPO(Learner):
    """PPO on a paritygym JAX env: rollout, GAE and updates in one jitted function (`update`)."""

    def __init__(self, config: PPOConfig, episode_metrics: Mapping[str, EpisodeMetric] | None = None):
        self.env, self.env_params = paritygym.make(config.env_id, **config.env_kwargs)
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
        if self.sharding is not None:
            runner = runner.replace(
                env_state=jax.device_put(env_state, self.sharding),
                obs=jax.device_put(obs, self.sharding),
                start=jax.device_put(runner.start, self.sharding),
                carry=jax.device_put(carry, self.sharding),
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


@dataclasses.dataclass
class TrainResult:
    config: PPOConfig
    params: Any
    history: list[dict[str, float]]
    steps: int
    seconds: float
    compile_seconds: float
    reached_target: bool
    out_dir: pathlib.Path | None
    # What a script measured after training (e.g. the examples' evaluation of the saved policy:
    # opponent name -> per-episode metric arrays); empty unless the script fills it.
    evaluation: dict[str, Any] = dataclasses.field(default_factory=dict)


def _progress(msg: str) -> None:
    print(msg, flush=True)


def train(config: PPOConfig, episode_metrics: Mapping[str, EpisodeMetric] | None = None, verbose: bool = True) -> TrainResult:
    """Trains until ``total_timesteps``, ``time_budget_s`` or the target metric, whichever comes first."""
    ppo = PPO(config, episode_metrics)
    runner = ppo.init(jax.random.key(config.seed))
    say = _progress if verbose else (lambda msg: None)
    say(f"PPO on {config.env_id} {config.env_kwargs or ''}: {config.num_envs} envs x {config.num_steps} steps per update, "
        f"{config.policy} policy, {jax.device_count()} {jax.default_backend()} device(s)")  # fmt: skip
    t0 = time.perf_counter()
    compiled = ppo.update.lower(runner).compile()
    compile_s = time.perf_counter() - t0
    say(f"compiled the update in {compile_s:.1f} s")

    def update() -> dict[str, float]:
        nonlocal runner
        runner, metrics = compiled(runner)
        return jax.device_get(metrics)

    return run_loop(config, list(ppo.metrics), update, lambda: jax.device_get(runner.train_state.params), compile_s, say)


def run_loop(config: PPOConfig, metric_names: Sequence[str], update: Callable[[], Mapping[str, Any]],
             get_params: Callable[[], Any], compile_s: float | Callable[[], float], say: Callable[[str], None]) -> TrainResult:
    """The loop every trainer shares: call ``update`` (one rollout + learning step, returning losses,
    the number of episodes that ended and their metric sums), log progress, apply the stopping rules
    (steps, time budget, target metric over the last `target_window` episodes), write outputs."""
    if config.target_metric is not None and config.target_metric not in metric_names:
        raise ValueError(f"target_metric {config.target_metric!r} is not an episode metric of this run "
                         f"({', '.join(metric_names)}); use None for no target")
    out_dir = pathlib.Path(config.out_dir) if config.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    history: list[dict[str, float]] = []
    recent: dict[str, list[float]] = {k: [] for k in metric_names}  # per-update sums over ended episodes
    recent_counts: list[int] = []
    start = time.perf_counter()
    last_log = -math.inf
    steps = 0
    reached = False
    for update_index in range(1, config.num_updates + 1):
        metrics = update()
        steps += config.batch_size
        elapsed = time.perf_counter() - start
        n = int(metrics["episodes"])
        row = {"update": update_index, "steps": steps, "seconds": elapsed, "episodes": n}
        row.update({k: float(metrics[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl")})
        if n:
            for k in metric_names:
                recent[k].append(float(metrics[f"episode_{k}_sum"]))
            recent_counts.append(n)
        # Rolling means over at least `target_window` most recent episodes (whole updates).
        while len(recent_counts) > 1 and sum(recent_counts[1:]) >= config.target_window:
            recent_counts.pop(0)
            for k in recent:
                recent[k].pop(0)
        total = sum(recent_counts)
        for k in metric_names:
            row[f"mean_{k}"] = sum(recent[k]) / total if total else float("nan")
        history.append(row)
        done_by_target = (
            config.target_metric is not None and total >= config.target_window
            and row[f"mean_{config.target_metric}"] >= config.target_value
        )  # fmt: skip
        done_by_time = config.time_budget_s is not None and elapsed >= config.time_budget_s
        last = update_index == config.num_updates or done_by_target or done_by_time
        if elapsed - last_log >= config.log_every_s or last:
            last_log = elapsed
            sps = steps / max(elapsed, 1e-9)
            left = (config.num_updates - update_index) * config.batch_size / max(sps, 1e-9)
            if config.time_budget_s is not None:
                left = min(left, max(config.time_budget_s - elapsed, 0.0))
            shown = " ".join(f"{k} {row[f'mean_{k}']:+.2f}" for k in metric_names if k != "length")
            say(f"steps {steps:>11,}  {sps:>9,.0f} steps/s  episodes {total:>5}  {shown}  "
                f"entropy {row['entropy']:.3f}  elapsed {elapsed:6.0f}s  left ~{left:5.0f}s")  # fmt: skip
        if done_by_target:
            reached = True
            say(f"target reached: mean {config.target_metric} {row[f'mean_{config.target_metric}']:+.2f} "
                f">= {config.target_value} over the last {total} episodes")  # fmt: skip
        if last:
            break

    compile_s = compile_s() if callable(compile_s) else compile_s
    result = TrainResult(config, get_params(), history, steps, time.perf_counter() - start, compile_s, reached, out_dir)
    if out_dir:
        save_outputs(result)
        say(f"wrote {out_dir}/metrics.csv, metrics.json, curve.png, checkpoint.msgpack")
    return result


def save_outputs(result: TrainResult) -> None:
    out = result.out_dir
    assert out is not None
    keys = list(result.history[0].keys()) if result.history else []
    lines = [",".join(keys)] + [",".join(f"{row[k]}" for k in keys) for row in result.history]
    (out / "metrics.csv").write_text("\n".join(lines) + "\n")
    summary = {
        "steps": result.steps, "seconds": result.seconds, "compile_seconds": result.compile_seconds,
        "reached_target": result.reached_target, "final": result.history[-1] if result.history else {},
        "history": result.history,
    }  # fmt: skip
    (out / "metrics.json").write_text(json.dumps(summary, indent=1, default=float) + "\n")
    save_checkpoint(out / "checkpoint.msgpack", result.config, result.params)
    plot_curve(result.history, out / "curve.png", result.config.env_id)


def save_checkpoint(path: str | pathlib.Path, config: PPOConfig, params: Any) -> None:
    """Policy parameters (flax msgpack) with the config beside them (config.json)."""
    path = pathlib.Path(path)
    path.write_bytes(flax.serialization.to_bytes(params))
    path.with_suffix(".config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")


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


def plot_curve(history: Sequence[Mapping[str, float]], path: str | pathlib.Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [k for k in history[0] if k.startswith("mean_") and k != "mean_length"] if history else []
    fig, axes = plt.subplots(1, max(1, len(metrics)), figsize=(5 * max(1, len(metrics)), 3.6), squeeze=False)
    steps = [row["steps"] for row in history]
    for ax, key in zip(axes[0], metrics):
        ax.plot(steps, [row[key] for row in history])
        ax.set_xlabel("env steps")
        ax.set_ylabel(key.removeprefix("mean_"))
        ax.grid(alpha=0.3)
    fig.suptitle(f"PPO on {title}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


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
