"""What every PPO trainer shares: the config, the `Learner` (network, optimiser, GAE and the
clipped-objective update, all jitted), and the loop around the updates with its outputs (progress
lines, metrics, curve, checkpoint). `paritygym.train.ppo` (JAX envs, rollout inside the jitted
update) and `paritygym.train.host` (numpy vector envs stepped from Python) build on it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
import time
from typing import Any, Callable, Mapping, Sequence

import flax
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.training.train_state import TrainState

from paritygym.train import networks as nets


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
    # Resumable training (JAX envs, `train`): every `checkpoint_every_s` seconds and at the end the whole
    # training state (params, optimiser state, envs, RNG, step count, history) goes to out_dir/training_state.msgpack;
    # with `resume`, a run whose out_dir holds that file continues from it (time_budget_s then counts this invocation).
    checkpoint_every_s: float | None = None
    resume: bool = False

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


def progress(msg: str) -> None:
    print(msg, flush=True)


def run_loop(config: PPOConfig, metric_names: Sequence[str], update: Callable[[], Mapping[str, Any]],
             get_params: Callable[[], Any], compile_s: float | Callable[[], float], say: Callable[[str], None],
             resumed: Mapping[str, Any] | None = None,
             save_state: Callable[[Mapping[str, Any]], None] | None = None) -> TrainResult:
    """The loop every trainer shares: call ``update`` (one rollout + learning step, returning losses,
    the number of episodes that ended and their metric sums), log progress, apply the stopping rules
    (steps, time budget, target metric over the last `target_window` episodes), write outputs.

    ``resumed``: the progress of an earlier invocation (``steps``, ``seconds``, ``history``) that this
    one continues; ``save_state(progress)``: writes the trainer's state with that progress (every
    ``config.checkpoint_every_s`` seconds and after the last update)."""
    if config.target_metric is not None and config.target_metric not in metric_names:
        raise ValueError(f"target_metric {config.target_metric!r} is not an episode metric of this run "
                         f"({', '.join(metric_names)}); use None for no target")
    out_dir = pathlib.Path(config.out_dir) if config.out_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    history: list[dict[str, float]] = list(resumed["history"]) if resumed else []
    recent: dict[str, list[float]] = {k: [] for k in metric_names}  # per-update sums over ended episodes
    recent_counts: list[int] = []
    start = time.perf_counter()
    last_log = -math.inf
    last_save = 0.0
    steps = int(resumed["steps"]) if resumed else 0
    seconds_before = float(resumed["seconds"]) if resumed else 0.0
    first_update = len(history) + 1
    reached = False
    if first_update > config.num_updates:
        say(f"nothing to do: {steps:,} steps already trained (total_timesteps {config.total_timesteps:,})")
    for update_index in range(first_update, config.num_updates + 1):
        metrics = update()
        steps += config.batch_size
        elapsed = time.perf_counter() - start
        n = int(metrics["episodes"])
        row = {"update": update_index, "steps": steps, "seconds": seconds_before + elapsed, "episodes": n}
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
        if save_state is not None and (last or (config.checkpoint_every_s is not None
                                                and elapsed - last_save >= config.checkpoint_every_s)):
            last_save = elapsed
            save_state({"steps": steps, "seconds": seconds_before + elapsed, "history": history})
            if not last:
                say(f"saved the training state at {steps:,} steps")
        if elapsed - last_log >= config.log_every_s or last:
            last_log = elapsed
            sps = (update_index - first_update + 1) * config.batch_size / max(elapsed, 1e-9)
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
    seconds = seconds_before + time.perf_counter() - start
    result = TrainResult(config, get_params(), history, steps, seconds, compile_s, reached, out_dir)
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
