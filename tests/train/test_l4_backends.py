"""The reference vector envs L4 evaluates policies on (PyBoy behind GameBoy-v0's protocol, the TCG
reference engine against the heuristic bot), and the L4 hooks end to end on a tiny policy."""

from __future__ import annotations

import numpy as np
import pytest

import paritygym


@pytest.fixture(scope="module")
def pyboy_and_emurust():
    from emurust.l4 import PyBoyGameVectorEnv

    ours = paritygym.make_vec("GameBoy-v0", num_envs=2, seed=11, observation="ram", frame_skip=4)
    reference = PyBoyGameVectorEnv(2, seed=11, frame_skip=4)
    yield ours, reference
    ours.close()
    reference.close()


def test_pyboy_env_matches_gameboy_v0_in_lockstep(pyboy_and_emurust):
    """Same seed (so the same start states) and the same actions: PyBoy behind our protocol gives
    GameBoy-v0's observations, rewards and episode ends step for step, across autoresets."""
    ours, reference = pyboy_and_emurust
    obs_a, _ = ours.reset(seed=5)
    obs_b, _ = reference.reset(seed=5)
    np.testing.assert_array_equal(obs_a, obs_b)
    rng = np.random.default_rng(0)
    ends = rewarded = 0
    for t in range(400):
        actions = rng.integers(0, 5, 2)
        a, b = ours.step(actions), reference.step(actions)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated"), a[:4], b[:4]):
            assert np.array_equal(x, y), (t, name, x, y)
        ends += int(a[2].sum())
        rewarded += int((a[1] != 0).sum())
    assert ends >= 2 and rewarded >= 2  # episodes ended and were restarted; the score changed


def test_pyboy_env_rejects_bad_actions(pyboy_and_emurust):
    _, reference = pyboy_and_emurust
    reference.reset(seed=0)
    with pytest.raises(ValueError):
        reference.step(np.array([0, 5]))
    with pytest.raises(ValueError):
        reference.step(np.array([0]))


def test_tcg_reference_vector_env_plays_whole_games():
    from tcgjax.game.observe import OBS_SIZE
    from tcgjax.l4 import ReferenceTCGVectorEnv

    def play(seed):
        env = ReferenceTCGVectorEnv(3, seed=seed)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        record, rewards = [obs], []
        for _ in range(150):
            mask = info["action_mask"]
            assert mask.shape == (3, env.single_action_space.n) and mask.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, reward, terminated, truncated, info = env.step(actions)
            assert obs.shape == (3, OBS_SIZE) and np.isfinite(obs).all()
            record.append(obs)
            rewards.append(reward)
            assert set(np.unique(reward)) <= {-1.0, 0.0, 1.0}
            assert not (reward[~(terminated | truncated)] != 0).any()  # reward only at a game's end
        with pytest.raises(ValueError):
            env.step(np.array([0, 0, 999]))
        return np.stack(record), np.stack(rewards)

    obs_a, rewards_a = play(4)
    obs_b, rewards_b = play(4)
    np.testing.assert_array_equal(obs_a, obs_b)  # same seed, same games
    assert (rewards_a != 0).sum() >= 1  # at least one game was decided


def test_gameboy_l4_hook_on_a_tiny_policy(tmp_path, monkeypatch):
    """`paritygym verify GameBoy-v0 --level 4` end to end: a policy trained for two updates,
    evaluated on emurust and PyBoy; the report carries both backends' figures."""
    from emurust.l4 import verify_l4
    from paritygym.train import PPOConfig
    from paritygym.train.host import train_host

    config = PPOConfig(env_id="GameBoy-v0", env_kwargs={"observation": "ram", "frame_skip": 4}, num_envs=4, num_steps=8,
                       total_timesteps=64, num_minibatches=1, update_epochs=1, out_dir=str(tmp_path))  # fmt: skip
    train_host(config, verbose=False)
    monkeypatch.setenv("PARITYGYM_GAMEBOY_POLICY", str(tmp_path / "checkpoint.msgpack"))
    (report,) = verify_l4(episodes=4, eval_envs=2)
    assert report.level == 4 and report.episodes == 8
    assert set(report.details["mean_return"]) == {"ours", "reference"}
    assert report.passed == (report.failure is None)
    monkeypatch.setenv("PARITYGYM_GAMEBOY_POLICY", str(tmp_path / "missing.msgpack"))
    with pytest.raises(FileNotFoundError, match="ppo_gameboy"):
        verify_l4(episodes=4)


def test_cli_prefers_the_level_4_hook():
    assert paritygym.spec("TCGPocketA1-v0").verify_l4 == "tcgjax.l4:verify_l4"
    assert paritygym.spec("GameBoy-v0").verify_l4 == "emurust.l4:verify_l4"
    assert paritygym.spec("Pong-v0").verify_l4 is None  # Pong's verify hook runs level 4 itself


@pytest.mark.slow
def test_tcg_l4_hook_on_a_tiny_policy(tmp_path, monkeypatch):
    """`paritygym verify TCGPocketA1-v0 --level 4` end to end on a policy trained for one update
    (slow: the TCG env and PPO update compile for several minutes on a CPU)."""
    from paritygym.train import PPOConfig, train
    from tcgjax.l4 import verify_l4

    config = PPOConfig(env_id="TCGPocketA1-v0", env_kwargs={"opponent": 0}, num_envs=8, num_steps=8, total_timesteps=64,
                       num_minibatches=1, update_epochs=1, out_dir=str(tmp_path))  # fmt: skip
    train(config, verbose=False)
    monkeypatch.setenv("PARITYGYM_TCG_POLICY", str(tmp_path / "checkpoint.msgpack"))
    (report,) = verify_l4(episodes=16)
    assert report.level == 4 and report.episodes == 32
    assert set(report.details["win_rate"]) == {"ours", "reference"}
    assert report.passed == (report.failure is None)
