"""A fingerprint of each env's bench step as lowered for this machine's backend (StableHLO, without
source locations): two source trees that print the same fingerprint run the same program, so a
change that should leave the CPU program alone (an accelerator-only form) can be checked without
timing it on a noisy machine.

    python scripts/program_fingerprint.py PokemonGen1Random-v0 TCGPocketA1-v0 [--batch 256]

Run it in both trees (e.g. a `git worktree` of the older commit) and compare the lines.
"""

from __future__ import annotations

import argparse
import hashlib
import sys

import jax
import jax.numpy as jnp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args(argv)

    from paritygym.bench.runner import jax_programs
    from paritygym.registry import make

    for env_id in args.env_ids:
        env, params = make(env_id)
        reset, loop_step, _ = jax_programs(env, params, args.batch, scan_length=1)
        states = jax.eval_shape(reset, jax.random.key(0))
        text = loop_step.lower(jax.random.key(0), jnp.int32(0), states).as_text(debug_info=False)
        print(f"{env_id} batch {args.batch} on {jax.default_backend()}: "
              f"{hashlib.sha256(text.encode()).hexdigest()[:16]} ({len(text):,} characters)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
