"""examples/ppo_tcg.py runs end to end on TCGPocketA1-v0: a few thousand PPO steps with masked
logits, a checkpoint that reloads, and the win-rate evaluation against both opponents.

Slow: it compiles the env step inside the PPO update and again for each evaluation (several
minutes on 2 CPU cores without the JAX cache)."""

from __future__ import annotations

import importlib.util
import math
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("ppo_tcg", ROOT / "examples" / "ppo_tcg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_example_smoke(tmp_path, capsys):
    example = _example()
    result = example.main(["--num-envs", "16", "--num-steps", "16", "--total-timesteps", "2048", "--num-minibatches", "4",
                           "--time-budget-s", "1800", "--log-every-s", "0", "--out-dir", str(tmp_path), "--eval-games", "8"])
    assert result.steps >= 2048
    assert (tmp_path / "checkpoint.msgpack").exists() and (tmp_path / "metrics.csv").exists()
    last = result.history[-1]
    assert all(math.isfinite(last[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl"))
    out = capsys.readouterr().out
    assert "vs random win" in out and "vs heuristic win" in out
