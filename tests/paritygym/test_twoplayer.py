"""The two-player core and the single-agent-vs-opponent env, on Nim."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym.testing import check_env
from paritygym.twoplayer import OPPONENT_HEURISTIC
from ..toy_envs import Nim, NimEnv


def test_nim_env_passes_conformance():
    check_env("ToyNim-v0")


def test_agent_only_sees_its_own_turns():
    env = NimEnv()
    params = env.default_params
    for seed in range(20):
        obs, state = env.reset(jax.random.key(seed), params)
        assert obs[1] == 1.0  # the agent is to play (the opponent already moved if it started)


def test_optimal_opponent_beats_a_player_who_always_takes_one():
    env = NimEnv()
    params = env.default_params.replace(opponent=OPPONENT_HEURISTIC, agent_side=0)
    wins = 0
    for seed in range(20):
        obs, state = env.reset(jax.random.key(seed), params)
        done = False
        while not done:
            obs, state, reward, terminated, truncated, info = env.step(jax.random.key(seed + 100), state, 0, params)
            done = bool(terminated | truncated)
        wins += int(reward > 0)
    # Starting from 7 stones, optimal play wins whenever it moves first or the agent errs.
    assert wins == 0


def test_illegal_action_falls_back_to_a_legal_one_and_is_flagged():
    env = NimEnv()
    params = env.default_params.replace(agent_side=0)
    game = Nim()
    state = env.reset(jax.random.key(0), params)[1]
    one_stone = state.replace(game=state.game.replace(stones=jnp.int32(1), to_play=jnp.int32(0)))
    _, _, reward, terminated, _, info = env.step(jax.random.key(1), one_stone, 2, params)  # take 3 of 1
    assert bool(info["illegal_action"]) and bool(terminated) and reward == 1.0
    assert game.num_actions == 3


def test_user_opponent_policy_is_selectable():
    always_three = lambda key, obs, mask: jnp.int32(2)  # noqa: E731
    env = NimEnv(opponents=(always_three,))
    params = env.default_params.replace(opponent=2, agent_side=1)
    obs, state = env.reset(jax.random.key(5), params)
    # The opponent (side 0) moved first if it started; it always takes 3 when it can.
    assert float(obs[0]) in (4.0, 7.0)


def test_vector_api_refuses_illegal_actions_and_reports_masks():
    venv = paritygym.make_vec("ToyNim-v0", num_envs=2, seed=0)
    _, info = venv.reset()
    assert info["action_mask"].shape == (2, 3) and info["action_mask"].all()  # 7 stones: all legal
    # Leave one stone in each game: only "take 1" stays legal.
    state = venv.states
    venv._states = state.replace(game=state.game.replace(stones=jnp.array([1, 1], jnp.int32)))
    venv._mask = np.asarray(venv._mask_batch(venv._states, venv.params))
    with pytest.raises(ValueError, match="illegal"):
        venv.step(np.array([2, 0], np.int32))
    venv.step(np.array([0, 0], np.int32))


def test_random_legal_action_is_legal_and_uniform():
    """The built-in random opponent: only legal actions, each about equally often (an off-by-one in
    the k-th legal action would skew or break this), also from consecutive keys ``key(t)`` (hashed
    words, not Threefry), and action 0 where nothing is legal."""
    from paritygym.twoplayer import random_legal_action

    legal = [1, 4, 5, 9]
    mask = jnp.zeros(10, bool).at[jnp.asarray(legal)].set(True)
    draw = jax.jit(jax.vmap(random_legal_action, in_axes=(0, None)))
    for keys in (jax.random.split(jax.random.key(3), 4000), jax.vmap(jax.random.key)(jnp.arange(4000))):
        actions = np.asarray(draw(keys, mask))
        assert set(np.unique(actions)) == set(legal)
        counts = np.bincount(actions, minlength=10)[legal]
        assert np.abs(counts - 1000).max() < 150, counts   # 4,000 draws over 4 actions; ~5.5 sigma
    assert int(random_legal_action(jax.random.key(0), jnp.zeros(10, bool))) == 0
    with pytest.raises(ValueError, match="one env"):
        random_legal_action(jax.random.key(0), jnp.ones((3, 10), bool))
    # the same key draws the same action
    assert int(random_legal_action(jax.random.key(7), mask)) == int(random_legal_action(jax.random.key(7), mask))


def test_user_opponent_out_of_range_action_falls_back_to_the_first_legal_one():
    """An action past the last one is not read as the last (a clamped lookup would let 99 through as 'take 3')."""
    out_of_range = lambda key, obs, mask: jnp.int32(99)  # noqa: E731
    env = NimEnv(opponents=(out_of_range,))
    params = env.default_params.replace(opponent=2, agent_side=1)
    stones = {float(env.reset(jax.random.key(seed), params)[0][0]) for seed in range(8)}
    assert stones <= {6.0, 7.0} and 6.0 in stones   # it took one stone (the first legal action) when it started


def test_is_legal_action_per_row_and_out_of_range():
    """``is_legal_action`` against the mask read directly, for one mask and for rows of masks (leading axes),
    with actions below zero, past the end and of other int dtypes: false out of range, the entry otherwise."""
    from paritygym.twoplayer import is_legal_action

    rng = np.random.default_rng(0)
    masks = rng.random((5, 3, 10)) < 0.5
    actions = rng.integers(-3, 14, (5, 3))
    expected = np.where((actions >= 0) & (actions < 10), masks[np.arange(5)[:, None], np.arange(3), np.clip(actions, 0, 9)], False)
    assert np.array_equal(np.asarray(is_legal_action(jnp.asarray(masks), jnp.asarray(actions, jnp.int32))), expected)
    assert np.array_equal(np.asarray(is_legal_action(jnp.asarray(masks), jnp.asarray(actions, jnp.int8))), expected)
    for k in range(3):
        assert bool(is_legal_action(jnp.asarray(masks[0, k]), int(actions[0, k]))) == expected[0, k]
    assert not bool(is_legal_action(jnp.ones(10, bool), 10)) and not bool(is_legal_action(jnp.ones(10, bool), -1))
