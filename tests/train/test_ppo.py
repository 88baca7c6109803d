"""The PPO trainer: smoke runs of every policy/action kind, checkpoints, evaluation, GIFs, and the
Pong example (a few thousand steps here; to its target in the slow suite)."""

from __future__ import annotations

import dataclasses
import json

import jax
import numpy as np
import pytest

from paritygym.train import PPOConfig, evaluate, load_checkpoint, train
from paritygym.train.ppo import rate_interval
from paritygym.train.record import record_gif

from ..examples import load_example


def small(**kwargs) -> PPOConfig:
    base = dict(num_envs=8, num_steps=16, total_timesteps=512, num_minibatches=2, update_epochs=2, log_every_s=0.0)
    base.update(kwargs)
    return PPOConfig(**base)


def test_mlp_on_pong_writes_outputs_and_reloads(tmp_path):
    config = small(env_id="Pong-v0", env_kwargs={"frame_skip": 4}, out_dir=str(tmp_path))
    result = train(config, verbose=False)
    assert result.steps == 512 and len(result.history) == 4
    for name in ("metrics.csv", "metrics.json", "curve.png", "checkpoint.msgpack", "config.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert json.loads((tmp_path / "metrics.json").read_text())["steps"] == 512
    loaded_config, params, ppo = load_checkpoint(tmp_path / "checkpoint.msgpack")
    assert loaded_config == config
    for a, b in zip(jax.tree.leaves(result.params), jax.tree.leaves(params)):
        assert np.array_equal(a, b)
    gif = record_gif(ppo, params, tmp_path / "pong.gif", max_steps=20)
    assert gif.stat().st_size > 0


def test_same_seed_same_training():
    a = train(small(env_id="Pong-v0", seed=3), verbose=False)
    b = train(small(env_id="Pong-v0", seed=3), verbose=False)
    for x, y in zip(jax.tree.leaves(a.params), jax.tree.leaves(b.params)):
        assert np.array_equal(x, y)


def test_gru_policy_trains_and_evaluates():
    result = train(small(env_id="Pong-v0", policy="gru", hidden=16), verbose=False)
    assert np.isfinite(result.history[-1]["policy_loss"])


def test_continuous_actions():
    result = train(small(env_id="Pong-v0", env_kwargs={"continuous": True}), verbose=False)
    assert np.isfinite(result.history[-1]["value_loss"])


def test_masked_actions_never_sample_illegal_moves():
    config = small(env_id="ToyNim-v0", total_timesteps=2048)
    result = train(config, verbose=False)
    assert result.history[-1]["episodes"] > 0
    from paritygym.train.ppo import PPO

    ppo = PPO(config)
    scores = evaluate(ppo, result.params, num_episodes=16)
    assert len(scores["return"]) == 16 and set(np.unique(scores["return"])) <= {-1.0, 1.0}
    # Another checkpoint and another opponent (a params field) reuse the compiled evaluation.
    untrained = ppo.init(jax.random.key(1)).train_state.params
    ppo.env_params = ppo.env_params.replace(opponent=1)
    again = evaluate(ppo, untrained, num_episodes=16)
    assert len(again["return"]) == 16 and len(ppo._evaluation_chunks) == 1


def test_truncation_bootstraps_and_time_budget_stops(tmp_path):
    config = small(env_id="ToyCounter-v0", total_timesteps=10**9, time_budget_s=0.0)
    result = train(config, verbose=False)
    assert len(result.history) == 1


def test_bad_configs_are_refused():
    with pytest.raises(ValueError, match="policy"):
        train(small(policy="transformer"), verbose=False)
    with pytest.raises(ValueError, match="num_minibatches"):
        train(small(num_minibatches=3), verbose=False)


def test_pong_example_smoke(tmp_path, capsys):
    example = load_example("ppo_pong")
    example.main(["--total-timesteps", "4096", "--num-envs", "32", "--num-steps", "32", "--out-dir", str(tmp_path),
                  "--log-every-s", "0"])  # fmt: skip
    out = capsys.readouterr().out
    assert "evaluation of the saved policy" in out and (tmp_path / "pong.gif").exists()


@pytest.mark.slow
def test_pong_example_beats_the_opponent_within_15_minutes(tmp_path):
    example = load_example("ppo_pong")
    result = example.main(["--out-dir", str(tmp_path), "--no-gif"])
    assert result.reached_target and result.seconds + result.compile_seconds < 15 * 60


def test_gameboy_example_smoke(tmp_path):
    """PPO with the policy in JAX and the emulators in Rust (host rollouts through the vector API)."""
    example = load_example("ppo_gameboy")
    result = example.main(["--total-timesteps", "1024", "--num-envs", "8", "--num-steps", "64", "--num-minibatches", "2",
                           "--out-dir", str(tmp_path), "--log-every-s", "0"])  # fmt: skip
    assert result.steps == 1024 and np.isfinite(result.history[-1]["policy_loss"])
    _, params, learner = load_checkpoint(tmp_path / "checkpoint.msgpack")
    for a, b in zip(jax.tree.leaves(result.params), jax.tree.leaves(params)):
        assert np.array_equal(a, b)
    learner.venv.close()


@pytest.mark.slow
def test_gameboy_example_full_run_learns(tmp_path):
    """The whole example at its defaults: the policy catches clearly more than random play, which
    scores about 1.7 per episode (docs/training.md)."""
    example = load_example("ppo_gameboy")
    result = example.main(["--out-dir", str(tmp_path), "--log-every-s", "60"])
    assert result.history[-1]["mean_return"] > 3.0, result.history[-1]


def test_rate_interval_is_wilsons():
    low, high = rate_interval([1] * 8 + [0] * 2)  # 8 of 10: Wilson's 95% interval is [0.490, 0.943]
    assert abs(low - 0.4902) < 1e-3 and abs(high - 0.9433) < 1e-3
    assert rate_interval(np.ones(50))[1] == pytest.approx(1.0) and rate_interval(np.ones(50))[0] > 0.9
    with pytest.raises(ValueError, match="empty"):
        rate_interval([])


def test_none_unsets_an_optional_field_whatever_its_default():
    """`--target-metric none` means no target, also where the example's default is a metric name."""
    from paritygym.train.cli import parse_config

    defaults = PPOConfig(env_id="Pong-v0", target_metric="score_margin", target_value=10.0, time_budget_s=60.0)
    config, _ = parse_config(defaults, "", ["--target-metric", "none", "--time-budget-s", "none", "--target-value", "2.5"])
    assert config.target_metric is None and config.time_budget_s is None and config.target_value == 2.5


def test_an_unknown_target_metric_is_refused_before_training():
    from paritygym.train.ppo import run_loop

    config = PPOConfig(env_id="Pong-v0", target_metric="none", target_value=1.0)
    with pytest.raises(ValueError, match="target_metric 'none'"):
        run_loop(config, ["return", "length"], lambda: pytest.fail("trained"), lambda: None, 0.0, print)


def test_a_resumed_run_continues_where_the_last_one_stopped(tmp_path):
    """Two invocations of 2 updates each with resume equal one run of 4 updates: the same params,
    step count and history (the training state carries params, optimiser, envs and RNG)."""
    whole = train(small(env_id="ToyCounter-v0", total_timesteps=512, seed=5, anneal_lr=False), verbose=False)
    config = small(env_id="ToyCounter-v0", total_timesteps=512, seed=5, anneal_lr=False, out_dir=str(tmp_path), resume=True)
    first = train(dataclasses.replace(config, total_timesteps=256), verbose=False)
    assert first.steps == 256 and (tmp_path / "training_state.msgpack").stat().st_size < 1_000_000
    with pytest.raises(ValueError, match="other settings"):
        train(dataclasses.replace(config, num_envs=16), verbose=False)
    second = train(config, verbose=False)
    assert second.steps == 512 and [row["update"] for row in second.history] == [1, 2, 3, 4]
    for a, b in zip(jax.tree.leaves(whole.params), jax.tree.leaves(second.params)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert json.loads((tmp_path / "metrics.json").read_text())["steps"] == 512
    again = train(config, verbose=False)  # nothing left to train: the same params come back
    assert again.steps == 512
    for a, b in zip(jax.tree.leaves(second.params), jax.tree.leaves(again.params)):
        assert np.array_equal(a, b)
