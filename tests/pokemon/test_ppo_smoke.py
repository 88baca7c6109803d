"""examples/ppo_pokemon.py on PokemonGen1Random-v0 (masked categorical policy, random opponent):
a few thousand steps end to end in the default suite (checkpoint written and reloaded, metrics, the
saved policy's evaluation against both opponents), and the full run at the example's defaults in
the slow suite.

The smoke run's cost is compiling: the PPO update and the evaluation scan each hold the whole battle
step and are separate XLA programs. It compiles with XLA's optimisations off (``quick_compiles``),
about a third less CPU (docs/training.md "Examples in the test suites"), and has a pytest-xdist
group of its own (tests/conftest.py) so that it runs beside the env's tests."""

from __future__ import annotations

import numpy as np
import pytest

from paritygym.train.ppo import rate_interval

from ..examples import check_saved_run, load_example, quick_compiles


def test_example_smoke(tmp_path, capsys):
    # --eval-battles equals --num-envs: the evaluation's vmapped reset is the program training compiled.
    with quick_compiles():
        result = load_example("ppo_pokemon").main(["--num-envs", "16", "--num-steps", "64", "--total-timesteps", "4096", "--hidden", "64",
                                  "--num-minibatches", "4", "--target-metric", "none", "--log-every-s", "0",
                                  "--out-dir", str(tmp_path), "--eval-battles", "16"])  # fmt: skip
    check_saved_run(result, tmp_path, 4096)
    assert any(h["episodes"] > 0 for h in result.history), result.history
    for opponent in ("random", "max-damage"):
        wins = result.evaluation[opponent]["win"]
        assert len(wins) == 16 and set(np.unique(wins)) <= {0.0, 1.0}
    out = capsys.readouterr().out
    assert "vs the random opponent" in out and "vs the max-damage opponent" in out


@pytest.mark.slow
def test_example_full_run_beats_the_random_opponent(tmp_path):
    """The example at its defaults (256 envs x 64 steps, stops at a rolling win rate of 0.95 over
    200+ battles, 1 h budget) reaches its target, and the saved policy wins clearly more than the
    half a random policy wins against the random opponent: the 95% interval of its win rate over
    256 new battles lies above 0.75 (docs/training.md: about 0.94)."""
    example = load_example("ppo_pokemon")
    result = example.main(["--out-dir", str(tmp_path)])
    wins = result.evaluation["random"]["win"]
    low, high = rate_interval(wins)
    print(f"full run: {result.steps} steps in {result.seconds:.0f} s + {result.compile_seconds:.0f} s compile; "
          f"saved policy vs random: win {wins.mean():.3f} [{low:.3f}, {high:.3f}] over {len(wins)} battles; "
          f"vs max-damage: win {result.evaluation['max-damage']['win'].mean():.3f}")
    assert result.reached_target, result.history[-1]
    assert len(wins) == 256 and low > 0.75, (wins.mean(), low, high)
