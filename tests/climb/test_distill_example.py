"""The distillation example's pieces (KL, the numpy student used to drive MuJoCo), and a slow
end-to-end run with tiny budgets."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

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
                              "--dagger-envs", "8", "--dagger-steps", "60", "--dagger-epochs", "10",
                              "--episode-steps", "60", "--eval-episodes", "4", "--num-envs", "8"])
    assert 0.0 <= report["climbjax"]["success_rate"] <= 1.0 and 0.0 <= report["mujoco"]["success_rate"] <= 1.0
    for name in ("report.json", "curves.png", "climb.gif", "dagger.json"):
        assert (tmp_path / name).exists()
