"""The batched env step every batch-level caller uses (vector env, bench, PPO, conformance).

``batched_step(env)`` is ``jax.vmap(env.step, in_axes=(0, 0, 0, None))`` unless the env defines
its own ``step_batch(keys, states, actions, params)``: an env whose step has work that only a
few envs of a batch need (a new battle, a lone replacement) can then gather those envs into a
smaller sub-batch instead of paying for that work in every env, as vmap must. Such a method
must return exactly what the vmapped ``step`` returns (same arrays, same ``info`` keys).

In the accelerator form (``paritygym.backend``) a caller of the sub-batch helpers (``where_needed``
and its kin) chooses how they run (``on_accelerator``), with the same results in every way:

- ``"gather"`` (the default; the CPU form's way): the needing rows gathered into chunks at per-env
  indices, a loop over the chunks. Right for rare, costly work (a new episode): an accelerator runs a
  row gather as a loop over the rows, which few rows keep short.
- ``"whole"``: ``fn`` on the whole batch under a mask, no gather and no loop. Right for work that is
  cheap per env.
- ``"one_hot"``: the needing rows moved into chunks, and the results back, by one-hot matrix
  products (``_compacted``). Right for costly work a sizeable share of the envs needs (TCG's opponent
  loop): its cost is a pass over every row's bytes, whatever the number of rows moved.
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
                 on_accelerator: str = "gather") -> Any:
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

    ``on_accelerator``: how the accelerator form runs it (``"gather"``, ``"whole"`` or ``"one_hot"``,
    see the module's docstring); the CPU form always gathers. ``"whole"`` is wrong for costly work
    few envs need (a new episode's team generator, whose own loops run as long as the slowest env of
    the batch needs)."""
    run = jax.vmap(fn)
    return where_needed_batched(need, chunk, lambda valid, *rows: run(*rows), args, otherwise,
                                on_accelerator)


def where_needed_batched(need: jax.Array, chunk: int, fn: Callable, args: Any, otherwise: Any,
                         on_accelerator: str = "gather") -> Any:
    """``where_needed`` for a ``fn`` that takes a whole sub-batch: ``fn(valid, *rows)``, where
    ``rows`` are ``args`` gathered to leading axis ``chunk`` and ``valid`` (bool[chunk]) is False
    on the padding rows of the last sub-batch (copies of env 0, whose results are dropped). Use it
    when ``fn`` is itself batched (it compacts again inside) and padding rows should do no work:
    ``fn`` may give them inputs that make its own inner work skip them. Rows where ``valid`` holds
    must get what ``fn`` gives each row of the sub-batch."""
    return _chunked(need, chunk, lambda valid, out_rows, *rows: fn(valid, *rows), otherwise, args,
                    on_accelerator, reads_out=False)


def update_where_needed(need: jax.Array, chunk: int, fn: Callable, carry: Any, args: Any = (),
                        on_accelerator: str = "gather") -> Any:
    """``where_needed`` for a ``fn`` that updates ``carry``'s rows: returns ``out`` with
    ``out[i] = fn(carry[i], *args[i])`` where ``need[i]`` and ``carry[i]`` elsewhere.

    Same results as ``where_needed(need, chunk, fn, (carry, *args), otherwise=carry)``, cheaper:
    each chunk reads its ``carry`` rows from the output being written (each row is read once,
    before it is written), so XLA updates ``carry`` in place instead of copying every array of it
    before the loop (the copy it needs while a second reference to the input is still read)."""
    run = jax.vmap(fn)
    return _chunked(need, chunk, lambda valid, out_rows, *rows: run(out_rows, *rows), carry, args,
                    on_accelerator)


def update_where_needed_batched(need: jax.Array, chunk: int, fn: Callable, carry: Any, args: Any = (),
                                on_accelerator: str = "gather") -> Any:
    """``update_where_needed`` for a ``fn`` that takes a whole sub-batch: ``fn(valid, carry_rows,
    *rows)`` (``valid`` as in ``where_needed_batched``)."""
    return _chunked(need, chunk, fn, carry, args, on_accelerator)


def _chunked(need: jax.Array, chunk: int, fn: Callable, out: Any, args: Any,
             on_accelerator: str = "gather", reads_out: bool = True) -> Any:
    """The loop of the helpers above: ``fn(valid, out_rows, *arg_rows)`` on the needing rows, in
    chunks, scattered into ``out`` (``reads_out`` False: ``fn`` ignores ``out_rows``)."""
    need = jnp.asarray(need, bool)
    batch = need.shape[0]
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    chunk = min(int(chunk), batch)
    if on_accelerator not in ("gather", "whole", "one_hot"):
        raise ValueError(f"on_accelerator must be 'gather', 'whole' or 'one_hot', got {on_accelerator!r}")
    if accelerator_form():
        if on_accelerator == "whole":
            # ``fn`` on every row at once (the rows that need nothing are the padding, ``valid``
            # False), kept where needed; no gather, no loop (paritygym.backend)
            results = fn(need, out, *args)
            return jax.tree.map(lambda r, o: jnp.where(_rows(need, o), r.astype(o.dtype), o), results, out)
        if on_accelerator == "one_hot":
            return _compacted(need, chunk, fn, out, args, reads_out)
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


def _rows(flags: jax.Array, x: jax.Array) -> jax.Array:
    """``flags`` [B] shaped to broadcast over the rows of ``x`` [B, ...]."""
    return flags.reshape(flags.shape + (1,) * (x.ndim - 1))


# The accelerator form's sub-batches: rows moved by one-hot matrix products, within groups of this
# many rows (the product's cost grows with group size x chunk, linear in the batch).
COMPACTION_GROUP = 1024


def _compacted(need: jax.Array, chunk: int, fn: Callable, out: Any, args: Any, reads_out: bool) -> Any:
    """``_chunked`` in the accelerator form. An accelerator runs a gather or scatter of rows at
    per-env indices as a loop over the rows (the TPU v5e did), but multiplies matrices nearly for
    free: the needing rows of each group of ``COMPACTION_GROUP`` rows are moved into a sub-batch,
    and the results back, by products with a one-hot matrix [rows of the chunk, rows of the group],
    over the rows' bytes (``_to_bytes``: exact), written as bfloat16 (each output is one byte or 0:
    exact, and half the bytes of float32 to write and read back, the trip's largest arrays). Each
    trip takes up to ``chunk * group / batch`` needing rows of every group, in index order; the
    padding rows of a trip copy their group's first row (``valid`` False, results dropped)."""
    batch = need.shape[0]
    group = COMPACTION_GROUP if batch % COMPACTION_GROUP == 0 else batch
    groups = batch // group
    per_group = max(1, min(group, -(-chunk * group // batch)))
    need = need.reshape(groups, group)
    rank = jnp.cumsum(need, axis=1, dtype=jnp.int32) - 1
    trips = (jnp.max(jnp.sum(need, axis=1, dtype=jnp.int32)) + per_group - 1) // per_group
    out_dtypes = jax.tree.map(lambda o: o.dtype, out)
    # rows are read from the input as it was: a row is taken once, before it is written
    sources, source_layout = _to_bytes((out if reads_out else None, args))
    sources = sources.reshape(groups, group, -1)
    slots = jnp.arange(per_group, dtype=jnp.int32)

    def one_trip(trip, out):
        taken = need & (rank // per_group == trip)                                        # [G, R]
        moved = taken[:, None, :] & ((rank - trip * per_group)[:, None, :] == slots[None, :, None])  # [G, C, R]
        valid = jnp.any(moved, axis=2)                                                    # [G, C]
        first = jnp.arange(group) == 0
        gather = (moved | (~valid[:, :, None] & first)).astype(jnp.bfloat16)
        rows = jnp.einsum("gcr,grf->gcf", gather, sources, preferred_element_type=jnp.bfloat16)
        out_rows, arg_rows = _from_bytes(rows.reshape(groups * per_group, -1), source_layout)
        results = fn(valid.reshape(-1), out_rows, *arg_rows)
        results = jax.tree.map(lambda r, d: r.astype(d), results, out_dtypes)
        planes, layout = _to_bytes(results)
        back = jnp.einsum("gcr,gcf->grf", moved.astype(jnp.bfloat16), planes.reshape(groups, per_group, -1),
                          preferred_element_type=jnp.bfloat16)
        written = _from_bytes(back.reshape(batch, -1), layout)
        taken = taken.reshape(batch)
        return jax.tree.map(lambda o, w: jnp.where(_rows(taken, o), w, o), out, written)

    return jax.lax.fori_loop(0, trips, one_trip, out)


def _to_bytes(tree: Any) -> tuple[jax.Array, Any]:
    """The leaves of ``tree`` (leading axis B) as one bfloat16 matrix [B, bytes]: each value's bytes
    (low first) as numbers 0..255, which bfloat16 holds exactly, so that a one-hot product (each
    output one byte times 1, plus zeros, summed in float32) moves them exactly. Returns the matrix
    and the layout ``_from_bytes`` needs."""
    leaves, treedef = jax.tree.flatten(tree)
    planes, layout = [], []
    for x in leaves:
        x = jnp.asarray(x)
        key_impl = None
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            key_impl, x = jax.random.key_impl(x), jax.random.key_data(x)
        words, nbytes = _words(x)
        words = words.reshape(x.shape[0], -1)
        planes += [((words >> (8 * k)) & 255) for k in range(nbytes)]
        layout.append((x.shape, x.dtype, nbytes, words.shape[1], key_impl))
    matrix = jnp.concatenate(planes, axis=1) if planes else jnp.zeros((0, 0), jnp.uint32)
    return matrix.astype(jnp.float32).astype(jnp.bfloat16), (treedef, layout)


def _words(x: jax.Array) -> tuple[jax.Array, int]:
    """``x``'s values as uint32 words and how many low bytes of each carry it."""
    if x.dtype == jnp.bool_:
        return x.astype(jnp.uint32), 1
    if x.dtype.itemsize == 4:
        return jax.lax.bitcast_convert_type(x, jnp.uint32), 4
    if x.dtype.itemsize in (1, 2) and (jnp.issubdtype(x.dtype, jnp.integer)):
        unsigned = jnp.uint8 if x.dtype.itemsize == 1 else jnp.uint16
        return jax.lax.bitcast_convert_type(x, unsigned).astype(jnp.uint32), x.dtype.itemsize
    raise TypeError(f"a sub-batch moves bool and 8/16/32-bit arrays, got {x.dtype}")


def _from_bytes(matrix: jax.Array, layout: Any) -> Any:
    """The tree ``_to_bytes`` laid out, from its matrix's rows (one-hot sums of bytes), leading axis
    the matrix's rows."""
    treedef, leaves_layout = layout
    rows = matrix.shape[0]
    matrix = matrix.astype(jnp.uint32)
    leaves, start = [], 0
    for shape, dtype, nbytes, width, key_impl in leaves_layout:
        words = jnp.zeros((rows, width), jnp.uint32)
        for k in range(nbytes):
            words = words | (matrix[:, start:start + width] << (8 * k))
            start += width
        words = words.reshape((rows,) + tuple(shape[1:]))
        if dtype == jnp.bool_:
            x = words != 0
        elif dtype.itemsize == 4:
            x = jax.lax.bitcast_convert_type(words, dtype)
        else:
            unsigned = jnp.uint8 if dtype.itemsize == 1 else jnp.uint16
            x = jax.lax.bitcast_convert_type(words.astype(unsigned), dtype)
        leaves.append(jax.random.wrap_key_data(x, impl=key_impl) if key_impl is not None else x)
    return jax.tree.unflatten(treedef, leaves)
