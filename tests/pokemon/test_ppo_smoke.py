"""examples/ppo_pokemon.py's training loop runs on PokemonGen1Random-v0 (masked categorical
policy, random opponent): a few thousand steps, finite losses, battles end and are counted.

Slow-marked: the PPO update is its own program around the env step (minutes of XLA compile on
2 CPU cores), so it cannot reuse test_env.py's compiled step."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import pathlib

import pytest

from paritygym.train import train

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "ppo_pokemon.py"


def _example():
    spec = importlib.util.spec_from_file_location("ppo_pokemon", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_ppo_smoke():
    example = _example()
    config = dataclasses.replace(example.DEFAULTS, num_envs=16, num_steps=64, total_timesteps=4096, hidden=64,
                                 num_minibatches=4, time_budget_s=None, target_metric=None, out_dir=None)
    result = train(config, episode_metrics={"win": example.win}, verbose=False)
    assert result.steps >= 4096
    last = result.history[-1]
    assert all(math.isfinite(v) for v in last.values() if isinstance(v, float)), last
    assert any(h.get("episodes", 0) > 0 for h in result.history), result.history
