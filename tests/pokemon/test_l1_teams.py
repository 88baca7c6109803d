"""L1: the JAX random-battle team generator makes exactly Showdown's teams for the same seed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from paritygym.backend import forced_form
from pokejax import prng
from pokejax.game import setup, teams

NUM_SEEDS = 300


# both forms of the generator (``paritygym.backend``): the CPU's gathers and scatters, the
# accelerator's one-hot selects and table products (``paritygym.indexing``, ``take_rows``)
FORMS = ["cpu", "accelerator"]


def generate(form: str, states, has_ditto):
    """``random_team`` of every seed state, traced in ``form``."""
    with forced_form(form):
        return jax.jit(jax.vmap(teams.random_team))(states, has_ditto)


@pytest.mark.parametrize("form", FORMS)
def test_teams_match_showdown_generator(showdown, form):
    rng = np.random.default_rng(7)
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(NUM_SEEDS)]
    states = jnp.stack([prng.seed_from_words(s) for s in seeds])
    _, ours, _ = generate(form, states, jnp.zeros(NUM_SEEDS, bool))
    for n, seed in enumerate(seeds):
        expected = showdown.generate_team(seed)["packed"]
        mine = jax.tree_util.tree_map(lambda x: np.asarray(x[n]), ours)
        assert setup.to_packed(mine) == setup.to_packed(setup.from_packed(expected)), f"seed {seed}"


@pytest.mark.parametrize("form", FORMS)
def test_second_team_never_repeats_ditto(form):
    # Showdown's generator object is shared by both players: once p1 has Ditto, p2 cannot.
    rng = np.random.default_rng(11)
    states = jnp.stack([prng.seed_from_words([int(x) for x in rng.integers(0, 65536, 4)]) for _ in range(2000)])
    _, free, _ = generate(form, states, jnp.zeros(2000, bool))
    _, blocked, _ = generate(form, states, jnp.ones(2000, bool))
    ditto = teams._DITTO
    assert np.any(np.asarray(free.species) == ditto)
    assert not np.any(np.asarray(blocked.species) == ditto)


def _showdown_seed(state) -> list[int]:
    hi, lo = (int(w) for w in np.asarray(state))
    return [hi >> 16, hi & 0xFFFF, lo >> 16, lo & 0xFFFF]


def test_team_pool_teams_are_showdowns(showdown):
    """Every team of a pool is exactly the team Showdown's generator makes for its seed."""
    pool = teams.make_team_pool(40, seed=3)
    assert pool.size == 40 and len({tuple(np.asarray(s)) for s in pool.seeds}) == 40
    for n in range(pool.size):
        expected = showdown.generate_team(_showdown_seed(pool.seeds[n]))["packed"]
        mine = jax.tree_util.tree_map(lambda x: np.asarray(x[n]), pool.teams)
        assert setup.to_packed(mine) == setup.to_packed(setup.from_packed(expected)), f"pool team {n}"


def test_team_pool_is_deterministic_and_validated():
    a, b = teams.make_team_pool(300, seed=1), teams.make_team_pool(300, seed=1)
    assert np.array_equal(np.asarray(a.teams.species), np.asarray(b.teams.species))
    c = teams.make_team_pool(300, seed=2)
    assert not np.array_equal(np.asarray(a.teams.species), np.asarray(c.teams.species))
    assert (np.asarray(a.teams.size) == 6).all()
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="size"):
            teams.make_team_pool(bad)
    with pytest.raises(ValueError, match="seed"):
        teams.make_team_pool(4, seed=-1)


def test_pool_draws_cover_the_pool_with_one_ditto_per_battle():
    pool = teams.make_team_pool(300, seed=1)
    has_ditto = np.asarray(pool.has_ditto)
    assert has_ditto.any() and not has_ditto.all()
    draw = jax.jit(jax.vmap(teams.draw_battle_teams, in_axes=(0, None)))
    drawn = draw(jax.random.split(jax.random.key(0), 4000), pool)
    species = np.asarray(drawn.species)                        # [4000, 2, 6]
    ditto = (species == teams._DITTO).any(axis=2)
    assert not (ditto[:, 0] & ditto[:, 1]).any()
    # every drawn team is a row of the pool, and the draws reach most of the pool
    rows = {tuple(r): n for n, r in enumerate(np.asarray(pool.teams.species))}
    hit = {rows[tuple(t)] for t in species.reshape(-1, 6)}
    assert len(hit) > 280


def test_battle_teams_are_p1_then_p2_on_one_generator():
    """``random_teams`` (one loop for both teams) must give p1's team, then p2's team drawn with p1's
    Ditto flag (Showdown's shared generator object), as the one-team generator (checked against
    Showdown above) makes them one after the other. Enough battles that p1 has Ditto and p2's
    generator draws Ditto in several of them (the flag changes p2's team). ``random_teams`` in the
    accelerator form (what the env runs on a TPU), the one-team generator in the CPU form."""
    n = 6000
    keys = jax.random.split(jax.random.key(5), n)
    with forced_form("accelerator"):
        both = jax.jit(jax.vmap(teams.random_teams))(keys)
    k1, k2 = jax.vmap(jax.random.split)(keys).transpose(1, 0)   # [n, 2] keys -> two [n]
    seeds1 = jax.vmap(prng.seed_from_key)(k1)
    seeds2 = jax.vmap(prng.seed_from_key)(k2)
    _, first, p1_ditto = generate("cpu", seeds1, jnp.zeros(n, bool))
    _, second_free, _ = generate("cpu", seeds2, jnp.zeros(n, bool))
    _, second, _ = generate("cpu", seeds2, p1_ditto)
    for name in ("species", "level", "moves", "ivs", "evs", "size"):
        got = np.asarray(getattr(both, name))
        assert np.array_equal(got[:, 0], np.asarray(getattr(first, name))), name
        assert np.array_equal(got[:, 1], np.asarray(getattr(second, name))), name
    redrawn = np.asarray(p1_ditto) & np.any(np.asarray(second.species) != np.asarray(second_free.species), axis=1)
    assert redrawn.sum() >= 3, f"only {redrawn.sum()} battles where the Ditto flag changes p2's team"
