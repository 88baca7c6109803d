#!/usr/bin/env python
"""Where PPO's wall time goes: env stepping vs model forward/backward, per env, for policies of about
2M, 20M and 200M parameters, with our backend and with the reference backend.

    python scripts/training_overhead.py                      # every registered env with a reference hook
    python scripts/training_overhead.py --envs Pong-v0 --out docs/benchmarks

Per sample (one env step of one env) it measures:
- env time: 1 / steps-per-second of random-action rollouts at the given batch (`paritygym.bench`,
  the lax.scan-fused loop for JAX envs, the native vector API for Rust ones) and of the reference
  (its benchmark hook, one process);
- model time: one PPO iteration's network work divided by its samples — the rollout's forward pass
  plus `update_epochs` epochs of forward+backward over minibatches — for an MLP actor-critic whose
  width gives the target parameter count (batch reduced for the largest model on CPU).
The env fraction is env / (env + model). Writes a Markdown table, JSON and a stacked-bar PNG.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import paritygym
from paritygym.bench.machine import machine_info
from paritygym.registry import load

SIZES = {"10K": 10_000, "2M": 2_000_000, "20M": 20_000_000, "200M": 200_000_000}


def mlp_width(target_params: int, obs_dim: int, action_dim: int) -> int:
    """Width of the 2-layer actor and critic MLPs giving about ``target_params`` parameters."""
    # params ~ 2 * (obs*w + w*w + w) + w*(action+1) -> solve 2w^2 + (2*obs + action + 3) w = P
    b = 2 * obs_dim + action_dim + 3
    return int((-b + math.sqrt(b * b + 8 * target_params)) / 4)


def model_seconds_per_sample(obs_dim: int, action_dim: int, continuous: bool, width: int, batch: int,
                             epochs: int = 4, minibatches: int = 4, repeats: int = 2) -> tuple[float, int]:  # fmt: skip
    from paritygym.train.ppo import Learner, PPOConfig, Transition

    class _Space:
        def __init__(self):
            if continuous:
                self.shape, self.low, self.high = (action_dim,), -np.ones(action_dim), np.ones(action_dim)
            else:
                self.n = action_dim

    config = PPOConfig(num_envs=batch, num_steps=1, hidden=width, layers=2, update_epochs=epochs,
                       num_minibatches=minibatches, total_timesteps=batch)  # fmt: skip
    learner = Learner(config, _Space(), {}, {})
    key = jax.random.key(0)
    obs = jax.random.normal(key, (batch, obs_dim))
    state = _random_train_state(learner, key, obs)
    n_params = sum(x.size for x in jax.tree.leaves(state.params))

    def iteration(state, obs, key):
        action, _, log_prob, value, _ = learner.act(state.params, obs, None, None, None, key)
        traj = Transition(obs=obs[None], action=action[None], log_prob=log_prob[None], value=value[None],
                          reward=jnp.ones((1, batch)), done=jnp.zeros((1, batch), bool),
                          start=jnp.zeros((1, batch), bool), mask=jnp.ones((1, batch, action_dim if not continuous else 1), bool))  # fmt: skip
        return learner.learn(state, traj, value, jnp.zeros((batch, 1)), key)

    fn = jax.jit(iteration).lower(state, obs, key).compile()
    jax.block_until_ready(fn(state, obs, key))
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(fn(state, obs, key))
    return (time.perf_counter() - start) / repeats / batch, n_params


def _random_train_state(learner, key, obs):
    """A train state of the right shapes with scaled Gaussian weights. The trainer's orthogonal
    initialisation needs a QR decomposition per layer, which for the 10,000-wide layers of the 200M
    policy takes longer on a CPU than the measurement itself; weight values do not change the timing."""
    abstract = jax.eval_shape(learner.create_train_state, key, obs)
    leaves, treedef = jax.tree.flatten(abstract)
    keys = jax.random.split(key, len(leaves))
    filled = []
    for k, leaf in zip(keys, leaves):
        if jnp.issubdtype(leaf.dtype, jnp.floating) and len(leaf.shape) == 2:
            filled.append(jax.random.normal(k, leaf.shape, leaf.dtype) / math.sqrt(leaf.shape[0]))
        else:
            filled.append(jnp.zeros(leaf.shape, leaf.dtype))
    return jax.tree.unflatten(treedef, filled)


def env_seconds_per_sample(env_id: str, batch: int, reference_steps: int) -> tuple[float, float | None]:
    """Seconds per env step of our backend (batch ``batch``) and of the reference (one process,
    about ``reference_steps`` steps in all: the slow references would take minutes at 200 x batch)."""
    from paritygym.bench import run_bench

    spec = paritygym.spec(env_id)
    modes = ("loop",) if spec.kind == "native" else ("scan",)
    result = run_bench(env_id, batches=[batch], min_seconds=1.0, modes=modes)
    ours = result.measurements[0].steps_per_second
    ref = None
    if spec.reference_bench:
        ref = float(load(spec.reference_bench)(batch_size=batch, num_steps=max(1, reference_steps // batch), num_procs=1))
    return 1.0 / ours, (1.0 / ref if ref else None)


def spaces_of(env_id: str) -> tuple[int, int, bool]:
    spec = paritygym.spec(env_id)
    if spec.kind == "native":
        venv = paritygym.make_vec(env_id, num_envs=1, seed=0)
        obs_dim = int(np.prod(venv.single_observation_space.shape))
        space = venv.single_action_space
        venv.close()
    else:
        env, params = paritygym.make(env_id)
        obs_dim = int(sum(np.prod(x.shape) for x in jax.tree.leaves(jax.eval_shape(lambda k: env.reset(k, params)[0], jax.random.key(0)))))
        space = env.action_space(params)
    continuous = not hasattr(space, "n")
    return obs_dim, int(np.prod(space.shape)) if continuous else int(space.n), continuous


def main(argv=None) -> int:
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default=None, help="comma-separated env ids (default: all with a reference hook)")
    parser.add_argument("--batch", type=int, default=1024, help="env batch (and model batch for 2M/20M)")
    parser.add_argument("--large-batch", type=int, default=64, help="model batch for the 200M policy on CPU")
    parser.add_argument("--sizes", default=",".join(SIZES), help="policy sizes to measure, of " + ",".join(SIZES))
    parser.add_argument("--reference-steps", type=int, default=20_000, help="env steps timed on each reference")
    parser.add_argument("--out", default="docs/benchmarks")
    parser.add_argument("--append", action="store_true",
                        help="keep the rows of other envs already in OUT/training_overhead.json (measure envs in separate runs)")
    parser.add_argument("--reuse-model", action="store_true",
                        help="with --append: take each policy size's model time from the rows already there instead of "
                        "measuring it again (an MLP's cost per sample follows its parameter count, not which env feeds it)")
    args = parser.parse_args(argv)
    env_ids = args.envs.split(",") if args.envs else [e for e in paritygym.registered_envs() if paritygym.spec(e).reference_bench]
    out = pathlib.Path(args.out)
    rows: list[dict] = []
    measured_models: dict[str, dict] = {}
    if args.append and (out / "training_overhead.json").is_file():
        rows = [r for r in json.loads((out / "training_overhead.json").read_text())["rows"] if r["env"] not in env_ids]
    measured_models = {r["policy"]: r for r in rows if r.get("model_measured_on", r["env"]) == r["env"]}
    for env_id in env_ids:
        print(f"{env_id}: env throughput", file=sys.stderr, flush=True)
        obs_dim, action_dim, continuous = spaces_of(env_id)
        t_env, t_ref = env_seconds_per_sample(env_id, args.batch, args.reference_steps)
        for label in args.sizes.split(","):
            target = SIZES[label]
            width = mlp_width(target, obs_dim, action_dim)
            batch = args.large_batch if target >= 100_000_000 and jax.default_backend() == "cpu" else args.batch
            model_env = env_id
            if args.reuse_model and label in measured_models:
                known = measured_models[label]
                t_model, n_params, batch, model_env = known["model_us_per_sample"] * 1e-6, known["params"], known["model_batch"], known["env"]
                print(f"  {label} policy: model time of {model_env}'s {n_params:,}-parameter policy", file=sys.stderr, flush=True)
            else:
                print(f"  {label} policy (width {width}, batch {batch})", file=sys.stderr, flush=True)
                t_model, n_params = model_seconds_per_sample(obs_dim, action_dim, continuous, width, batch)
            for backend, t in (("ours", t_env), ("reference", t_ref)):
                if t is None:
                    continue
                rows.append({"env": env_id, "backend": backend, "policy": label, "params": n_params,
                             "env_batch": args.batch, "model_batch": batch, "model_measured_on": model_env,
                             "env_us_per_sample": t * 1e6, "model_us_per_sample": t_model * 1e6,
                             "env_fraction": t / (t + t_model)})  # fmt: skip
    rows.sort(key=lambda r: (r["env"], r["backend"] != "ours", r["params"]))
    out.mkdir(parents=True, exist_ok=True)
    info = machine_info()
    (out / "training_overhead.json").write_text(json.dumps({"machine": info, "rows": rows}, indent=1) + "\n")
    lines = [
        "# Where PPO's time goes: env stepping vs the model",
        "",
        f"`python scripts/training_overhead.py` on {info['cpu']} ({info['cpu_count']} cores, JAX {info['jax_backend']}).",
        "Env time: our backend at the env batch below; the reference in one process. Model time: one PPO",
        "iteration's rollout forward pass plus 4 epochs x 4 minibatches of forward+backward and Adam, per sample,",
        "at the model batch below. Wall-clock times on a shared machine (see the machine line in the JSON).",
        "",
        "| env | backend | policy | params | env batch | model batch | env µs/sample | model µs/sample | env share of time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        reused = "†" if r.get("model_measured_on", r["env"]) != r["env"] else ""
        lines.append(f"| {r['env']} | {r['backend']} | {r['policy']} | {r['params']:,} | {r.get('env_batch', '')} | "
                     f"{r.get('model_batch', '')} | {r['env_us_per_sample']:.3f} | {r['model_us_per_sample']:.3f}{reused} | "
                     f"{100 * r['env_fraction']:.1f}% |")  # fmt: skip
    sources = sorted({r["model_measured_on"] for r in rows if r.get("model_measured_on", r["env"]) != r["env"]})
    if sources:
        lines += ["", f"† model time measured once per policy size on {', '.join(sources)} (`--reuse-model`): an MLP's "
                  "cost per sample follows its parameter count, not the env that feeds it."]
    (out / "training_overhead.md").write_text("\n".join(lines) + "\n")
    plot(rows, out / "training_overhead.png")
    print("\n".join(lines))
    return 0


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['env']}\n{r['backend']} {r['policy']}" for r in rows]
    env_share = [100 * r["env_fraction"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(rows)), 4.5))
    x = np.arange(len(rows))
    ax.bar(x, env_share, label="env stepping")
    ax.bar(x, [100 - e for e in env_share], bottom=env_share, label="model forward/backward")
    ax.set_xticks(x, labels, rotation=90, fontsize=7)
    ax.set_ylabel("% of PPO wall time")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
