"""L3: whole random battles, pokejax against Showdown, identical state after every decision (one battle
at a time through ``engine.step``, and batches through the RL env's batched move turn).

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


def _assert_identical(results, what: str = "") -> None:
    failures = [f"battle {i}: {r}\nteams: {r.teams}" for i, r in enumerate(results) if not r.matched]
    assert not failures, f"{what}{len(failures)} of {len(results)} battles diverged; first:\n{failures[0]}"


def _run(showdown, indices, base):
    results = []
    for i in indices:
        battle_seed, player_seeds, choice_seed = parity.seeds_for(i, base)
        results.append(parity.play_battle(showdown, battle_seed, player_seeds, choice_seed=choice_seed))
    _assert_identical(results)


def test_randbats_battles_identical(showdown):
    _run(showdown, range(DEFAULT_BATTLES), base=0)


@pytest.mark.slow
def test_randbats_battles_identical_slow(showdown):
    _run(showdown, range(SLOW_BATTLES), base=1)


BATCHED_BATTLES = 64   # the batch shape test_batched.py compiles too


def test_randbats_battles_identical_through_the_batched_step(showdown):
    """The RL env's route (``batched.move_step_batch``: the batched move turn, no engine fallback in
    random battles; ``batched.switch_step_batch``: the batched switch turn and start) against
    Showdown directly, 64 battles stepped as one batch."""
    results = parity.play_battles_batched(showdown, range(BATCHED_BATTLES), base=2)
    _assert_identical(results)
    assert sum(r.steps for r in results) > 20 * BATCHED_BATTLES


@pytest.mark.slow
def test_randbats_battles_identical_through_the_batched_step_slow(showdown):
    """Eight more batches of 64 battles (512) through the batched step."""
    for batch in range(8):
        _assert_identical(parity.play_battles_batched(showdown, range(BATCHED_BATTLES), base=100 + batch),
                          f"batch {batch}: ")
