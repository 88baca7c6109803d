"""GameBoy-v0: conformance, reward/termination from RAM, resets, custom ROMs."""

from __future__ import annotations

import numpy as np
import pytest

import emurust
import paritygym
from emurust.env import GameBoyEnv, GameBoyVectorEnv, RamView, combine, ram_delta, ram_equals, ram_in, ram_value
from paritygym.testing import check_env


def test_conformance():
    report = check_env("GameBoy-v0")
    assert len(report.checks) == 6  # options (3: no params) and vector API (3)


def test_registered_with_reference_and_hooks():
    spec = paritygym.spec("GameBoy-v0")
    assert spec.kind == "native" and "PyBoy 2.8.1" in spec.reference
    for hook in (spec.reference_bench, spec.verify, spec.vector_entry_point, spec.entry_point):
        assert callable(paritygym.registry.load(hook))


def play(venv, steps, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = venv.step(rng.integers(0, venv.single_action_space.n, venv.num_envs))
        out.append((obs.copy() if not isinstance(obs, dict) else {k: v.copy() for k, v in obs.items()},
                    reward.copy(), terminated.copy(), truncated.copy(), info.get("final_obs")))
    return out


def test_catch_reward_is_the_score_change_and_game_over_terminates():
    venv = GameBoyVectorEnv(4, observation="ram", frame_skip=2, max_steps_in_episode=None)
    obs, _ = venv.reset(seed=0)
    score = lambda o: o[:, 0].astype(np.int64) + 256 * o[:, 1].astype(np.int64)  # noqa: E731  (RAM obs starts at C0A0)
    prev = score(obs)
    rng = np.random.default_rng(1)
    seen_reward = seen_end = 0
    for _ in range(600):
        obs, reward, terminated, truncated, info = venv.step(rng.integers(0, 5, 4))
        assert not truncated.any()
        final = info["final_obs"] if terminated.any() else obs
        np.testing.assert_array_equal(reward, (score(final) - prev).astype(np.float32))
        np.testing.assert_array_equal(terminated, final[:, 3] == 2)
        if terminated.any():
            # Restarted envs begin a new game: state 1 (play), 3 lives, score 0.
            assert np.all(obs[terminated, 3] == 1) and np.all(obs[terminated, 2] == 3) and np.all(score(obs)[terminated] == 0)
        seen_reward += int((reward > 0).sum())
        seen_end += int(terminated.sum())
        prev = score(obs)
    assert seen_reward > 5 and seen_end > 2


def test_same_seed_same_trajectory_and_seeds_matter():
    a = GameBoyVectorEnv(3, seed=5)
    b = GameBoyVectorEnv(3, seed=5)
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    assert np.array_equal(oa, ob)
    for x, y in zip(play(a, 150, 2), play(b, 150, 2)):
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])
    # Different reset seeds start from different title waits: RAM differs (the game's RNG state).
    starts = set()
    for seed in range(6):
        v = GameBoyVectorEnv(1, seed=seed, observation="ram", ram_addresses=list(range(0xC100, 0xC140)))
        v.reset(seed=seed)
        starts.add(v.save_state(0))
    assert len(starts) > 1


def test_truncation_and_dict_observation():
    venv = GameBoyVectorEnv(2, observation="screen+ram", max_steps_in_episode=5, downscale=4, screen="rgb")
    obs, _ = venv.reset(seed=0)
    assert obs["screen"].shape == (2, 36, 40, 3) and obs["ram"].shape == (2, 23)
    for t in range(1, 11):
        obs, reward, terminated, truncated, info = venv.step(np.zeros(2, np.int64))
        if t % 5 == 0:
            assert truncated.all() and "final_obs" in info
        else:
            assert not truncated.any()


def test_custom_rom_with_python_reward_and_termination(roms, tmp_path):
    path = tmp_path / "stress.gb"
    path.write_bytes(roms["stress"])
    calls = []

    def reward(prev: RamView, now: RamView) -> np.ndarray:
        calls.append(1)
        return (now[0xC0A2] != prev[0xC0A2]).astype(np.float32)  # timer interrupts counted by the ROM

    venv = GameBoyVectorEnv(2, rom_path=path, observation="ram", ram_addresses=[0xC0A0, 0xC0A1], reward=reward,
                            terminated=lambda now: now[0xC0A0] == 3, watch=[0xC0A2], frame_skip=8, max_steps_in_episode=None)
    obs, _ = venv.reset(seed=0)
    ends = 0
    for _ in range(200):
        obs, r, term, trunc, info = venv.step(np.zeros(2, np.int64))
        ends += int(term.sum())
    assert len(calls) == 200 and ends >= 2, "scene 3 of STRESS ends the episode"
    with pytest.raises(KeyError, match="not watched"):
        RamView(np.zeros((1, 1), np.uint8), {0xC000: 0})[0xC001]


def test_ram_helpers():
    data = np.array([[0x34, 0x12, 0x99, 0xFF], [0x00, 0x80, 0x05, 0x01]], np.uint8)
    view = RamView(data, {0xD000: 0, 0xD001: 1, 0xD002: 2, 0xD003: 3})
    assert view.value(0xD000, 2).tolist() == [0x1234, 0x8000]
    assert view.value(0xD000, 2, byteorder="big").tolist() == [0x3412, 0x0080]
    assert view.value(0xD000, 2, signed=True).tolist() == [0x1234, -0x8000]
    assert view.value(0xD002, 1, bcd=True).tolist() == [99, 5]
    prev = RamView(np.zeros_like(data), view.columns)
    assert ram_delta(0xD000, 2, scale=0.5)(prev, view).tolist() == [0x1234 / 2, 0x8000 / 2]
    assert ram_delta(0xD000, 2, clip=(-1, 1))(prev, view).tolist() == [1, 1]
    assert ram_value(0xD002)(prev, view).tolist() == [0x99, 5]
    assert ram_equals(0xD003, 1)(view).tolist() == [False, True]
    assert ram_in(0xD003, [0xFF, 7])(view).tolist() == [True, False]
    both = combine(ram_value(0xD002), ram_value(0xD003))
    assert both(prev, view).tolist() == [0x99 + 0xFF, 6] and both.addresses == (0xD002, 0xD003)
    either = combine(ram_equals(0xD003, 1), ram_equals(0xD002, 0x99))
    assert either(view).tolist() == [True, True]


@pytest.mark.parametrize("kwargs,exc,message", [
    (dict(game="tetris"), ValueError, "unknown game"),
    (dict(rom_path="/nonexistent.gb"), FileNotFoundError, "not found"),
    (dict(observation="pixels"), ValueError, "observation"),
    (dict(game=None, rom=b"\x00" * 10), emurust.RomLoadError, "too small"),
    (dict(observation="ram", ram_addresses=[]), ValueError, "ram_addresses"),
    (dict(max_steps_in_episode=0), ValueError, "max_steps_in_episode"),
    (dict(max_steps_in_episode=2.5), TypeError, "max_steps_in_episode"),
    (dict(frame_skip=0), ValueError, "frame_skip"),
    (dict(frame_skip=True), TypeError, "frame_skip"),
    (dict(downscale=3), ValueError, "downscale"),
    (dict(noop_max=-1), ValueError, "noop_max"),
    (dict(num_threads="2"), TypeError, "num_threads"),
    (dict(screen="grey"), ValueError, "screen"),
])
def test_bad_configuration(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        GameBoyVectorEnv(1, **kwargs)


def test_make_refuses_the_native_env_and_names_the_entry_points():
    with pytest.raises(TypeError, match=r"make_vec\('GameBoy-v0'.*emurust\.env\.GameBoyEnv"):
        paritygym.make("GameBoy-v0", observation="ram")


def test_single_env_is_a_gymnasium_env():
    env = GameBoyEnv(observation="ram", frame_skip=1)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (23,)
    obs, reward, terminated, truncated, info = env.step(2)
    assert isinstance(reward, float) and isinstance(terminated, bool)


def test_old_option_names_are_deprecated_aliases():
    with pytest.warns(DeprecationWarning, match="'frameskip' is deprecated, use 'frame_skip'"):
        venv = paritygym.make_vec("GameBoy-v0", 2, frameskip=3, observation="ram")
    assert venv.frame_skip == 3
    with pytest.warns(DeprecationWarning, match="'max_episode_steps' is deprecated, use 'max_steps_in_episode'"):
        venv = paritygym.make_vec("GameBoy-v0", 2, max_episode_steps=None, observation="ram")
    assert venv.max_steps_in_episode is None
    with pytest.warns(DeprecationWarning):
        assert GameBoyVectorEnv(1, max_episode_steps=7, observation="ram").max_steps_in_episode == 7


def test_unknown_options_list_the_valid_ones():
    with pytest.raises(TypeError, match=r"no option \['frame_skp'\].*'frame_skip'.*'max_steps_in_episode'"):
        paritygym.make_vec("GameBoy-v0", 2, frame_skp=4)


