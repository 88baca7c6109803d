"""L3: full games with random legal actions on both sides: the JAX engine replays the reference's
actions and must reach the identical canonical state (and legal mask) after every action.

Default suite: 112 games (56 uniform-random, 56 "eager" random), half with shipped decks, half with
sampled random legal decks. `pytest -m slow`: 1,024 more games."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from tcgjax.decks import sample_deck, shipped_decks
from tcgjax.verify import compare_with_jax, eager_policy, play_reference, uniform_policy


def _games(count: int, seed: int):
    rng = np.random.default_rng(seed)
    shipped = list(shipped_decks().values())
    games = []
    for i in range(count):
        if i % 2 == 0:
            decks = (shipped[rng.integers(len(shipped))], shipped[rng.integers(len(shipped))])
        else:
            decks = (sample_deck(rng), shipped[rng.integers(len(shipped))] if i % 4 == 1 else sample_deck(rng))
        policy = eager_policy if i % 4 >= 2 else uniform_policy
        games.append(play_reference(decks, int(rng.integers(2**32)), rng, policy))
    return games


def _check(runner, games):
    mismatches = compare_with_jax(games, runner)
    assert not mismatches, "\n".join(str(m) for m in mismatches[:3])
    outcomes = collections.Counter("draw" if g.states[-1]["winner"] < 0 else "win" for g in games)
    assert outcomes["win"] > 0, "the games must reach decisive endings, not only the turn limit"
    return outcomes


@pytest.mark.rule("L3")
def test_l3_random_games_identical(runner):
    games = _games(112, seed=2024)
    assert sum(g.num_steps for g in games) > 10_000
    _check(runner, games)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(8))
def test_l3_random_games_identical_slow(runner, chunk):
    _check(runner, _games(128, seed=10_000 + chunk))
