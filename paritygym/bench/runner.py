"""Throughput sweeps: our env at several batch sizes (plain step loop and `lax.scan`-fused), compile
time apart from run time, and the reference run side by side in the same invocation."""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.batching import batched_step_on_devices, env_axis_sharding
from paritygym.registry import load, make, make_vec, spec
from paritygym.bench.machine import machine_info
from paritygym.random import batch_words, uniform_legal_actions

DEFAULT_BATCHES = (1, 32, 128, 512, 2048, 8192)


@dataclasses.dataclass
class Measurement:
    """One throughput figure. ``steps_per_second`` counts env (agent) steps of all envs together."""

    system: str  # e.g. "jax-scan", "jax-loop", "reference x1", "reference x2"
    batch: int
    steps_per_second: float
    compile_seconds: float | None = None
    run_seconds: float = 0.0
    steps: int = 0
    note: str = ""


@dataclasses.dataclass
class BenchResult:
    env_id: str
    machine: dict[str, Any]
    measurements: list[Measurement]

    def best(self, system_prefix: str) -> Measurement | None:
        ms = [m for m in self.measurements if m.system.startswith(system_prefix)]
        return max(ms, key=lambda m: m.steps_per_second) if ms else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "machine": self.machine,
            "measurements": [dataclasses.asdict(m) for m in self.measurements],
            "ratios": self.ratios(),
        }

    def ratios(self) -> dict[str, float]:
        """Best of ours over best of each reference configuration."""
        ours = self.best("jax") or self.best("native")
        out = {}
        if ours is None:
            return out
        for system in sorted({m.system for m in self.measurements if m.system.startswith("reference")}):
            ref = self.best(system)
            if ref and ref.steps_per_second > 0:
                out[f"{ours.system}@{ours.batch} / {system}@{ref.batch}"] = ours.steps_per_second / ref.steps_per_second
        return out


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def batched_random_actions(env: Any, params: Any, batch: int) -> Callable[[jax.Array, Any], jax.Array]:
    """Uniformly random (legal) actions for a whole batch from one key: one vectorised draw from
    hashed words (`paritygym.random.batch_words`), not a key split and a Threefry draw per env (the
    per-env form costs more than a simple game's step), as the references' agents draw theirs."""
    space = env.action_space(params)
    if callable(getattr(env, "action_mask", None)):
        masks = jax.vmap(env.action_mask, in_axes=(0, None))
        return lambda key, states: uniform_legal_actions(batch_words(key, batch)[:, 0], masks(states, params))
    if hasattr(space, "n"):
        # Hashed words modulo n (bias below 1e-9 for small n): cheaper than a Threefry draw per env.
        return lambda key, states: (batch_words(key, batch)[:, 0] % jnp.uint32(space.n)).astype(jnp.int32)
    low, high = jnp.asarray(space.low, space.dtype), jnp.asarray(space.high, space.dtype)
    return lambda key, states: jax.random.uniform(key, (batch, *space.shape), space.dtype, low, high)


def observation_checksum(obs: Any) -> jax.Array:
    """One float32 that depends on every observation leaf (so the observation is computed).

    Each batched leaf is read as a policy's first layer reads it, by a matrix-vector product
    (`[B, D] @ ones[D]`, then `ones[B] @ [B]`). A plain `jnp.sum` over the whole leaf is 3-4x
    dearer on XLA:CPU (it becomes a tree of reduce-windows for accuracy), which charged the env
    for work no trainer does: 0.81 vs 0.22 ms per `f32[1024, 1953]` (Pokemon's observation)."""
    total = jnp.float32(0)
    for leaf in jax.tree.leaves(obs):
        leaf = jnp.asarray(leaf, jnp.float32)
        if leaf.ndim == 0:
            total = total + leaf
            continue
        rows = leaf.reshape(leaf.shape[0], -1)
        per_row = rows @ jnp.ones((rows.shape[1],), jnp.float32)
        total = total + jnp.ones((rows.shape[0],), jnp.float32) @ per_row
    return total


def jax_programs(env: Any, params: Any, batch: int, scan_length: int):
    """The programs we time: reset, one batched step (for a Python loop), and `scan_length` fused
    steps. Each program's output depends on every observation the step returns (a policy reads
    them), so none of the env's work is dead code. Per-env keys come from
    `paritygym.random.batch_keys` (hashing, not a Threefry split per env, which would cost more
    than a simple game's step). With several devices the batch is split evenly and each device
    steps its own envs (`paritygym.batching.batched_step_on_devices`), as one reference process
    per core does."""
    policy = batched_random_actions(env, params, batch)
    sharding = env_axis_sharding(batch)
    step = batched_step_on_devices(env, params, batch, sharding)

    def constrain(tree):
        return tree if sharding is None else jax.tree.map(lambda x: jax.lax.with_sharding_constraint(x, sharding), tree)

    def one_step(key, states):
        k_act, k_step = jax.random.split(key)
        obs, states, reward, _, _, _ = step(k_step, states, constrain(policy(k_act, states)))
        # A training loop reads every observation; a timed program that drops them would let XLA
        # remove the observation code as dead and flatter the env, so they are summed into the output.
        return constrain(states), reward.sum() + observation_checksum(obs)

    def reset(key):
        return constrain(jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, batch), params)[1])

    def loop_step(key, i, states):
        return one_step(jax.random.fold_in(key, i), states)

    def scan_steps(key, i, states):
        def body(states, k):
            return one_step(k, states)

        states, rewards = jax.lax.scan(body, states, jax.random.split(jax.random.fold_in(key, i), scan_length))
        return states, rewards.sum()

    return jax.jit(reset), jax.jit(loop_step, donate_argnums=2), jax.jit(scan_steps, donate_argnums=2)


def _compile(fn, *args) -> tuple[Any, float]:
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    return compiled, time.perf_counter() - start


def bench_jax(env_id: str, batches: Sequence[int], min_seconds: float = 1.0, scan_length: int = 128,
              modes: Sequence[str] = ("loop", "scan"), **kwargs: Any) -> list[Measurement]:
    env, params = make(env_id, **kwargs)
    key = jax.random.key(0)
    out = []
    for batch in batches:
        reset, loop_step, scan_steps = jax_programs(env, params, batch, scan_length)
        states = reset(key)
        jax.block_until_ready(states)
        for mode in modes:
            fn = loop_step if mode == "loop" else scan_steps
            steps_per_call = batch * (1 if mode == "loop" else scan_length)
            compiled, compile_s = _compile(fn, key, jnp.int32(0), states)
            states, r = compiled(key, jnp.int32(0), states)  # warm-up
            jax.block_until_ready(r)
            calls, start = 0, time.perf_counter()
            while True:
                states, r = compiled(key, jnp.int32(calls + 1), states)
                calls += 1
                if calls % 8 == 0 or mode == "scan":
                    jax.block_until_ready(r)
                    if time.perf_counter() - start >= min_seconds:
                        break
            jax.block_until_ready(states)
            elapsed = time.perf_counter() - start
            m = Measurement(f"jax-{mode}", batch, calls * steps_per_call / elapsed, compile_s, elapsed, calls * steps_per_call)
            _log(f"  {m.system:<14} batch {batch:>6}: {m.steps_per_second:>14,.0f} steps/s   (compile {compile_s:.2f} s)")
            out.append(m)
    return out


def bench_native(env_id: str, batches: Sequence[int], min_seconds: float = 1.0, **kwargs: Any) -> list[Measurement]:
    """Native vector envs (emurust): steps/s through the numpy vector API."""
    out = []
    for batch in batches:
        venv = make_vec(env_id, num_envs=batch, seed=0, **kwargs)
        try:
            venv.reset(seed=0)
            rng = np.random.default_rng(0)
            n = venv.single_action_space.n
            actions = rng.integers(0, n, size=(64, batch)).astype(np.int32)
            venv.step(actions[0])
            calls, start = 0, time.perf_counter()
            while time.perf_counter() - start < min_seconds:
                venv.step(actions[calls % 64])
                calls += 1
            elapsed = time.perf_counter() - start
        finally:
            venv.close()
        m = Measurement("native", batch, calls * batch / elapsed, None, elapsed, calls * batch)
        _log(f"  {m.system:<14} batch {batch:>6}: {m.steps_per_second:>14,.0f} steps/s")
        out.append(m)
    return out


def bench_reference(env_id: str, batches: Sequence[int], num_steps: int, procs: Sequence[int]) -> list[Measurement]:
    hook_path = spec(env_id).reference_bench
    if hook_path is None:
        _log(f"  {env_id} has no reference benchmark hook")
        return []
    hook = load(hook_path)
    out = []
    for num_procs in procs:
        for batch in batches:
            start = time.perf_counter()
            sps = float(hook(batch_size=batch, num_steps=num_steps, num_procs=num_procs))
            m = Measurement(f"reference x{num_procs}", batch, sps, None, time.perf_counter() - start)
            _log(f"  {m.system:<14} batch {batch:>6}: {sps:>14,.0f} steps/s")
            out.append(m)
    return out


def run_bench(
    env_id: str,
    batches: Sequence[int] = DEFAULT_BATCHES,
    reference: bool = False,
    reference_batches: Sequence[int] | None = None,
    reference_steps: int = 2000,
    min_seconds: float = 1.0,
    scan_length: int = 128,
    modes: Sequence[str] = ("loop", "scan"),
    **kwargs: Any,
) -> BenchResult:
    """Runs the sweep for ``env_id`` (and its reference) and returns every measurement."""
    # checked before anything runs: a NaN time would never be reached, an empty batch list times nothing
    if not (isinstance(min_seconds, (int, float)) and math.isfinite(min_seconds) and min_seconds > 0):
        raise ValueError(f"min_seconds must be a finite number > 0, got {min_seconds!r}")
    for name, sizes in (("batches", batches), ("reference_batches", reference_batches or batches)):
        if not sizes or any(isinstance(b, bool) or not isinstance(b, int) or b < 1 for b in sizes):
            raise ValueError(f"{name} must be a non-empty list of positive ints, got {sizes!r}")
    if isinstance(scan_length, bool) or not isinstance(scan_length, int) or scan_length < 1:
        raise ValueError(f"scan_length must be a positive int, got {scan_length!r}")
    if not set(modes) <= {"loop", "scan"}:
        raise ValueError(f"modes must be a subset of ('loop', 'scan'), got {modes!r}")
    kind = spec(env_id).kind
    _log(f"paritygym bench {env_id}: batches {list(batches)}")
    if kind == "native":
        ms = bench_native(env_id, batches, min_seconds, **kwargs)
    else:
        ms = bench_jax(env_id, batches, min_seconds, scan_length, modes, **kwargs)
    if reference:
        cores = os.cpu_count() or 1
        procs = sorted({1, cores})
        ms += bench_reference(env_id, reference_batches or batches, reference_steps, procs)
    return BenchResult(env_id, machine_info(), ms)
