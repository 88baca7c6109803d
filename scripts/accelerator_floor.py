"""The memory floor of each JAX env's step on an accelerator: the bytes one env step must move at least
(read its state, write its state and observation, read its action), and the env steps per second
the chip's memory bandwidth would allow if that were all the step did. Beside it, XLA's own cost
analysis of the compiled bench step on this backend (operations and bytes accessed per env step;
an estimate from the compiled program, which reads many arrays more than once).

    python scripts/accelerator_floor.py [--envs Pong-v0,...] [--batch 4096] [--bandwidth-gbs 819]

The default bandwidth is the TPU v5e chip's HBM (819 GB/s, Google's published figure). A measured
rate far below the floor means the step is bound by something else than memory traffic: on an
accelerator, by latency (loop trips, gathers, narrow kernels), which `scripts/profile_step.py`
shows.
"""

from __future__ import annotations

import argparse
import sys

import jax
import jax.numpy as jnp
import numpy as np

ENVS = "Pong-v0,HalfCheetah-v0,Climb-v0,PokemonGen1Random-v0,PokemonGen9Random-v0,TCGPocketA1-v0"


def _bytes(tree) -> int:
    return int(sum(np.prod(x.shape) * np.dtype(x.dtype).itemsize for x in jax.tree.leaves(tree)))


def floor_row(env_id: str, batch: int, bandwidth: float) -> dict:
    from paritygym.bench.runner import jax_programs
    from paritygym.registry import make

    env, params = make(env_id)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    states = jax.eval_shape(reset, jax.random.key(0))
    obs_shape = env.observation_space(params).shape
    obs_dtype = env.observation_space(params).dtype
    state_b = _bytes(states) / batch
    obs_b = float(np.prod(obs_shape) * np.dtype(obs_dtype).itemsize)
    minimal = 2 * state_b + obs_b + 4   # state in and out, observation out, an int32 action in
    compiled = loop_step.lower(jax.random.key(0), jnp.int32(0), states).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, (list, tuple)) else (cost or {})
    return {"env": env_id, "state": state_b, "obs": obs_b, "minimal": minimal, "floor": bandwidth / minimal,
            "ops": cost.get("flops", float("nan")) / batch, "accessed": cost.get("bytes accessed", float("nan")) / batch}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default=ENVS)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--bandwidth-gbs", type=float, default=819.0)
    args = parser.parse_args(argv)
    bandwidth = args.bandwidth_gbs * 1e9
    print(f"memory floor at {args.bandwidth_gbs:g} GB/s; XLA cost analysis on {jax.default_backend()} "
          f"at batch {args.batch:,}\n")
    print("| env | state B/env | obs B/env | minimal B/step | floor steps/s | XLA ops/step | XLA bytes/step | "
          "floor from XLA bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for env_id in [e for e in args.envs.split(",") if e]:
        r = floor_row(env_id, args.batch, bandwidth)
        print(f"| {env_id} | {r['state']:,.0f} | {r['obs']:,.0f} | {r['minimal']:,.0f} | {r['floor']:,.3g} | "
              f"{r['ops']:,.0f} | {r['accessed']:,.0f} | {bandwidth / r['accessed']:,.3g} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
