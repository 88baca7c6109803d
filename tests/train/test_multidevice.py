"""Several devices: PPO and the benchmark shard the env batch over every JAX device (the benchmark's
step runs per device, with no env data moved between devices). Run in a
subprocess with 4 host CPU devices (XLA_FLAGS must be set before JAX starts)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import jax, numpy as np
    assert jax.device_count() == 4, jax.devices()
    from paritygym.train import PPOConfig
    from paritygym.train.ppo import PPO, train
    config = PPOConfig(env_id="Pong-v0", num_envs=16, num_steps=16, total_timesteps=16 * 16 * 2,
                       num_minibatches=2, update_epochs=1, log_every_s=0.0)
    ppo = PPO(config)
    runner = ppo.init(jax.random.key(0))
    runner, metrics = ppo.update(runner)
    devices = {d for leaf in jax.tree.leaves(runner.env_state) for d in leaf.sharding.device_set}
    assert len(devices) == 4, devices
    result = train(config, verbose=False)
    assert all(np.isfinite(v).all() for v in jax.tree.leaves(result.params))
    from paritygym.bench import run_bench
    bench = run_bench("Pong-v0", batches=[8], min_seconds=0.05, scan_length=4)
    assert all(m.steps_per_second > 0 for m in bench.measurements)
    assert bench.machine["jax_device_count"] == 4
    # The timed step runs each device's envs apart (shard_map): its only collective is the sum of
    # the timed scalar, nothing moves env data between devices.
    import jax.numpy as jnp
    from tests.toy_envs import GatheringCounter

    from paritygym.bench.runner import jax_programs
    env = GatheringCounter()
    params = env.default_params
    reset, loop_step, _ = jax_programs(env, params, batch=16, scan_length=2)
    key = jax.random.key(0)
    states = reset(key)
    text = loop_step.lower(key, jnp.int32(0), states).compile().as_text()
    collectives = [op for op in ("all-gather", "all-to-all", "collective-permute", "reduce-scatter") if op + "(" in text]
    assert not collectives and "all-reduce" in text, collectives
    shards = {d for leaf in jax.tree.leaves(loop_step(key, jnp.int32(1), states)[0]) for d in leaf.sharding.device_set}
    assert len(shards) == 4, shards
    # The same for PPO's rollout step.
    import paritygym
    paritygym.register("GatheringCounter-v0", "tests.toy_envs:GatheringCounter")
    ppo = PPO(PPOConfig(env_id="GatheringCounter-v0", num_envs=16, num_steps=4, total_timesteps=64,
                        num_minibatches=1, update_epochs=1, log_every_s=0.0))
    runner = ppo.init(jax.random.key(1))
    step_envs = jax.jit(ppo._step_envs)
    actions = jax.device_put(jnp.arange(16, dtype=jnp.int32) % 2, ppo.sharding)
    text = step_envs.lower(key, runner.env_state, actions).compile().as_text()
    collectives = [op for op in ("all-gather", "all-to-all", "collective-permute", "reduce-scatter") if op + "(" in text]
    assert not collectives, collectives
    runner, _ = ppo.update(runner)
    print("OK")
    """
)


def test_training_and_bench_shard_over_four_cpu_devices():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0 and "OK" in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]
