"""The batched env step every batch-level caller uses (vector env, bench, PPO, conformance).

``batched_step(env)`` is ``jax.vmap(env.step, in_axes=(0, 0, 0, None))`` unless the env defines
its own ``step_batch(keys, states, actions, params)``: an env whose step has work that only a
few envs of a batch need (a new battle, a lone replacement) can then gather those envs into a
smaller sub-batch instead of paying for that work in every env, as vmap must. Such a method
must return exactly what the vmapped ``step`` returns (same arrays, same ``info`` keys).

The sub-batch helpers (``where_needed`` and its kin) can instead run ``fn`` on the whole batch in
the accelerator form (``paritygym.backend``), where a caller says the work is cheap per env
(``whole_batch_on_accelerator``): the same results, without the gathers and loop trips that cost an
accelerator more than width.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from paritygym.random import batch_keys


def batched_step(env: Any) -> Callable:
    """``(keys[B], states[B], actions[B], params) -> (obs, states, reward, terminated, truncated,
    info)``, each with leading axis B: the env's ``step_batch`` if it has one, else the vmapped
    ``step``. The method is looked up on the env's own class: a wrapper that forwards unknown
    attributes to the env inside it (gymnax's wrappers do) must not have its own ``step`` skipped
    by the inner env's ``step_batch``."""
    if callable(getattr(type(env), "step_batch", None)):
        return env.step_batch
    return jax.vmap(env.step, in_axes=(0, 0, 0, None))


def env_axis_sharding(num_envs: int):
    """The env batch split evenly over every JAX device (a 1-D mesh named ``envs``), or None with one
    device or a batch that does not divide evenly."""
    devices = jax.devices()
    if len(devices) == 1 or num_envs % len(devices):
        return None
    mesh = jax.sharding.Mesh(np.array(devices), ("envs",))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("envs"))


def batched_step_on_devices(env: Any, params: Any, num_envs: int, sharding: Any = None) -> Callable:
    """``(key, states[N], actions[N]) -> batched_step(env)`` outputs for ``num_envs`` envs, with
    per-env keys hashed from ``key`` (``paritygym.random.batch_keys``).

    ``sharding``: None (one device), or a ``NamedSharding`` of the env axis over a 1-D mesh. Then
    each device steps its own envs (``jax.shard_map``, per-device keys from ``fold_in`` of the
    device's index): XLA's partitioning of one batch-wide step would turn the gathers of a
    ``step_batch`` that runs handlers only on the envs that need them (``where_needed``) into
    all-gathers between devices (3x fewer TCG env steps/s on 2 CPU devices, 2026-12-02)."""
    step = batched_step(env)
    if sharding is None:
        return lambda key, states, actions: step(batch_keys(key, num_envs), states, actions, params)
    (axis,) = sharding.mesh.axis_names
    local_envs = num_envs // sharding.mesh.devices.size

    def local_step(key, states, actions):
        key = jax.random.fold_in(key, jax.lax.axis_index(axis))
        return step(batch_keys(key, local_envs), states, actions, params)

    spec = jax.sharding.PartitionSpec
    return jax.shard_map(local_step, mesh=sharding.mesh, in_specs=(spec(), spec(axis), spec(axis)),
                         out_specs=spec(axis), check_vma=False)


def where_needed(need: jax.Array, chunk: int, fn: Callable, args: Any, otherwise: Any,
                 whole_batch_on_accelerator: bool = False) -> Any:
    """Runs ``fn`` only on the envs of a batch that need it, in sub-batches of ``chunk`` envs.

    ``need``: bool[B]; ``args``: a pytree of arrays with leading axis B, ``fn``'s arguments for one
    env (``fn(*args)`` per env, vmapped here); ``otherwise``: the outputs' pytree, leading axis B,
    kept where ``need`` is False. Returns ``out`` with ``out[i] = fn(*args[i])`` where ``need[i]``
    and ``otherwise[i]`` elsewhere.

    The needing envs are gathered in index order (positions from a cumulative sum of ``need``)
    into chunks of ``chunk`` rows; a loop runs ``ceil(count / chunk)`` chunks, so a batch where
    more envs need the work than one chunk holds still gets exact results, at the cost of more
    chunks. Each row's result is that of ``fn`` on that row alone (the unused rows of the last
    chunk run env 0's row and are dropped), so the outputs equal the vmapped ``fn`` wherever
    ``need`` holds.

    ``whole_batch_on_accelerator``: in the accelerator form (``paritygym.backend``) run ``fn`` on
    every env and keep the needing rows, with no gather and no loop. Right for work that is cheap
    per env; wrong for costly work few envs need (a new episode's team generator, whose own loops
    run as long as the slowest env of the batch needs)."""
    run = jax.vmap(fn)
    return where_needed_batched(need, chunk, lambda valid, *rows: run(*rows), args, otherwise,
                                whole_batch_on_accelerator)


def where_needed_batched(need: jax.Array, chunk: int, fn: Callable, args: Any, otherwise: Any,
                         whole_batch_on_accelerator: bool = False) -> Any:
    """``where_needed`` for a ``fn`` that takes a whole sub-batch: ``fn(valid, *rows)``, where
    ``rows`` are ``args`` gathered to leading axis ``chunk`` and ``valid`` (bool[chunk]) is False
    on the padding rows of the last sub-batch (copies of env 0, whose results are dropped). Use it
    when ``fn`` is itself batched (it compacts again inside) and padding rows should do no work:
    ``fn`` may give them inputs that make its own inner work skip them. Rows where ``valid`` holds
    must get what ``fn`` gives each row of the sub-batch."""
    return _chunked(need, chunk, lambda valid, out_rows, *rows: fn(valid, *rows), otherwise, args,
                    whole_batch_on_accelerator)


def update_where_needed(need: jax.Array, chunk: int, fn: Callable, carry: Any, args: Any = (),
                        whole_batch_on_accelerator: bool = False) -> Any:
    """``where_needed`` for a ``fn`` that updates ``carry``'s rows: returns ``out`` with
    ``out[i] = fn(carry[i], *args[i])`` where ``need[i]`` and ``carry[i]`` elsewhere.

    Same results as ``where_needed(need, chunk, fn, (carry, *args), otherwise=carry)``, cheaper:
    each chunk reads its ``carry`` rows from the output being written (each row is read once,
    before it is written), so XLA updates ``carry`` in place instead of copying every array of it
    before the loop (the copy it needs while a second reference to the input is still read)."""
    run = jax.vmap(fn)
    return _chunked(need, chunk, lambda valid, out_rows, *rows: run(out_rows, *rows), carry, args,
                    whole_batch_on_accelerator)


def update_where_needed_batched(need: jax.Array, chunk: int, fn: Callable, carry: Any, args: Any = (),
                                whole_batch_on_accelerator: bool = False) -> Any:
    """``update_where_needed`` for a ``fn`` that takes a whole sub-batch: ``fn(valid, carry_rows,
    *rows)`` (``valid`` as in ``where_needed_batched``)."""
    return _chunked(need, chunk, fn, carry, args, whole_batch_on_accelerator)


def _chunked(need: jax.Array, chunk: int, fn: Callable, out: Any, args: Any,
             whole_batch_on_accelerator: bool = False) -> Any:
    """The loop of the helpers above: ``fn(valid, out_rows, *arg_rows)`` on the needing rows, in
    chunks, scattered into ``out``."""
    need = jnp.asarray(need, bool)
    batch = need.shape[0]
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    chunk = min(int(chunk), batch)
    if whole_batch_on_accelerator and accelerator_form():
        # the accelerator form: ``fn`` on every row at once (the rows that need nothing are the
        # padding, ``valid`` False), kept where needed; no gather, no loop (paritygym.backend)
        results = fn(need, out, *args)
        return jax.tree.map(lambda r, o: jnp.where(need.reshape(need.shape + (1,) * (o.ndim - 1)), r.astype(o.dtype), o),
                            results, out)
    num_chunks_max = -(-batch // chunk)
    count = need.sum(dtype=jnp.int32)
    position = jnp.cumsum(need, dtype=jnp.int32) - 1
    # order[p] = index of the p-th needing env; padding rows point at env 0 (computed, then dropped)
    order = jnp.zeros(num_chunks_max * chunk, jnp.int32).at[jnp.where(need, position, num_chunks_max * chunk)].set(
        jnp.arange(batch, dtype=jnp.int32), mode="drop")

    def one_chunk(c, out):
        rows = jax.lax.dynamic_slice(order, (c * chunk,), (chunk,))
        valid = c * chunk + jnp.arange(chunk) < count
        results = fn(valid, jax.tree.map(lambda x: x[rows], out), *jax.tree.map(lambda x: x[rows], args))
        dest = jnp.where(valid, rows, batch)   # out of range: dropped
        return jax.tree.map(lambda o, r: o.at[dest].set(r, mode="drop"), out, results)

    return jax.lax.fori_loop(0, (count + chunk - 1) // chunk, one_chunk, out)
