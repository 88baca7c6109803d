"""L3 parity without the references: replays the recorded battles and games
(benchmarks/data/accelerator_l3/, made by `scripts/record_accelerator_l3.py` on a CPU with node) on
the batched JAX engines, in one batch per env, traced in the given step form, and compares every
recorded decision. Needs no node and no reference engine: for a TPU/GPU machine.

    PYTHONPATH=. python scripts/accelerator_l3.py [--form auto|cpu|accelerator] [--envs pokemon,gen9,tcg] [--count N] [--data DIR] [--cache]

Prints, per env: backend, form, episodes, decisions compared, "identical" or the first mismatch,
compile and run time. Exit code 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from benchmarks import accelerator_l3 as l3

LOADERS = {"pokemon": (l3.load_pokemon, l3.POKEMON_FILE.name, l3.replay_pokemon),
           "gen9": (l3.load_gen9, l3.GEN9_FILE.name, l3.replay_gen9),
           "tcg": (l3.load_tcg, l3.TCG_FILE.name, l3.replay_tcg)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--form", choices=l3.FORMS, default="auto")
    parser.add_argument("--envs", default="pokemon,gen9,tcg", help="comma-separated: pokemon (Gen 1), gen9, tcg")
    parser.add_argument("--count", type=int, default=None, help="only the first N recorded episodes per env")
    parser.add_argument("--data", type=pathlib.Path, default=l3.DATA, help="folder of the recordings")
    parser.add_argument("--cache", action="store_true",
                        help="use JAX's persistent compilation cache (paritygym.cache): a rerun loads the programs")
    args = parser.parse_args(argv)
    import jax
    if args.cache:
        from paritygym.cache import enable_compilation_cache
        enable_compilation_cache()
    print(f"jax {jax.__version__}, backend {jax.default_backend()}, devices {jax.devices()}", flush=True)
    failed = False
    for name in args.envs.split(","):
        load, file_name, replay = LOADERS[name]
        episodes = load(args.data / file_name, count=args.count)
        print(f"{name}: replaying {len(episodes)} recorded episodes, form {args.form} ...", flush=True)
        report = replay(episodes, args.form)
        print(report, flush=True)
        failed |= not report.identical
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
