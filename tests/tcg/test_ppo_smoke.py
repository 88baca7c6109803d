"""examples/ppo_tcg.py on TCGPocketA1-v0: a few thousand PPO steps with masked logits end to end in
the default suite (checkpoint written and reloaded, metrics, the win-rate evaluation against both
opponents), and the full run at the example's defaults in the slow suite.

The smoke run's cost is compiling: three XLA programs each hold the game step (the envs' reset,
whose opponent may move first, the PPO update and the evaluation scan). It compiles with XLA's
optimisations off (``quick_compiles``), about a third less CPU (docs/training.md "Examples in the
test suites"), and has a pytest-xdist group of its own (tests/conftest.py) so that it runs beside
the env's tests."""

from __future__ import annotations

import numpy as np
import pytest

from paritygym.train.ppo import rate_interval

from ..examples import check_saved_run, load_example, quick_compiles


@pytest.mark.slow  # a PPO program around the TCG env (~4 CPU min cold); the default suite runs the trainer on Pong and Gen 1
def test_example_smoke(tmp_path, capsys):
    # --eval-games equals --num-envs: the evaluation's vmapped reset is the program training compiled.
    with quick_compiles():
        result = load_example("ppo_tcg").main(["--num-envs", "16", "--num-steps", "16", "--total-timesteps", "2048", "--num-minibatches", "4",
                                  "--target-metric", "none", "--log-every-s", "0", "--out-dir", str(tmp_path),
                                  "--eval-games", "16"])  # fmt: skip
    check_saved_run(result, tmp_path, 2048)
    for opponent in ("random", "heuristic"):
        returns = result.evaluation[opponent]["return"]
        assert len(returns) == 16 and set(np.unique(returns)) <= {-1.0, 0.0, 1.0}
    out = capsys.readouterr().out
    assert "vs random win" in out and "vs heuristic win" in out


@pytest.mark.slow
def test_example_full_run_beats_the_random_opponent(tmp_path):
    """The example at its defaults (256 envs x 32 steps vs the random opponent for its 20-minute
    budget) learns: over 256 new games against the random opponent the saved policy's win rate
    (a random policy: about 0.5 from either seat) has its 95% interval above 0.6
    (docs/training.md: about 0.8)."""
    example = load_example("ppo_tcg")
    result = example.main(["--out-dir", str(tmp_path)])
    wins = result.evaluation["random"]["return"] > 0.5
    low, high = rate_interval(wins)
    rates = example.win_rates(result.evaluation)
    print(f"full run: {result.steps} steps in {result.seconds:.0f} s + {result.compile_seconds:.0f} s compile; "
          f"saved policy vs random: win {wins.mean():.3f} [{low:.3f}, {high:.3f}] over {len(wins)} games; "
          f"vs heuristic: win {rates['heuristic']:.3f} (loss {rates['heuristic_loss']:.3f})")
    assert len(wins) == 256 and low > 0.6, (wins.mean(), low, high)
