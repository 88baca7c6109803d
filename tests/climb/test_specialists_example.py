"""The resumable specialist trainer (examples/climb_specialists.py): its training starts and shaped
reward, and two tiny invocations of which the second resumes the first."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from climbjax import course
from paritygym.train import load_checkpoint

from ..examples import load_example


def test_starts_and_shaping():
    ex = load_example("climb_specialists")
    env, params = ex.make_env(ex.parse_args(["--section", "3"]))
    assert params.goal_progress == float("inf") and params.height_weight == params.reach_weight == 1.0
    keys = jax.random.split(jax.random.key(0), 64)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    for spread, pit in ((0.0, 1.0), (1.0, 0.0), (0.0, 0.0)):
        _, state = reset(keys, params.replace(spread=spread, pit=pit))
        x, z = np.asarray(state.physics.qpos[:, 0]), np.asarray(state.physics.qpos[:, 1]) + 0.25
        if pit:  # on the pit floor, clear of the ledge wall
            assert np.all((x >= 12.9) & (x <= 13.2)) and np.allclose(z, ex.PIT_Z) and not state.standard.any()
        elif spread:  # along the section, short of the summit, above the terrain
            assert np.all((x >= 11.8) & (x <= ex.LAST_X)) and np.all(z >= 1.45) and x.std() > 0.3
        else:  # the section's start, as Climb-v0
            assert np.all(np.abs(x - course.SECTION_STARTS[3, 0]) <= 0.1) and state.standard.all()
    # the shaped reward is the env's reward plus the change of the potential
    _, state = env.reset(jax.random.key(1), params.replace(pit=1.0))
    _, new, shaped, _, info = jax.jit(env.step_env)(jax.random.key(2), state, jnp.array([0.8, 1.0]), params)
    base = info["gain"]
    extra = env.potential(new.physics.qpos, params) - env.potential(state.physics.qpos, params)
    assert abs(float(shaped) - float(base + extra)) < 1e-5
    assert ex.section_goal(0) < ex.section_goal(1) < ex.section_goal(2)


def test_two_invocations_resume(tmp_path, capsys):
    ex = load_example("climb_specialists")
    argv = ["--section", "1", "--out-dir", str(tmp_path), "--num-envs", "4", "--num-steps", "8", "--num-minibatches", "1",
            "--update-epochs", "1", "--episode-steps", "12", "--time-budget-s", "0", "--eval-episodes", "0", "--log-every-s", "0",
            "--mujoco-episodes", "0"]
    first = ex.main(argv)
    folder = tmp_path / "specialist_1"
    assert first["steps"] == 32 and (folder / "training_state.msgpack").stat().st_size < 200_000
    second = ex.main(argv)
    assert second["steps"] == 64 and "resumed from" in capsys.readouterr().out
    assert json.loads((folder / "shaping.json").read_text())["spread"] == 0.5
    config, params, _ = load_checkpoint(folder / "checkpoint.msgpack")  # a plain Climb-v0 policy for climb_distill
    assert config.env_id == "Climb-v0" and config.env_kwargs == {"start_section": 1, "max_steps_in_episode": 12}
    assert len(jax.tree.leaves(params)) > 0 and len((folder / "evaluations.jsonl").read_text().splitlines()) == 2


@pytest.mark.slow
def test_section_3_evaluations(tmp_path):
    """The end-of-invocation evaluation from the section start and the pit floor (compiles two more programs)."""
    ex = load_example("climb_specialists")
    report = ex.main(["--section", "3", "--out-dir", str(tmp_path), "--num-envs", "4", "--num-steps", "8",
                      "--num-minibatches", "1", "--update-epochs", "1", "--episode-steps", "12", "--time-budget-s", "0",
                      "--eval-episodes", "2", "--log-every-s", "0", "--route-weight", "2",
                      "--mujoco-episodes", "2"])
    for case in ("stochastic", "greedy", "stochastic_from_pit", "greedy_from_pit"):
        assert report[case]["episodes"] == 2 and 0.0 <= report[case]["goal"] <= 1.0, case
    assert report["mujoco_greedy"]["episodes"] == 2
