"""L3: full games with random legal actions on both sides: the JAX engine replays the reference's
actions and must reach the identical canonical state (and legal mask) after every action.

Default suite: 112 games (56 uniform-random, 56 "eager" random), half with shipped decks, half with
sampled random legal decks. `pytest -m slow`: 1,024 more games."""

from __future__ import annotations

import collections

import pytest

from tcgjax.verify import compare_with_jax, describe, random_games


def _games(count: int, seed: int):
    return random_games(count, seed)


def _check(runner, games):
    failures = compare_with_jax(games, runner)
    assert not failures, "\n".join(describe(games[i], r) for i, r in failures[:3])
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


@pytest.mark.slow
def test_l3_random_games_identical_through_step_batch():
    """The default suite's games with the batch stepped by `step_batch` at a chunk of 2 games of 16
    (sub-batches overflow often): identical to the reference as well."""
    from tcgjax.verify import JaxBatchRunner
    _check(JaxBatchRunner(batch=16, chunk=64, step_chunk=2), _games(112, seed=2024))
