"""Throughput of HalfCheetah on this machine: our engine, MuJoCo C through Gymnasium, MJX on the
same model, and Brax's `halfcheetah` (generalized backend). One env step = 5 physics steps.

    python -m benchmarks.halfcheetah                           # all systems, default batches
    python -m benchmarks.halfcheetah --batches 128,1024 --systems ours,mjx

The MuJoCo C rows are `cheetahjax.reference.reference_bench` (the `paritygym bench HalfCheetah-v0
--reference` hook: Gymnasium, one process or one per core). Compile time is measured apart from run time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Callable

from cheetahjax.reference import reference_bench

TARGET_SECONDS = 3.0  # run each measurement about this long


# ---------------------------------------------------------------------------------------------
# JAX systems: a scan of env steps under jit, random actions
# ---------------------------------------------------------------------------------------------

def _time_jax(make_run: Callable[[int], Callable], init: Any, batch: int) -> dict[str, float]:
    """Compile and time ``run(state, key) -> state`` (a scan of `chunk` env steps)."""
    import jax

    chunk = 32
    run = jax.jit(make_run(chunk))
    t0 = time.perf_counter()
    compiled = run.lower(init, jax.random.key(0)).compile()
    compile_s = time.perf_counter() - t0
    state = jax.block_until_ready(compiled(init, jax.random.key(1)))
    calls, elapsed, key = 0, 0.0, 2
    while elapsed < TARGET_SECONDS or calls < 2:
        t = time.perf_counter()
        state = jax.block_until_ready(compiled(state, jax.random.key(key)))
        elapsed += time.perf_counter() - t
        calls += 1
        key += 1
    return {"steps_per_second": batch * chunk * calls / elapsed, "compile_seconds": compile_s}


def ours_bench(batch_size: int, precision: str = "float32") -> dict[str, float]:
    import jax
    import jax.numpy as jnp

    import paritygym

    env, params = paritygym.make("HalfCheetah-v0", precision=precision)
    keys = jax.random.split(jax.random.key(0), batch_size)
    _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(keys, params)

    def make_run(chunk):
        def run(states, key):
            def body(states, k):
                k_act, k_step = jax.random.split(k)
                actions = jax.random.uniform(k_act, (batch_size, 6), jnp.float32, -1.0, 1.0)
                step_keys = jax.random.split(k_step, batch_size)
                _, states, _, _, _, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(step_keys, states, actions, params)
                return states, None

            return jax.lax.scan(body, states, jax.random.split(key, chunk))[0]

        return run

    return _time_jax(make_run, states, batch_size)


def mjx_bench(batch_size: int) -> dict[str, float]:
    """MJX (mujoco-mjx) on Gymnasium's half_cheetah.xml: 5 mjx.step per env step, vmapped."""
    import jax
    import jax.numpy as jnp
    from mujoco import mjx

    from cheetahjax.data.generate import compile_half_cheetah

    mx = mjx.put_model(compile_half_cheetah())
    data = jax.vmap(lambda _: mjx.make_data(mx))(jnp.arange(batch_size))

    def make_run(chunk):
        def run(data, key):
            def body(data, k):
                ctrl = jax.random.uniform(k, (batch_size, 6), jnp.float32, -1.0, 1.0)
                data = data.replace(ctrl=ctrl)
                for _ in range(5):
                    data = jax.vmap(mjx.step, in_axes=(None, 0))(mx, data)
                return data, None

            return jax.lax.scan(body, data, jax.random.split(key, chunk))[0]

        return run

    return _time_jax(make_run, data, batch_size)


def brax_bench(batch_size: int) -> dict[str, float]:
    """Brax's `halfcheetah` (generalized backend; its own XML and solver settings)."""
    import jax
    import jax.numpy as jnp
    from brax import envs

    env = envs.get_environment("halfcheetah", backend="generalized")
    states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), batch_size))

    def make_run(chunk):
        def run(states, key):
            def body(states, k):
                actions = jax.random.uniform(k, (batch_size, env.action_size), jnp.float32, -1.0, 1.0)
                return jax.vmap(env.step)(states, actions), None

            return jax.lax.scan(body, states, jax.random.split(key, chunk))[0]

        return run

    return _time_jax(make_run, states, batch_size)


SYSTEMS = {
    "ours": ours_bench,
    "mjx": mjx_bench,
    "brax": brax_bench,
}


def main(argv: list[str] | None = None) -> int:
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batches", default="1,32,128,512,1024,2048,8192")
    parser.add_argument("--systems", default="ours,mjx,brax,mujoco")
    parser.add_argument("--out", default="runs/bench/halfcheetah_systems.json")
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batches.split(",")]
    systems = args.systems.split(",")
    rows = []
    for batch in batches:
        for system in systems:
            first_new = len(rows)
            if system == "mujoco":
                cores = os.cpu_count() or 1
                for procs in sorted({1, cores}):
                    sps = reference_bench(batch, 1000, procs)
                    rows.append(dict(system=f"mujoco-c x{procs}", batch=batch, steps_per_second=sps, compile_seconds=None))
            else:
                rows.append(dict(system=system, batch=batch, **SYSTEMS[system](batch)))
            for r in rows[first_new:]:
                comp = f"  (compile {r['compile_seconds']:.1f}s)" if r["compile_seconds"] is not None else ""
                print(f"{r['system']:<14} batch {batch:>6}: {r['steps_per_second']:>12,.0f} env steps/s{comp}", flush=True)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"machine_cpus": os.cpu_count(), "rows": rows}, f, indent=1)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
