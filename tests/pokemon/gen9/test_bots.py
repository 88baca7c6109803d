"""The Gen 9 max-damage opponent (``pokejax.gen9.bots``): its damage estimate on a hand-made battle,
its choices over random battles, and that it beats the random opponent."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax.gen9 import bots
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables
from pokejax.gen9.env import PokemonGen9Random, PokemonGen9RandomEnv

T = tables.load()


def _battle(seed=0):
    game = PokemonGen9Random()
    return game, game.init(jax.random.key(seed), game.default_params)


def _with_moves(battle, side, names):
    """The battle with the side's active holding ``names`` (four move ids, full PP)."""
    ids = jnp.asarray([T.move_index[n] for n in names], jnp.int32)
    slot = int(battle.active[side])
    return battle.replace(moves=battle.moves.at[side, slot].set(ids), pp=battle.pp.at[side, slot].set(10))


def _with_types(battle, side, first, second=None):
    types = [T.type_index[first], tables.TYPE_NONE if second is None else T.type_index[second]]
    return battle.replace(types=battle.types.at[side, int(battle.active[side])].set(jnp.asarray(types, jnp.int32)))


def test_expected_damage_ranks_by_type_power_and_accuracy():
    """Against a pure Ghost type: a Normal move is immune (0), a status move and an empty slot 0, a
    Dark move super effective (more than against a Dark type, which resists it); Focus Blast's
    1.5x the power of Aura Sphere counts at its 70 % accuracy."""
    _, game = _battle()
    battle = _with_types(game.battle, 1, "Ghost")
    battle = _with_moves(battle, 0, ["bodyslam", "crunch", "swordsdance", "psychic"])
    battle = battle.replace(moves=battle.moves.at[0, int(battle.active[0]), 3].set(0))
    dmg = np.asarray(bots.expected_damage(battle, 0))
    assert dmg[0] == 0 and dmg[2] == 0 and dmg[3] == 0 and dmg[1] > 0, dmg
    dark = np.asarray(bots.expected_damage(_with_types(battle, 1, "Dark"), 0))
    assert 0 < dark[1] < dmg[1] / 3, (dark, dmg)
    fighting = _with_moves(_with_types(battle, 1, "Normal"), 0, ["aurasphere", "focusblast", "swordsdance", "swordsdance"])
    d = np.asarray(bots.expected_damage(fighting, 0))
    power = {m: int(T.move_power[T.move_index[m]]) for m in ("aurasphere", "focusblast")}
    assert power == {"aurasphere": 80, "focusblast": 120}
    assert d[1] == pytest.approx(d[0] * 1.5 * 0.7, rel=0.05), d


def test_a_multi_hit_move_counts_its_expected_hits(monkeypatch):
    """The weights: accuracy alone for one hit (Focus Blast 70 %); Bullet Seed's drawn 2-5 hits (Showdown's
    sample of seven 2s, seven 3s, three 4s, three 5s: 3.1); Dual Wingbeat's two hits at its 90 %; Triple Axel's
    hit k at 90 % ** k and k times its power; Population Bomb's ten at 90 % ** k. The expected damage is one
    hit's times the weight."""
    w = bots.hit_weights()
    weight = {m: float(w[T.move_index[m]]) for m in ("focusblast", "bulletseed", "dualwingbeat", "tripleaxel",
                                                     "populationbomb", "seedbomb")}
    assert weight == pytest.approx({"focusblast": 0.7, "bulletseed": 3.1, "dualwingbeat": 1.8,
                                    "tripleaxel": 0.9 + 2 * 0.9 ** 2 + 3 * 0.9 ** 3,
                                    "populationbomb": sum(0.9 ** k for k in range(1, 11)), "seedbomb": 1.0}), weight
    _, game = _battle()
    battle = _with_moves(_with_types(game.battle, 1, "Normal"), 0, ["bulletseed", "tripleaxel", "dualwingbeat", "seedbomb"])
    weighted = np.asarray(bots.expected_damage(battle, 0))
    monkeypatch.setattr(bots, "hit_weights", lambda: np.ones_like(w))
    one_hit = np.asarray(bots.expected_damage(battle, 0))
    assert (one_hit > 0).all(), one_hit
    assert weighted == pytest.approx(one_hit * np.asarray([weight["bulletseed"], weight["tripleaxel"],
                                                           weight["dualwingbeat"], 1.0]), rel=1e-5)


@pytest.mark.slow   # its own compile of the vmapped step and both bots, ~100 s of the default suite; the default
                    # suite checks the heuristic opponent's legality through the env tests (step_batch vs step)
def test_choices_are_legal_moves_of_the_highest_expected_damage():
    """Over random battles: the bot's action is legal; a move action is one of the legal moves of
    the highest expected damage, and it plays a move whenever one deals damage."""
    game = PokemonGen9Random()
    params = game.default_params
    batch = 64
    keys = jax.random.split(jax.random.key(5), batch)
    states = jax.vmap(game.init, (0, None))(keys, params)

    @jax.jit
    def play(key, states):
        k_bot, k_rand, k_step = jax.random.split(key, 3)
        bot = jax.vmap(game.heuristic_action, (0, 0, None, None))(jax.random.split(k_bot, batch), states, 0, params)
        mask = jax.vmap(game.legal_action_mask, (0, None, None))(states, 0, params)
        dmg = jax.vmap(bots.expected_damage, (0, None))(states.battle, 0)
        other = jax.vmap(game.heuristic_action, (0, 0, None, None))(jax.random.split(k_rand, batch), states, 1, params)
        actions = jnp.stack([bot, other], axis=-1)
        nxt = jax.vmap(game.step, (0, 0, 0, None))(jax.random.split(k_step, batch), states, actions, params)[0]
        return nxt, bot, mask, dmg

    checked = 0
    for t in range(40):
        states_before = states
        states, bot, mask, dmg = jax.device_get(play(jax.random.key(100 + t), states))
        for i in range(batch):
            if not mask[i].any():
                continue
            assert mask[i, bot[i]], (t, i, bot[i])
            legal_dmg = np.where(mask[i, :4], dmg[i], -1.0)
            if legal_dmg.max() > 0 and states_before.battle.request[i] == S.REQUEST_MOVE:
                assert bot[i] < 4 and dmg[i, bot[i]] == legal_dmg.max(), (t, i, bot[i], legal_dmg)
                checked += 1
    assert checked > 500


@pytest.mark.slow  # playing strength over many battles (~2 CPU min cold); the bot's legality and ranking tests stay
def test_beats_the_random_opponent():
    """The max-damage bot as the env's opponent wins most battles against a random agent (the env's
    reward is the agent's: its mean is well below 0)."""
    env = PokemonGen9RandomEnv()
    params = env.default_params.replace(opponent=1)
    batch = 96
    _, states = jax.vmap(env.reset, (0, None))(jax.random.split(jax.random.key(7), batch), params)

    @jax.jit
    def run(key, states):
        def body(carry, key):
            states, wins, losses = carry
            k_act, k_step = jax.random.split(key)
            masks_now = jax.vmap(env.action_mask, (0, None))(states, params)
            action = jax.random.categorical(k_act, jnp.where(masks_now, 0.0, -jnp.inf)).astype(jnp.int32)
            _, states, reward, done, trunc, _ = jax.vmap(env.step, (0, 0, 0, None))(
                jax.random.split(k_step, batch), states, action, params)
            return (states, wins + (reward > 0).sum(), losses + (reward < 0).sum()), None
        (states, wins, losses), _ = jax.lax.scan(body, (states, 0, 0), jax.random.split(key, 120))
        return wins, losses

    wins, losses = (int(x) for x in run(jax.random.key(8), states))
    assert wins + losses >= 100, (wins, losses)
    assert losses >= 3 * wins, (wins, losses)
