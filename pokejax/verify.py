"""`paritygym verify PokemonGen1Random-v0`: L3 parity of whole battles against Showdown.

Random-battle teams from Showdown's generator (player seeds), uniformly random legal choices for
both players; after every decision the full comparable state and the PRNG state must be identical
(``pokejax.parity``). L1/L2 live in tests/pokemon.
"""

from __future__ import annotations

from paritygym.verify import ParityReport
from pokejax import parity
from pokejax.reference import ShowdownBridge

ENV_ID = "PokemonGen1Random-v0"


def verify(level: int = 3, episodes: int = 100, seed: int = 0) -> list[ParityReport]:
    if level != 3:
        return [ParityReport(ENV_ID, level, f"level {level}", passed=False,
                             failure="only L3 runs from the CLI; L1/L2 are in tests/pokemon (pytest tests/pokemon)")]
    if episodes < 1:
        raise ValueError(f"episodes must be >= 1, got {episodes}")
    results = []
    with ShowdownBridge() as bridge:
        for i in range(episodes):
            battle_seed, player_seeds, choice_seed = parity.seeds_for(i, seed)
            results.append(parity.play_battle(bridge, battle_seed, player_seeds, choice_seed=choice_seed))
    failed = [r for r in results if not r.matched]
    return [ParityReport(
        env_id=ENV_ID, level=3, name="gen1randombattle, random teams, uniformly random legal choices",
        passed=not failed, episodes=len(results), steps=sum(r.steps for r in results),
        tolerance="exact (HP, status, stages, stats, volatiles, PP, actives, faints, legal choices, winner, "
                  "PRNG state after every decision)",
        details={"battles_differing": len(failed), "p1_wins": sum(r.winner == 0 for r in results),
                 "p2_wins": sum(r.winner == 1 for r in results), "ties": sum(r.winner == 2 for r in results)},
        failure=str(failed[0]) if failed else None)]
