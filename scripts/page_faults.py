"""Minor page faults and kernel (system) CPU time per call of an env's bench program.

    python scripts/page_faults.py PokemonGen1RandomPool-v0 --batch 2048
    PARITYGYM_KEEP_FREED_MEMORY=0 python scripts/page_faults.py PokemonGen1RandomPool-v0 --batch 2048

Runs `paritygym.bench.runner.jax_programs`' step program (random legal actions, the env's batched
step, every observation read) on one JAX device unless ``--devices`` says more, and prints, per round
of ``--calls`` calls: minor page faults per call, CPU and system CPU microseconds per env step (both
from getrusage of this process), and steps per wall second. The second command shows the same program
with glibc's default malloc settings (see paritygym/memory.py).
"""

from __future__ import annotations

import argparse
import resource
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env")
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--devices", type=int, default=1, help="CPU devices the batch is split over")
    args = parser.parse_args(argv)
    from paritygym.memory import keep_freed_memory

    kept = keep_freed_memory()  # a no-op (False) with PARITYGYM_KEEP_FREED_MEMORY=0
    if args.devices > 1:
        from paritygym.cli import use_host_devices

        use_host_devices(args.devices)
    import jax

    import paritygym
    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(args.env)
    reset, loop_step, _ = jax_programs(env, params, args.batch, 1)
    states = reset(jax.random.key(0))
    key = jax.random.key(1)
    for i in range(3):  # compile, and let malloc's heap grow to its working size
        states, _ = loop_step(key, i, states)
    jax.block_until_ready(states)
    print(f"{args.env} batch {args.batch}, {len(jax.devices())} device(s), freed memory kept: {kept}")
    steps = args.calls * args.batch
    for _ in range(args.rounds):
        before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        for i in range(args.calls):
            states, _ = loop_step(key, i, states)
        jax.block_until_ready(states)
        after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(f"  minor faults per call {(after.ru_minflt - before.ru_minflt) / args.calls:8.0f}   "
              f"CPU us per step {cpu / steps * 1e6:6.2f}   system {(after.ru_stime - before.ru_stime) / steps * 1e6:5.2f}   "
              f"steps per wall s {steps / wall:10,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
