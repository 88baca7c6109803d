"""L3: whole random battles, pokejax against Showdown, identical state after every decision.

Random teams (Showdown's gen1randombattle generator, player seeds), uniformly random legal choices
for both players. After every step HP, status, sleep counters, stages, stats, volatiles, PP,
actives, faints, the legal choices, the winner and the PRNG state must be identical; a failure
prints the step, the field, both values, the protocol log and both PRNG draw sequences.
"""

from __future__ import annotations

import pytest

from pokejax import parity

DEFAULT_BATTLES = 100
SLOW_BATTLES = 1000


def _run(showdown, indices, base):
    failures = []
    for i in indices:
        battle_seed, player_seeds, choice_seed = parity.seeds_for(i, base)
        result = parity.play_battle(showdown, battle_seed, player_seeds, choice_seed=choice_seed)
        if not result.matched:
            failures.append(f"battle {i}: {result}\nteams: {result.teams}")
    assert not failures, f"{len(failures)} of {len(indices)} battles diverged; first:\n{failures[0]}"


def test_randbats_battles_identical(showdown):
    _run(showdown, range(DEFAULT_BATTLES), base=0)


@pytest.mark.slow
def test_randbats_battles_identical_slow(showdown):
    _run(showdown, range(SLOW_BATTLES), base=1)
