"""L4: cross-backend policy transfer. Policies trained on our backend and on the reference are each
evaluated on both backends, and TOST equivalence tests (paritygym.verify.tost) judge whether the
backends are interchangeable for training and for evaluation.

Two questions, each a TOST at level alpha with margin delta on the chosen episode metric:
1. *Same policy, two backends*: does a policy score the same on our env as on the reference?
   Paired by policy (each policy's mean over its evaluation episodes on each backend).
2. *Trained on ours vs trained on the reference* (when training on the reference is affordable):
   do policies trained on either backend reach the same score (evaluated on the reference)?
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping, Sequence

import gymnasium
import jax
import numpy as np

from paritygym.train.host import observation_to_array
from paritygym.train.ppo import Learner, PPOConfig
from paritygym.verify import ParityReport, tost

VectorEnvFactory = Callable[[int, int], gymnasium.vector.VectorEnv]  # (num_envs, seed) -> env


def evaluate_on_vector_env(learner: Learner, params: Any, venv: gymnasium.vector.VectorEnv, num_episodes: int,
                           metrics: Mapping[str, Callable[[np.ndarray, Mapping], np.ndarray]], seed: int = 0,
                           greedy: bool = False, max_steps: int = 1_000_000) -> dict[str, np.ndarray]:  # fmt: skip
    """Runs the policy on a numpy vector env until ``num_episodes`` episodes have ended (each env's
    episodes in order, the first ``num_episodes`` to end kept); returns per-episode metric sums."""
    act = jax.jit(learner.act, static_argnames="greedy")
    n = venv.num_envs
    obs, info = venv.reset(seed=seed)
    obs = observation_to_array(obs)
    carry = learner.initial_carry(n)
    start = np.ones(n, bool)
    running = {k: np.zeros(n) for k in metrics}
    results: dict[str, list[float]] = {k: [] for k in metrics}
    key = jax.random.key(seed)
    for _ in range(max_steps):
        key, k = jax.random.split(key)
        mask = info.get("action_mask") if isinstance(info, Mapping) else None
        mask = np.ones((n, learner.action_dim), bool) if mask is None else np.asarray(mask, bool)
        _, env_action, _, _, carry = act(params, obs, carry, start, mask, k, greedy=greedy)
        obs, reward, terminated, truncated, info = venv.step(np.asarray(env_action))
        obs = observation_to_array(obs)
        done = np.asarray(terminated) | np.asarray(truncated)
        for name, fn in metrics.items():
            running[name] += np.asarray(fn(np.asarray(reward, np.float32), info))
        for i in np.flatnonzero(done):
            for name in metrics:
                results[name].append(float(running[name][i]))
                running[name][i] = 0.0
        start = done
        if len(results["return"]) >= num_episodes:
            break
    else:
        raise RuntimeError(f"only {len(results['return'])} of {num_episodes} episodes ended within {max_steps} steps")
    return {k: np.asarray(v[:num_episodes]) for k, v in results.items()}


@dataclasses.dataclass
class TransferResult:
    reports: list[ParityReport]
    scores: dict[str, list[float]]  # "<trained on>@<evaluated on>" -> per-policy mean metric


def policy_transfer(
    env_id: str,
    config: PPOConfig,
    seeds: Sequence[int],
    ours: VectorEnvFactory,
    reference: VectorEnvFactory,
    margin: float,
    metric: str = "return",
    metrics: Mapping[str, Callable] | None = None,
    eval_episodes: int = 32,
    eval_envs: int = 32,
    train_on_reference: bool = True,
    alpha: float = 0.05,
    log: Callable[[str], None] = print,
) -> TransferResult:
    """Trains one policy per seed on our backend (and on the reference if ``train_on_reference``),
    evaluates each on both backends, and runs the TOSTs described in the module docstring."""
    from paritygym.train.host import train_host
    from paritygym.train.ppo import PPO, train

    metrics = {"return": lambda r, info: r, **(metrics or {})}
    scores: dict[str, list[float]] = {}
    learner = None
    for seed in seeds:
        cfg = dataclasses.replace(config, seed=seed, out_dir=None)
        trained = {"ours": train(cfg, verbose=False)}
        if train_on_reference:
            trained["reference"] = train_host(cfg, lambda c: reference(c.num_envs, c.seed), verbose=False)
        learner = learner or PPO(cfg)
        for origin, result in trained.items():
            for backend, factory in (("ours", ours), ("reference", reference)):
                venv = factory(eval_envs, 10_000 + seed)
                try:
                    values = evaluate_on_vector_env(learner, result.params, venv, eval_episodes, metrics, seed=10_000 + seed)
                finally:
                    venv.close()
                scores.setdefault(f"{origin}@{backend}", []).append(float(values[metric].mean()))
            log(f"seed {seed}: trained on {origin}: mean {metric} "
                f"{scores[f'{origin}@ours'][-1]:+.3f} on ours, {scores[f'{origin}@reference'][-1]:+.3f} on the reference")  # fmt: skip

    reports = []
    same_policy = tost(scores["ours@ours"], scores["ours@reference"], margin, alpha, paired=True)
    reports.append(_report(env_id, "policy trained on ours: ours vs reference backend (paired)", same_policy, len(seeds), metric))
    if train_on_reference:
        same_policy_ref = tost(scores["reference@ours"], scores["reference@reference"], margin, alpha, paired=True)
        reports.append(_report(env_id, "policy trained on reference: ours vs reference backend", same_policy_ref, len(seeds), metric))
        training = tost(scores["ours@reference"], scores["reference@reference"], margin, alpha)
        reports.append(_report(env_id, "trained on ours vs trained on reference (eval on reference)", training, len(seeds), metric))
    return TransferResult(reports, scores)


def _report(env_id: str, name: str, result, n: int, metric: str) -> ParityReport:
    return ParityReport(
        env_id=env_id, level=4, name=name, passed=result.equivalent, episodes=n,
        tolerance=f"TOST on mean {metric}, margin ±{result.margin:g}, alpha {result.alpha}",
        details=dataclasses.asdict(result) | {"summary": result.describe()},
        failure=None if result.equivalent else result.describe(),
    )  # fmt: skip
