"""L4 (reduced for the default suite): a policy trained briefly on pongjax scores the same on pongjax
and on the C reference (TOST on episode returns, margin 1.0). The full L4 — 10 seeds trained on each
backend, every policy evaluated on both — is `paritygym verify Pong-v0 --level 4` (see
docs/verification/)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paritygym.train import PPO, train
from paritygym.train.transfer import evaluate_on_vector_env
from paritygym.verify import tost
from pongjax.verify import L4_MARGIN, l4_backends, l4_config, verify_l4


def test_same_policy_scores_the_same_on_both_backends():
    config = dataclasses.replace(l4_config(total_timesteps=32 * 64 * 4), num_envs=32, num_minibatches=4)
    params = train(config, verbose=False).params
    learner = PPO(config)
    ours, reference = l4_backends()
    metrics = {"return": lambda r, info: r}
    returns = {}
    for name, factory in (("ours", ours), ("reference", reference)):
        venv = factory(32, 7)
        returns[name] = evaluate_on_vector_env(learner, params, venv, 96, metrics, seed=7)["return"]
        venv.close()
    result = tost(returns["ours"], returns["reference"], margin=L4_MARGIN)
    assert result.equivalent, result.describe()
    assert np.std(returns["ours"]) > 0  # the episodes differ: this is a test of means, not of one replay


@pytest.mark.slow
def test_full_policy_transfer():
    reports = verify_l4(seeds=10)
    assert all(r.passed for r in reports), [r.failure for r in reports if not r.passed]
