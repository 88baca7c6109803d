"""L1: the JAX random-battle team generator makes exactly Showdown's teams for the same seed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng
from pokejax.game import setup, teams

NUM_SEEDS = 300


@pytest.fixture(scope="module")
def generate():
    def one(seed_state, has_ditto):
        state, team, ditto = teams.random_team(seed_state, has_ditto)
        return state, team, ditto
    return jax.jit(jax.vmap(one))


def test_teams_match_showdown_generator(showdown, generate):
    rng = np.random.default_rng(7)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(NUM_SEEDS)]
    states = jnp.stack([prng.seed_from_words(s) for s in seeds])
    _, ours, _ = generate(states, jnp.zeros(NUM_SEEDS, bool))
    for n, seed in enumerate(seeds):
        expected = showdown.generate_team(seed)["packed"]
        mine = jax.tree_util.tree_map(lambda x: np.asarray(x[n]), ours)
        assert setup.to_packed(mine) == setup.to_packed(setup.from_packed(expected)), f"seed {seed}"


def test_second_team_never_repeats_ditto(generate):
    # Showdown's generator object is shared by both players: once p1 has Ditto, p2 cannot.
    rng = np.random.default_rng(11)
    states = jnp.stack([prng.seed_from_words([int(x) for x in rng.integers(0, 65536, 4)]) for _ in range(2000)])
    _, free, _ = generate(states, jnp.zeros(2000, bool))
    _, blocked, _ = generate(states, jnp.ones(2000, bool))
    ditto = teams._DITTO
    assert np.any(np.asarray(free.species) == ditto)
    assert not np.any(np.asarray(blocked.species) == ditto)
