"""The Showdown backend of Pokémon L4 (pokejax.l4): Showdown's state snapshot converted into a
pokejax BattleState gives the agent and the max-damage bot exactly what pokejax gives them, checked
in lockstep with pokejax's engine on whole random battles; the vector env plays whole battles,
deterministically per seed, with pokejax's masks equal to Showdown's choices."""

from __future__ import annotations

import jax
import numpy as np
import pytest

pytest.importorskip("pokejax.l4")

from pokejax import parity, prng  # noqa: E402
from pokejax.game.bots import max_damage_action  # noqa: E402
from pokejax.game.masks import legal_mask  # noqa: E402
from pokejax.game.observe import observe  # noqa: E402
from pokejax.game import setup  # noqa: E402
from pokejax.l4 import RevealTracker, ShowdownPokemonVectorEnv, showdown_legal, state_from_showdown  # noqa: E402
from pokejax.reference import ShowdownBridge  # noqa: E402

LOCKSTEP_BATTLES = 3
SLOW_LOCKSTEP_BATTLES = 40


@pytest.fixture(scope="module")
def bridge():
    with ShowdownBridge() as b:
        yield b


@pytest.fixture(scope="module")
def second_bridge():
    with ShowdownBridge() as b:
        yield b


@pytest.fixture(scope="module")
def views():
    """jitted (state, key) -> both players' observations (partial and full), masks, bot actions."""
    def both(st, key):
        return {
            "obs": jax.numpy.stack([observe(st, p) for p in (0, 1)]),
            "obs_full": jax.numpy.stack([observe(st, p, True) for p in (0, 1)]),
            "mask": jax.numpy.stack([legal_mask(st, p) for p in (0, 1)]),
            "max_damage": jax.numpy.stack([max_damage_action(key, st, p) for p in (0, 1)]),
        }
    return jax.jit(both)


def _lockstep(bridge, views, battles: int, base: int) -> None:
    """Same battle in pokejax and in Showdown, random legal choices: after every decision the
    converted Showdown state gives both players the same observation (partial and full), mask and
    max-damage action as pokejax's own state, and the mask is Showdown's own choice set."""
    new, step, _ = parity.compiled_engine()
    steps = 0
    for index in range(battles):
        battle_seed, player_seeds, choice_seed = parity.seeds_for(index, base=base)
        reply = bridge.start(battle_seed, p1_seed=player_seeds[0], p2_seed=player_seeds[1])
        packed = reply["teams"]
        st = new(setup.stack_teams(setup.from_packed(packed[0]), setup.from_packed(packed[1])),
                 prng.seed_from_showdown(list(battle_seed)))
        rng = np.random.default_rng(choice_seed)
        seen = RevealTracker()
        try:
            for n in range(2000):
                seen.update(reply)
                key = jax.random.key(n)
                ours = jax.device_get(views(st, key))
                theirs = jax.device_get(views(state_from_showdown(reply, seen), key))
                for name in ours:
                    np.testing.assert_array_equal(theirs[name], ours[name], err_msg=f"battle {index} step {n}: {name}")
                for p in (0, 1):
                    np.testing.assert_array_equal(theirs["mask"][p], showdown_legal(reply, p))
                steps += 1
                if reply["state"]["ended"]:
                    break
                actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else None for m in theirs["mask"]]
                reply = bridge.choose(reply["id"], *({"move": a} if a is not None and a < 4 else
                                                     ({"switch": a - 4} if a is not None else None) for a in actions))
                st = step(st, np.asarray([a if a is not None else 0 for a in actions], np.int32))
            assert reply["state"]["ended"]
        finally:
            bridge.destroy(reply["id"])
    assert steps > 20 * battles


def test_converted_state_matches_pokejax_in_lockstep(bridge, views):
    _lockstep(bridge, views, LOCKSTEP_BATTLES, base=4242)


@pytest.mark.slow
def test_converted_state_matches_pokejax_in_lockstep_slow(bridge, views):
    _lockstep(bridge, views, SLOW_LOCKSTEP_BATTLES, base=4243)


def _play(seed: int, steps: int, bridges):
    env = ShowdownPokemonVectorEnv(3, seed=seed, bridges=bridges)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    record = [obs]
    ends, rewards = 0, []
    for _ in range(steps):
        mask = info["action_mask"]
        assert mask.any(axis=1).all()  # the agent only ever sees states where it must act
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, reward, terminated, truncated, info = env.step(actions)
        record.append(obs)
        ends += int((terminated | truncated).sum())
        rewards += list(reward[terminated])
        assert np.all(reward[~terminated] == 0)
    assert env.mask_mismatches == 0 and env.decisions > 0
    return np.stack(record), ends, rewards


def test_showdown_vector_env_plays_whole_battles_deterministically(bridge, second_bridge):
    """Same seed, same actions: the same battles, whether one node process or two play them."""
    a, ends, rewards = _play(3, 120, [bridge])
    b, _, _ = _play(3, 120, [bridge, second_bridge])
    np.testing.assert_array_equal(a, b)
    assert ends >= 2
    assert set(rewards) <= {-1.0, 0.0, 1.0} and len(rewards) >= 2
    assert np.isfinite(a).all() and a.min() >= -1 and a.max() <= 1


def test_showdown_vector_env_rejects_bad_input(bridge):
    with pytest.raises(ValueError):
        ShowdownPokemonVectorEnv(0, bridges=[bridge])
    with pytest.raises(ValueError):
        ShowdownPokemonVectorEnv(2, opponent=7, bridges=[bridge])
    with pytest.raises(ValueError):
        ShowdownPokemonVectorEnv(2, bridges=0)
    env = ShowdownPokemonVectorEnv(2, seed=0, bridges=[bridge])
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(np.array([0, 10]))
    with pytest.raises(ValueError):
        env.step(np.array([0]))


def test_pokemon_l4_hook_is_registered_and_checks_its_arguments(monkeypatch, tmp_path):
    import paritygym
    from pokejax.l4 import verify_l4

    assert paritygym.spec("PokemonGen1Random-v0").verify_l4 == "pokejax.l4:verify_l4"
    with pytest.raises(ValueError):
        verify_l4(level=3)
    with pytest.raises(ValueError):
        verify_l4(episodes=1)
    monkeypatch.setenv("PARITYGYM_POKEMON_POLICY", str(tmp_path / "missing.msgpack"))
    with pytest.raises(FileNotFoundError, match="ppo_pokemon.py"):
        verify_l4(episodes=4)
