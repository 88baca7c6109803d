"""The distillation example's pieces (KL, the numpy student used to drive MuJoCo), the student
shipped in examples/data (it loads and climbs section 0 in both engines; under `-m slow` the full
evaluation of issue #32's goal), and a slow end-to-end run with tiny budgets."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from climbjax import course
from paritygym.train import load_checkpoint
from paritygym.train import networks as nets

from ..examples import load_example


def test_gaussian_kl_against_sampling():
    ex = load_example("climb_distill")
    mp, lp = jnp.array([0.3, -0.2]), jnp.array([-0.5, 0.1])
    mq, lq = jnp.array([0.1, 0.4]), jnp.array([-0.2, -0.3])
    x = mp + jnp.exp(lp) * jax.random.normal(jax.random.key(0), (200_000, 2))
    logp = nets.gaussian_log_prob(mp, lp, x)
    logq = nets.gaussian_log_prob(mq, lq, x)
    assert abs(float(jnp.mean(logp - logq)) - float(ex.gaussian_kl(mp, lp, mq, lq))) < 0.01
    assert float(ex.gaussian_kl(mp, lp, mp, lp)) == 0.0


def test_numpy_student_matches_jax():
    ex = load_example("climb_distill")
    network = nets.MLPActorCritic(2, True, (64, 64))
    params = network.init(jax.random.key(1), jnp.zeros((1, 24)))
    params = jax.tree.map(lambda p: p + 0.3 * jax.random.normal(jax.random.key(2), p.shape), params)
    assert ex.check_numpy_policy(network, params, 24) < 1e-5


@pytest.mark.slow
def test_example_end_to_end(tmp_path):
    report = load_example("climb_distill").main(["--out-dir", str(tmp_path), "--specialist-seconds", "10", "--dagger-iterations", "2",
                              "--dagger-envs", "8", "--dagger-steps", "60", "--dagger-epochs", "10", "--student-hidden", "32",
                              "--episode-steps", "60", "--eval-episodes", "4", "--num-envs", "8"])
    assert 0.0 <= report["climbjax"]["success_rate"] <= 1.0 and 0.0 <= report["mujoco"]["success_rate"] <= 1.0
    assert "equivalent" in report["l4_tost_success"] and "section_1" in report["mujoco"]["reached"]
    for name in ("report.json", "curves.png", "climb.gif", "dagger.json", "student.msgpack", "student.config.json"):
        assert (tmp_path / name).exists()
    # the saved student (32 wide, the specialists 64) is what --evaluate --weights reads
    config, _, _ = load_checkpoint(tmp_path / "student.msgpack")
    assert config.hidden == 32 and config.env_kwargs == {"start_section": 0, "max_steps_in_episode": 60}
    again = load_example("climb_distill").main(["--evaluate", "--weights", str(tmp_path / "student.msgpack"),
                                                "--eval-episodes", "4", "--episode-steps", "60"])
    assert again["climbjax"]["mean_height"] == pytest.approx(report["climbjax"]["mean_height"])
    assert again["mujoco"]["mean_height"] == pytest.approx(report["mujoco"]["mean_height"])


def test_shipped_student_loads_and_climbs_section_0():
    """The shipped weights are a small plain Climb-v0 policy, and greedy from the course start they
    get over step 1 into section 1 within 10 s of game time, in climbjax and in MuJoCo C."""
    ex = load_example("climb_distill")
    assert ex.SHIPPED_STUDENT.stat().st_size < 300_000
    config, student, learner = load_checkpoint(ex.SHIPPED_STUDENT)
    assert config.env_id == "Climb-v0" and config.env_kwargs["start_section"] == 0
    env, params = paritygym.make("Climb-v0", start_section=0, max_steps_in_episode=300)
    ours = ex.summarise(ex.evaluate_ours(env, params, learner.network, student, 16, 300, seed=5))
    theirs = ex.summarise(ex.evaluate_mujoco(student, 3, 300, seed=5))
    assert ours["reached"]["section_1"] >= 0.9, ours
    assert theirs["reached"]["section_1"] == 1.0, theirs
    # and a policy that does nothing stays in section 0: the check can fail
    still = jax.tree.map(jnp.zeros_like, student)
    assert ex.summarise(ex.evaluate_ours(env, params, learner.network, still, 4, 300, seed=5))["reached"]["section_1"] == 0.0


def test_summary_counts_sections_by_furthest_progress():
    ex = load_example("climb_distill")
    starts = course.progress(course.SECTION_STARTS[:, 0], course.SECTION_STARTS[:, 1])
    result = dict(summit=np.array([False, False, True]), height=np.array([0.5, 2.0, 3.9]),
                  progress=np.array([0.2, starts[1] - 1.0, 20.0]), best_progress=np.array([0.5, starts[3] + 0.1, 20.0]))
    summary = ex.summarise(result)
    assert summary["success_rate"] == pytest.approx(1 / 3)
    assert summary["reached"]["section_1"] == pytest.approx(2 / 3)  # by the furthest progress: the second ends short of section 1
    assert summary["reached"]["section_3"] == pytest.approx(2 / 3)
    assert summary["reached"]["summit"] == pytest.approx(1 / 3)


def test_evaluate_rejects_bad_arguments():
    ex = load_example("climb_distill")
    assert ex.parse_args(["--evaluate"]).eval_episodes == 1000 and ex.parse_args([]).eval_episodes == 100
    assert ex.parse_args(["--evaluate", "--eval-episodes", "0", "--gif", "x.gif"]).eval_episodes == 0
    for argv in (["--evaluate", "--eval-episodes", "1"], ["--evaluate", "--episode-steps", "0"], ["--eval-episodes", "0"],
                 ["--gif", "x.gif"], ["--dagger-batch", "0"], ["--student-hidden", "0"]):
        with pytest.raises(SystemExit):
            ex.parse_args(argv)


@pytest.mark.slow
def test_shipped_student_reaches_the_summit_in_both_engines():
    """Issue #32's goal, from the shipped weights: >= 85 % summits from the course start in climbjax
    and in MuJoCo C (1,000 greedy episodes of 60 s each: at ~89 % a TOST at margin 0.05 needs that
    many, 100 give a 90 % interval of +-0.07), equivalent by TOST at margin 0.05. About 10 minutes."""
    report = load_example("climb_distill").main(["--evaluate", "--eval-episodes", "1000"])
    assert report["climbjax"]["success_rate"] >= 0.85, report["climbjax"]
    assert report["mujoco"]["success_rate"] >= 0.85, report["mujoco"]
    assert report["l4_tost_success"]["equivalent"], report["l4_tost_success"]
