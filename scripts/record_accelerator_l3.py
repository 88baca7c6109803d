"""Records the L3 replays of `scripts/accelerator_l3.py`: random Gen 1 and Gen 9 battles played in Pokémon
Showdown (node) and random games played by the Python TCG reference engine, written to
benchmarks/data/accelerator_l3/ (pokemon.json.gz, pokemon_gen9.json.gz, tcg.json.gz). Runs on a CPU machine
that has the references.

    PYTHONPATH=. python scripts/record_accelerator_l3.py [--battles 24] [--gen9-battles 24] [--games 24] [--only NAME]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from benchmarks import accelerator_l3 as l3

POKEMON_BASE = 7_000   # `seeds_for(i, POKEMON_BASE)`: battles other than the L3 tests' own
GEN9_SEED = 7_000      # numpy's generator drawing the Gen 9 battles' teams, seeds and random legal actions
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


def record_gen9(battles: int) -> int:
    """Plays ``battles`` restricted Gen 9 battles (pool teams through ``turn.restricted_team``, uniformly random
    legal actions) with pokejax's engine on the CPU, then in Showdown from the same teams, seed and actions;
    writes Showdown's states. Stops if any battle differs: a recording must hold the reference's battles that
    the engine plays today. Returns the file size."""
    import jax
    import numpy as np

    from pokejax.gen9 import masks, parity, turn
    from pokejax.gen9.reference import Gen9Bridge
    from pokejax.reference import SHOWDOWN_VERSION
    rng = np.random.default_rng(GEN9_SEED)
    usable = parity.usable_teams()
    p1 = [parity.DOCUMENT["teams"][int(n)] for n in rng.choice(usable, battles)]
    p2 = [parity.DOCUMENT["teams"][int(n)] for n in rng.choice(usable, battles)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(battles)]
    states, actions, sets = parity.play(p1, p2, seeds, rng, max_decisions=l3.GEN9_MAX_DECISIONS)
    with Gen9Bridge() as bridge:
        reference = bridge.play([{"teams": [sets[i], sets[battles + i]], "seed": seeds[i], "actions": actions[i]}
                                 for i in range(battles)])
    legal_mask = jax.jit(masks.legal_mask)
    legal = [np.asarray(legal_mask(st)) for st in states]
    episodes = []
    for i, r in enumerate(reference):
        if r["error"] or len(r["states"]) != len(actions[i]) + 1:
            raise SystemExit(f"gen9 battle {i}: Showdown stopped: {r['error']}")
        for n, snap in enumerate(r["states"]):
            diff = parity.differences(parity.ours_record(states[n], i, legal[n]), parity.showdown_record(snap))
            if diff:
                raise SystemExit(f"gen9 battle {i} differs from Showdown after decision {n}: {diff}")
        rows = [turn.restricted_team(t) for t in (p1[i], p2[i])]
        episodes.append(l3.gen9_episode(rows, seeds[i], actions[i], r["states"]))
    meta = {"env": "PokemonGen9Random-v0", "reference": f"Pokémon Showdown {SHOWDOWN_VERSION} (node)",
            "format": "gen9randombattle, restricted (pokejax.gen9.turn.restricted_team of pool.json's teams)",
            "battles": f"scripts/record_accelerator_l3.py record_gen9({battles}), numpy seed {GEN9_SEED}",
            "commit": _commit()}
    return l3.write(l3.GEN9_FILE, meta, episodes)


def record_tcg(games: int) -> int:
    """Plays and writes ``games`` TCG games on the Python reference engine; returns the file size."""
    from tcgjax.verify import random_games
    meta = {"env": "TCGPocketA1-v0", "reference": "tcgjax.reference (Python rules engine)",
            "games": f"tcgjax.verify.random_games({games}, {TCG_SEED})", "commit": _commit()}
    return l3.write(l3.TCG_FILE, meta, [l3.tcg_episode(g) for g in random_games(games, TCG_SEED)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=24)
    parser.add_argument("--gen9-battles", type=int, default=24)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--only", choices=("pokemon", "gen9", "tcg"), default=None, help="record this one alone")
    args = parser.parse_args(argv)
    for name, run, count in (("pokemon", record_pokemon, args.battles), ("gen9", record_gen9, args.gen9_battles),
                             ("tcg", record_tcg, args.games)):
        if args.only not in (None, name):
            continue
        start = time.perf_counter()
        size = run(count)
        print(f"{name}: {count} episodes, {size / 1024:.0f} KiB, {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
