"""Records the L3 replays of `scripts/accelerator_l3.py`: random battles played in Pokémon Showdown
(node) and random games played by the Python TCG reference engine, written to
benchmarks/data/accelerator_l3/ (pokemon.json.gz, tcg.json.gz). Runs on a CPU machine that has the
references.

    PYTHONPATH=. python scripts/record_accelerator_l3.py [--battles 24] [--games 24]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from benchmarks import accelerator_l3 as l3

POKEMON_BASE = 7_000   # `seeds_for(i, POKEMON_BASE)`: battles other than the L3 tests' own
TCG_SEED = 7_000       # `random_games(n, TCG_SEED)`: shipped and sampled decks, uniform and eager play


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record_pokemon(battles: int) -> int:
    """Plays and writes ``battles`` Gen 1 random battles; returns the file size."""
    from pokejax.parity import record_battles
    from pokejax.reference import SHOWDOWN_VERSION, ShowdownBridge
    with ShowdownBridge() as bridge:
        recordings = record_battles(bridge, range(battles), POKEMON_BASE)
    meta = {"env": "PokemonGen1Random-v0", "reference": f"Pokémon Showdown {SHOWDOWN_VERSION} (node)",
            "format": "gen1randombattle", "battles": f"pokejax.parity.seeds_for(i, {POKEMON_BASE}), i < {battles}",
            "commit": _commit()}
    return l3.write(l3.POKEMON_FILE, meta, [l3.pokemon_episode(r) for r in recordings])


def record_tcg(games: int) -> int:
    """Plays and writes ``games`` TCG games on the Python reference engine; returns the file size."""
    from tcgjax.verify import random_games
    meta = {"env": "TCGPocketA1-v0", "reference": "tcgjax.reference (Python rules engine)",
            "games": f"tcgjax.verify.random_games({games}, {TCG_SEED})", "commit": _commit()}
    return l3.write(l3.TCG_FILE, meta, [l3.tcg_episode(g) for g in random_games(games, TCG_SEED)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=24)
    parser.add_argument("--games", type=int, default=24)
    args = parser.parse_args(argv)
    for name, run, count in (("pokemon", record_pokemon, args.battles), ("tcg", record_tcg, args.games)):
        start = time.perf_counter()
        size = run(count)
        print(f"{name}: {count} episodes, {size / 1024:.0f} KiB, {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
