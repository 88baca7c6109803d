"""The RL env TCGPocketA1-v0: registration, the observation and the heuristic bot against the
reference engine's, the single-agent env against the reference single-agent env step by step
(heuristic opponent), hidden information, and (slow) paritygym's conformance checker."""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
import paritygym.testing
from tcgjax import spec
from tcgjax.decks import shipped_decks
from tcgjax.env import TCGPocketA1, _opponent_word, _uniform_legal
from tcgjax.game import card_tables
from tcgjax.game.bots import heuristic_action
from tcgjax.game.observe import OBS_SIZE, observe
from tcgjax.game.state import from_canonical
from tcgjax.reference import Game
from tcgjax.reference.bots import heuristic_action as reference_heuristic
from tcgjax.reference.env import ReferenceSingleAgentEnv
from tcgjax.reference.observe import observe as reference_observe
from tcgjax.verify import random_games

ENV_ID = "TCGPocketA1-v0"
BATCH, STEPS = 8, 320  # STEPS game actions make about two games per env in interleaved mode


def test_random_opponent_draws_uniformly_among_legal_actions():
    """The random opponent (`_uniform_legal`: the k-th legal action, k from a hash of the env
    step's word and the opponent's action index) plays only legal actions, each about equally often,
    and its successive actions within one env step are not one repeated draw."""
    mask = np.zeros(spec.NUM_ACTIONS, bool)
    mask[[0, 3, 17, 40, spec.NUM_ACTIONS - 1]] = True
    words = jax.vmap(_opponent_word)(jax.random.split(jax.random.key(3), 2000))
    pick = jax.jit(jax.vmap(lambda w, i: _uniform_legal(w, i, jnp.asarray(mask)), in_axes=(0, None)))
    draws = [np.asarray(pick(words, i)) for i in range(3)]
    actions = np.concatenate(draws)
    assert mask[actions].all()
    counts = np.bincount(actions, minlength=spec.NUM_ACTIONS)[mask]
    assert np.abs(counts - 1200).max() < 160, counts  # 6,000 draws over 5 actions; 160 is ~5 sigma
    assert 0.7 < (draws[0] != draws[1]).mean() < 0.9  # independent picks differ 80% of the time


def test_registered():
    env, params = paritygym.make(ENV_ID)
    assert isinstance(env, TCGPocketA1) and env.num_actions == spec.NUM_ACTIONS
    assert not params.game.interleaved and paritygym.make(ENV_ID, interleaved=True)[1].game.interleaved
    assert env.observation_space(params).shape == (OBS_SIZE,)
    assert paritygym.spec(ENV_ID).reference_bench == "tcgjax.reference.env:bench_reference"
    with pytest.raises(ValueError, match="opening_hand_rule"):
        paritygym.make(ENV_ID, opening_hand_rule=7)


@pytest.fixture(scope="module")
def views():
    """JAX observation (both seats), heuristic action and legal mask of a batch of states."""
    tables = card_tables()

    def view(state):
        return (observe(tables, state, 0, spec.DEFAULT_MAX_TURNS), observe(tables, state, 1, spec.DEFAULT_MAX_TURNS),
                heuristic_action(tables, state))

    return jax.jit(jax.vmap(view))


@pytest.mark.rule("INFO-1", "INFO-2")
def test_observation_and_heuristic_match_reference(views):
    """States of random games (setup, every phase): observations of both seats and the heuristic
    bot's action are identical on the two engines."""
    games = random_games(12, seed=77)
    samples = []
    for traj in games:
        game = Game.new(traj.decks, traj.seed, max_turns=traj.max_turns)
        for k, action in enumerate(traj.actions + [None]):
            if k % 3 == 0 or game.state.phase not in (spec.MAIN,):
                samples.append((game.canonical(), reference_observe(game, 0), reference_observe(game, 1),
                                reference_heuristic(game) if not game.done else spec.END))
            if action is not None:
                game.step(action)
    phases = collections.Counter(int(s[0]["phase"]) for s in samples)
    assert len(phases) >= 6, phases
    for start in range(0, len(samples), 256):
        chunk = samples[start: start + 256]
        states = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[from_canonical(s[0]) for s in chunk])
        obs0, obs1, bot = jax.device_get(views(states))
        for i, (_, ref0, ref1, ref_bot) in enumerate(chunk):
            assert np.array_equal(obs0[i], ref0), np.flatnonzero(obs0[i] != ref0)
            assert np.array_equal(obs1[i], ref1), np.flatnonzero(obs1[i] != ref1)
            assert int(bot[i]) == ref_bot, (i, spec.action_name(int(bot[i])), spec.action_name(ref_bot))


@pytest.mark.rule("INFO-1", "INFO-2")
def test_hidden_information():
    decks = list(shipped_decks().values())
    game = Game.new([decks[0], decks[1]], 3)
    first = game.state.first_player
    hand = game.state.players[first].hand
    basic = next(h for h, c in enumerate(hand) if game.card(c).is_basic_pokemon)
    before = reference_observe(game, 1 - first)
    game.step(spec.PLAY_HAND + basic)
    game.step(spec.END)
    after = reference_observe(game, 1 - first)
    changed = np.flatnonzero(before != after)
    from tcgjax.game.observe import GLOBAL_SIZE
    assert len(changed) and changed.max() < GLOBAL_SIZE, "only hand/phase counters change; the placed Active is hidden"
    # The opponent's hand contents and every deck order are never in the observation.
    game2 = Game.new([decks[0], decks[1]], 3)
    opp = game2.state.players[1 - first]
    opp.hand = list(reversed(opp.hand))
    opp.deck = list(reversed(opp.deck))
    game2.state.players[first].deck = list(reversed(game2.state.players[first].deck))
    assert np.array_equal(reference_observe(game2, first), reference_observe(Game.new([decks[0], decks[1]], 3), first))


def _rollout(env, batched_step):
    """`run(key, us, params)`: B envs × len(us) agent steps through `batched_step` (keys, states,
    actions, params); the agent's action is the (u mod n)-th legal action for a given random u, so
    that the reference can replay it. One program for both modes (`params.game.interleaved` is
    traced)."""

    def run(key, us, params):
        keys = jax.random.split(key, BATCH + 1)
        obs0, states = jax.vmap(env.reset, in_axes=(0, None))(keys[:BATCH], params)

        def body(states, inputs):
            step_keys, u = inputs
            masks = jax.vmap(env.action_mask, in_axes=(0, None))(states, params)
            count = jnp.maximum(masks.sum(-1), 1)
            pick = (u % count.astype(jnp.uint32)).astype(jnp.int32)
            action = jnp.argmax(jnp.cumsum(masks, -1) == pick[:, None] + 1, -1).astype(jnp.int32)
            obs, states, reward, terminated, truncated, info = batched_step(step_keys, states, action, params)
            return states, (obs, reward, terminated, truncated, info["action_mask"], action, states, info["agent_acted"])

        step_keys = jax.vmap(lambda k: jax.random.split(k, us.shape[0]))(keys[:BATCH]).swapaxes(0, 1)
        _, out = jax.lax.scan(body, states, (step_keys, us))
        return obs0, states, out

    return jax.jit(run)


@pytest.fixture(scope="module")
def env_rollout():
    """The rollout through `paritygym.batched_step(env)`, i.e. the env's `step_batch` (what the
    vector env and PPO use), and the env params (heuristic opponent)."""
    env, params = paritygym.make(ENV_ID, opponent=1)
    assert paritygym.batched_step(env) == env.step_batch
    return _rollout(env, paritygym.batched_step(env)), params


def _episode_from_state(game_state, b: int, pool):
    """(decks, seed) of env b's current game, recovered from its cards."""
    seed = int(np.asarray(game_state.seed)[b])
    decks = []
    for seat in range(2):
        cards = [c for field in (game_state.deck, game_state.hand, game_state.discard)
                 for c in np.asarray(field)[b, seat] if c >= 0]
        cards += [c for c in np.asarray(game_state.stack)[b, seat].reshape(-1) if c >= 0]
        decks.append(next(d for d in pool if sorted(d.cards) == sorted(cards)))
    return decks, seed


def _check_against_reference_env(env_rollout, interleaved: bool):
    run, params = env_rollout
    params = params.replace(game=params.game.replace(interleaved=interleaved))
    steps = STEPS  # the same shapes in both modes: one compiled program
    pool = list(shipped_decks().values())
    us = np.random.default_rng(5).integers(0, 2**32, size=(steps, BATCH), dtype=np.uint32)
    obs0, states0, (obs, reward, terminated, truncated, masks, actions, states, acted) = jax.device_get(
        run(jax.random.PRNGKey(3), us, params))
    ends, passes = collections.Counter(), 0
    for b in range(BATCH):
        ref = ReferenceSingleAgentEnv("heuristic", max_turns=params.game.max_turns, interleaved=interleaved)
        decks, seed = _episode_from_state(states0.game, b, pool)
        assert np.array_equal(ref.reset(decks, seed, int(states0.agent[b])), obs0[b])
        for k in range(steps):
            agent_decides = ref.game.state.decider == ref.agent
            assert bool(acted[k, b]) == agent_decides, (b, k)
            passes += not agent_decides
            ref_obs, ref_reward, ref_term, ref_trunc, info = ref.step(int(actions[k, b]))
            assert not info["illegal_action"]
            assert (ref_reward, ref_term, ref_trunc) == (float(reward[k, b]), bool(terminated[k, b]), bool(truncated[k, b])), (b, k)
            if ref_term or ref_trunc:
                ends["win" if ref_reward > 0 else "loss" if ref_reward < 0 else "draw"] += 1
                after = jax.tree_util.tree_map(lambda x: x[k], states)
                decks, seed = _episode_from_state(after.game, b, pool)
                ref_obs = ref.reset(decks, seed, int(after.agent[b]))
                info = {"action_mask": ref.action_mask()}
            assert np.array_equal(ref_obs, obs[k, b]), (b, k)
            assert np.array_equal(info["action_mask"], masks[k, b]), (b, k)
    assert sum(ends.values()) >= BATCH, ends
    assert (passes > 0) == interleaved, passes


@pytest.mark.rule("INFO-1")
def test_env_matches_reference_env(env_rollout):
    _check_against_reference_env(env_rollout, interleaved=False)


@pytest.mark.rule("INFO-1")
def test_interleaved_env_matches_reference_env(env_rollout):
    """Interleaved mode: one game action per step (the opponent's steps are passes for the agent),
    the same games as the reference single-agent env in the same mode."""
    _check_against_reference_env(env_rollout, interleaved=True)


@pytest.mark.slow
@pytest.mark.parametrize("opponent", [0, 1])
def test_step_batch_equals_vmapped_step(env_rollout, opponent):
    """The env's `step_batch` and the vmapped `step` give the same observations, rewards, flags,
    masks and states, in both modes (slow: it compiles the vmapped env program too)."""
    run_batch, params = env_rollout
    env = paritygym.make(ENV_ID)[0]
    run_vmapped = _rollout(env, jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    us = np.random.default_rng(11).integers(0, 2**32, size=(STEPS, BATCH), dtype=np.uint32)
    for interleaved in (False, True):
        p = params.replace(opponent=opponent, game=params.game.replace(interleaved=interleaved))
        ours, theirs = jax.device_get((run_batch(jax.random.PRNGKey(8), us, p), run_vmapped(jax.random.PRNGKey(8), us, p)))
        for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
            assert np.array_equal(a, b)


@pytest.mark.slow
def test_conformance():
    report = paritygym.testing.check_env(ENV_ID, num_envs=4, num_steps=32)
    assert report.checks


def test_conformance_of_options_and_action_dtype():
    """The parts of check_env that compile nothing, in the default suite (the full run is slow)."""
    assert len(paritygym.testing.check_options(ENV_ID)) == 4
    assert paritygym.testing.check_action_dtype(ENV_ID)
