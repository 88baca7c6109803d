"""``PokemonGen9Random-v0``: the env contract (check_env), what the observation hides, the HP the
other player is shown, and the battles being the engine's (restricted teams, see pokejax.gen9.env)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym.testing import check_action_dtype, check_env, check_options
from paritygym.twoplayer import OPPONENT_HEURISTIC, OPPONENT_RANDOM
from pokejax.gen9 import observe as O
from pokejax.gen9.env import PokemonGen9RandomEnv, restricted_pool
from pokejax.gen9.state import HAZARD_LAYERS, REQUEST_MOVE
from tests.pokemon.test_env import _assert_same_tree


@pytest.mark.slow   # three compiles of the env's programs, ~5 CPU minutes in the default suite (as Gen 1's)
def test_conformance():
    report = check_env("PokemonGen9Random-v0", num_envs=2, num_steps=16)
    assert len(report.checks) >= 5


def test_conformance_of_options_and_action_dtype():
    """The parts of check_env that compile nothing, in the default suite (the full run is slow)."""
    assert len(check_options("PokemonGen9Random-v0")) == 4
    assert check_action_dtype("PokemonGen9Random-v0")


BATCH = 8


@pytest.fixture(scope="module")
def batched():
    """The env and its reset / step / action mask, vmapped over BATCH envs and jitted once for the module."""
    env, params = paritygym.make("PokemonGen9Random-v0")
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, None)))
    mask = jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))
    return env, params, reset, step, mask


def _random_legal(rng, legal):
    return jnp.asarray([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in np.asarray(legal)], jnp.int32)


def _block(obs, name):
    start, length = next((s, n) for k, s, n in O.obs_layout() if k == name)
    return np.asarray(obs)[..., start:start + length]


def test_layout_and_spaces():
    layout = O.obs_layout()
    assert sum(n for _, _, n in layout) == O.OBS_SIZE
    assert all(a[1] + a[2] == b[1] for a, b in zip(layout, layout[1:]))
    env, params = paritygym.make("PokemonGen9Random-v0")
    assert isinstance(env, PokemonGen9RandomEnv)
    assert env.observation_space(params).shape == (O.OBS_SIZE,) and env.num_actions == 14
    assert len(restricted_pool()) > 500


def test_observation_shows_the_opponent_only_as_revealed(batched):
    """Over random play: an opponent's Pokémon is blank until it has been on the field, its moves
    until used (PP spent), its Tera type until it Terastallized; the own side is always in full. Both
    actives' confusion, substitute and disabling volatiles' turns and both sides' hazards are shown."""
    env, params, reset, step, mask = batched
    batch = BATCH
    obs, state = reset(jax.random.split(jax.random.key(3), batch), params)
    rng = np.random.default_rng(0)
    checked_moves = volatiles = 0
    for t in range(40):
        battle, seen, agent = state.game.battle, np.asarray(state.game.seen), np.asarray(state.agent)
        other = 1 - agent
        b = np.arange(batch)
        team_size = np.asarray(battle.team_size)[b, other]
        for k in range(6):
            present = _block(obs, f"opponent.team[{k}].present")[:, 0]
            assert np.array_equal(present, (seen[b, other, k] & (k < team_size)).astype(np.float32))
            hidden = ~seen[b, other, k]
            row = np.concatenate([_block(obs, f"opponent.team[{k}].{f}") for f, _ in O.MON_FIELDS], axis=1)
            assert not row[hidden].any()
            assert not _block(obs, f"opponent.team[{k}].stats")[:, :].any()        # never shown
            assert not _block(obs, f"opponent.team[{k}].item").any()
            tera_shown = _block(obs, f"opponent.team[{k}].tera_type").any(axis=1)
            assert np.array_equal(tera_shown, np.asarray(battle.terastallized)[b, other, k] & seen[b, other, k])
            own_present = _block(obs, f"own.team[{k}].present")[:, 0]
            assert np.array_equal(own_present, (k < np.asarray(battle.team_size)[b, agent]).astype(np.float32))
            for j in range(4):
                known = _block(obs, f"opponent.team[{k}].moves[{j}].known")[:, 0]
                used = (np.asarray(battle.pp)[b, other, k, j] < np.asarray(battle.max_pp)[b, other, k, j])
                assert np.array_equal(known, (used & seen[b, other, k]).astype(np.float32))
                assert not _block(obs, f"opponent.team[{k}].moves[{j}].pp_fraction").any()
                checked_moves += int(known.sum())
        for who, side in (("own", agent), ("opponent", other)):
            confused = _block(obs, f"{who}.active.confused")[:, 0]
            assert np.array_equal(confused, (np.asarray(battle.confusion)[b, side] > 0).astype(np.float32))
            layers = _block(obs, f"{who}.side.hazards") * np.array(HAZARD_LAYERS)
            assert np.array_equal(np.rint(layers), np.asarray(battle.hazards)[b, side])
            substitute = np.asarray(battle.sub_hp)[b, side] > 0
            assert np.array_equal(_block(obs, f"{who}.active.substitute")[:, 0], substitute.astype(np.float32))
            volatiles += int(substitute.sum())
            for name, most in (("taunt", 4), ("encore", 4), ("throat_chop", 2), ("heal_block", 2)):
                turns = np.asarray(getattr(battle, name))[b, side]
                assert np.array_equal(np.rint(_block(obs, f"{who}.active.{name}")[:, 0] * most), turns), name
                volatiles += int((turns > 0).sum())
        actives = np.asarray(battle.active)[b, other]
        assert seen[b, other, actives].all()   # the opponent's active is on the field: seen
        actions = _random_legal(rng, mask(state, params))
        obs, state = step(jax.random.split(jax.random.key(100 + t), batch), state, actions, params)[:2]
    assert checked_moves > 0   # some opponent moves were revealed and checked
    assert volatiles > 0       # a substitute or a disabling volatile was up and shown


def test_shown_hp_is_showdowns_percentage():
    """Showdown's Gen 7+ ``Pokemon.getHealth`` (shared): ceil(100 hp / maxhp), 99 for a Pokémon not at
    full HP that would round to 100, 0 fainted."""
    hp = np.array([0, 1, 1, 350, 351, 699, 700, 299, 300, 2])
    max_hp = np.array([700, 700, 1, 700, 700, 700, 700, 300, 300, 3])
    expected = [0, 1, 100, 50, 51, 99, 100, 99, 100, 67]
    assert np.asarray(O.shown_hp_percent(hp, max_hp)).tolist() == expected


def test_episodes_end_with_a_winner_and_rewards(batched):
    """Random play to the end of battles: +1 or -1 on the step that ends one (both seen), 0 on every
    other step, and the next battle started by the autoreset (a move request for both sides)."""
    env, params, reset, step, mask = batched
    batch = BATCH
    _, state = reset(jax.random.split(jax.random.key(5), batch), params)
    assert (np.asarray(state.game.battle.request) == REQUEST_MOVE).all()
    rng = np.random.default_rng(1)
    rewards = []
    for t in range(400):
        _, state, reward, terminated, truncated, _ = step(jax.random.split(jax.random.key(t), batch), state,
                                                          _random_legal(rng, mask(state, params)), params)
        ended = np.asarray(terminated)
        rewards += np.asarray(reward)[ended].tolist()
        assert not np.asarray(reward)[~ended].any() and not np.asarray(truncated).any()
        assert (np.asarray(state.game.battle.request)[ended] == REQUEST_MOVE).all()
        if len(rewards) >= 8:
            break
    assert len(rewards) >= 8 and set(rewards) <= {-1.0, 0.0, 1.0} and {-1.0, 1.0} <= set(rewards)


@pytest.mark.slow  # a PPO program around the Gen 9 env (~3 CPU min cold); the default suite runs the example on Gen 1
def test_ppo_example_trains_on_gen9(tmp_path, capsys):
    """examples/ppo_pokemon.py --env-id PokemonGen9Random-v0: a few thousand steps end to end, the
    checkpoint reloaded and evaluated against the random and the max-damage opponent."""
    from ...examples import check_saved_run, load_example, quick_compiles

    with quick_compiles():
        result = load_example("ppo_pokemon").main([
            "--env-id", "PokemonGen9Random-v0", "--num-envs", "8", "--num-steps", "64", "--total-timesteps", "2048",
            "--hidden", "64", "--num-minibatches", "4", "--target-metric", "none", "--log-every-s", "0",
            "--out-dir", str(tmp_path), "--eval-battles", "8"])
    check_saved_run(result, tmp_path, 2048)
    assert any(h["episodes"] > 0 for h in result.history), result.history
    assert set(result.evaluation) == {"random", "max-damage"}
    for scores in result.evaluation.values():
        assert len(scores["win"]) == 8 and set(np.unique(scores["win"])) <= {0.0, 1.0}
    out = capsys.readouterr().out
    assert "vs the random opponent" in out and "vs the max-damage opponent" in out


def test_observation_and_mask_are_the_same_in_both_forms(batched):
    """The observation and the legal mask read a side at a traced index through ``state.select``
    (a gather on the CPU, a select of the two rows in the accelerator form): both forms give the same
    arrays, bit for bit, over states of random play, for both players."""
    from paritygym.backend import forced_form

    env, params, reset, step, mask = batched
    game = env.game
    obs, state = reset(jax.random.split(jax.random.key(21), BATCH), params)
    rng = np.random.default_rng(21)
    games = []
    for t in range(24):
        games.append(state.game)
        obs, state, *_ = step(jax.random.split(jax.random.key(200 + t), BATCH), state,
                              _random_legal(rng, mask(state, params)), params)
    games = jax.tree.map(lambda *x: jnp.concatenate(x), *games)   # [24 * BATCH] battles

    def view(g, player):
        return game.observe(g, player, params.game), game.legal_action_mask(g, player, params.game)

    out = {}
    for form in ("cpu", "accelerator"):
        with forced_form(form):
            run = jax.jit(jax.vmap(view, (0, None)))
            out[form] = [jax.device_get(run(games, p)) for p in (0, 1)]
    jax.tree.map(np.testing.assert_array_equal, out["cpu"], out["accelerator"])
    assert out["cpu"][0][1].any() and not np.array_equal(out["cpu"][0][0], out["cpu"][1][0])


def test_observe_where_observes_the_battles_asked_for(batched):
    """``observe_where`` (the restarted battles' observations of ``step_batch``, on gathered sub-batches):
    each asked-for row is that battle's observation, every other row zeros, whatever the sub-batch size
    (one battle per sub-batch: as many trips as rows asked for) and whichever rows are asked for."""
    from pokejax.gen9.env import observe_where

    env, params, reset, step, mask = batched
    obs, state = reset(jax.random.split(jax.random.key(31), BATCH), params)
    rng = np.random.default_rng(31)
    for t in range(3):
        obs, state, *_ = step(jax.random.split(jax.random.key(310 + t), BATCH), state,
                              _random_legal(rng, mask(state, params)), params)
    view = lambda g, p: env.game.observe(g, p, params.game)
    players = jnp.asarray(rng.integers(0, 2, BATCH), jnp.int32)
    full = np.asarray(jax.jit(jax.vmap(view))(state.game, players))
    for chunk in (None, 3, BATCH):      # None: ceil(BATCH / 16), one battle per sub-batch
        run = jax.jit(functools.partial(observe_where, view, chunk=chunk))
        for which in (np.zeros(BATCH, bool), np.ones(BATCH, bool), rng.random(BATCH) < 0.5):
            got = np.asarray(run(state.game, players, jnp.asarray(which)))
            np.testing.assert_array_equal(got, np.where(which[:, None], full, 0.0), err_msg=f"chunk {chunk}")
    assert np.abs(full).sum(-1).min() > 0
    with pytest.raises(ValueError, match="trip_chunk"):
        PokemonGen9RandomEnv(trip_chunk=0)


def test_step_batch_equals_vmapped_step(batched):
    """``step_batch`` (the decision loop batch-wide, its trips with no turn to run through
    ``switch_step``) gives exactly the vmapped ``step``'s outputs, every leaf, step for step over 60
    steps of random legal play with illegal actions mixed in, for both opponents (traced params: one
    program); with ``trip_chunk=3`` the battles needing a trip run as sub-batches of three (the last
    padded), and ``max_steps_in_episode=4`` restarts all envs at once. Counts the opponent's lone
    replacements (trips after the first) and the battles ended (a restart's start)."""
    env, params, reset, step, mask = batched
    assert paritygym.batched_step(env) == env.step_batch
    step_batch = jax.jit(paritygym.batched_step(PokemonGen9RandomEnv(trip_chunk=3)))
    for opponent, max_steps in ((OPPONENT_HEURISTIC, 100_000), (OPPONENT_RANDOM, 4)):
        _compare_step_batch(params.replace(opponent=opponent, max_steps_in_episode=max_steps), reset, step, mask,
                            step_batch, opponent, max_steps)


def _compare_step_batch(params, reset, step, mask, step_batch, opponent, max_steps):
    """One rollout of ``test_step_batch_equals_vmapped_step``: 60 steps, both steps compared after each."""
    key = jax.random.key(70 + opponent + max_steps)
    _, state = reset(jax.random.split(key, BATCH), params)
    rng = np.random.default_rng(opponent)
    rows = np.arange(BATCH)
    lone = ended = 0
    for t in range(60):
        actions = _random_legal(rng, np.asarray(mask(state, params)))
        actions = np.where(rng.random(BATCH) < 0.1, rng.integers(-2, 16, BATCH), actions).astype(np.int32)
        keys = jax.random.split(jax.random.fold_in(key, t), BATCH)
        out = step(keys, state, actions, params)
        _assert_same_tree(out, step_batch(keys, state, actions, params), f"step {t}")
        new_state, over = out[1], np.asarray(out[3] | out[4])
        ended += int(over.sum())
        # the opponent lost a Pokémon, the agent none, the battle goes on: its lone replacement
        agent = np.asarray(state.agent)
        down = lambda st: (np.asarray(st.game.battle.hp) == 0).sum(-1)      # [B, 2] fainted per side
        before, after = down(state), down(new_state)
        lone += int((~over & (after[rows, 1 - agent] > before[rows, 1 - agent])
                     & (after[rows, agent] == before[rows, agent])).sum())
        state = new_state
    assert lone >= 3 and ended >= (BATCH if max_steps == 4 else 1), (lone, ended)
