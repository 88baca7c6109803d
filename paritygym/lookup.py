"""Constant tables read at per-env indices, in the form the backend runs fastest
(``paritygym.backend``): a gather on the CPU, a one-hot matrix product on an accelerator. Shared by
the Pokémon engines and the TCG observation."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form


def take_rows(table, index, packed: PackedColumns | None = None) -> jnp.ndarray:
    """``jnp.asarray(table)[index]`` for a constant table (``table``: a numpy int, bool or float32 array
    ``[N, ...]``; ``index``: an int array, negative entries counting from the end and the rest clamped
    into range, as JAX's indexing does). In the CPU form the gather. In the accelerator form a one-hot
    matrix product instead: an accelerator runs a gather at per-battle indices as one slow lookup per
    row (on the TPU v5e the step's lookups of its 351-row move tables took a third of the step) while
    its matrix unit multiplies ``[rows, N]`` by ``[N, columns]`` nearly for free. The product is exact:
    the table is stored as its bytes (bfloat16 holds 0..255 exactly) and each output sums one byte
    times 1 with zeros, written as bfloat16 (exact, and half the bytes of float32); the bytes are then
    put back together bit for bit. ``packed``: the table's place in the bytes of several tables read at
    the same indices (``pack_tables``)."""
    table, index = np.asarray(table), jnp.asarray(index)
    if not accelerator_form():
        return jnp.asarray(table)[index]
    return _rows_from_bytes(table, index, packed or PackedColumns(*_table_bytes(table)))


@dataclasses.dataclass(frozen=True, eq=False)  # compared by identity (a static pytree field)
class PackedColumns:
    """One table's place in the bytes of several tables with the same rows laid side by side (`pack_tables`):
    the one-hot product of an index with the shared bytes is then the same for every table of the pack, and XLA
    computes it once for all the lookups at that index (common subexpressions), not once per table."""
    shared: np.ndarray  # [N, W] float32: the pack's bytes
    offset: int  # as `_table_bytes`' offset
    nbytes: int
    start: int = 0  # this table's first column of `shared`
    width: int | None = None  # its number of columns of `shared` (nbytes x its columns); None: all


def pack_tables(tables) -> list[PackedColumns]:
    """Each table's `PackedColumns` in one shared byte table (the tables: numpy arrays with the same first axis)."""
    parts = [_table_bytes(np.asarray(t)) for t in tables]
    shared = np.concatenate([bytes_ for bytes_, _, _ in parts], axis=1)
    starts = np.cumsum([0] + [bytes_.shape[1] for bytes_, _, _ in parts])
    return [PackedColumns(shared, offset, nbytes, int(start), bytes_.shape[1])
            for (bytes_, offset, nbytes), start in zip(parts, starts)]


def _rows_from_bytes(table: np.ndarray, index, packed: PackedColumns) -> jnp.ndarray:
    size = table.shape[0]
    index = jnp.clip(jnp.where(index < 0, index + size, index), 0, size - 1)
    one_hot = (index[..., None] == jnp.arange(size, dtype=index.dtype)).astype(jnp.bfloat16)
    planes = jnp.matmul(one_hot, jnp.asarray(packed.shared, jnp.bfloat16),
                        preferred_element_type=jnp.bfloat16).astype(jnp.uint32)  # [..., nbytes * columns]
    width = packed.shared.shape[1] if packed.width is None else packed.width
    if width != packed.shared.shape[1]:
        planes = planes[..., packed.start:packed.start + width]
    offset, nbytes = packed.offset, packed.nbytes
    columns = width // nbytes
    words = jnp.full(index.shape + (columns,), np.uint32(offset), jnp.uint32)
    for k in range(nbytes):
        words = words + (planes[..., k * columns:(k + 1) * columns] << (8 * k))
    words = words.reshape(index.shape + table.shape[1:])
    if table.dtype == bool:
        return words != 0
    if table.dtype == np.float32:
        return jax.lax.bitcast_convert_type(words, jnp.float32)
    return jax.lax.bitcast_convert_type(words, jnp.int32).astype(jnp.asarray(table[:0]).dtype)


def _table_bytes(table: np.ndarray) -> tuple[np.ndarray, int, int]:
    """A table as ``(bytes, offset, nbytes)``: each entry's 32-bit word (a float32's bits, an int's two's
    complement) less the table's smallest, split into its ``nbytes`` low bytes laid side by side
    (``bytes[:, k * C + c]``: byte ``k`` of column ``c``), as float32; ``offset``: that smallest word
    modulo 2^32."""
    flat = table.reshape(table.shape[0], -1)
    if flat.dtype == np.float32:
        words = flat.view(np.int32).astype(np.int64)
    elif flat.dtype == bool or np.issubdtype(flat.dtype, np.integer):
        words = flat.astype(np.int64)
        if words.size and (words.min() < -2**31 or words.max() >= 2**31):
            raise ValueError("take_rows reads tables of 32-bit values")
    else:
        raise TypeError(f"take_rows reads int, bool or float32 tables, got {flat.dtype}")
    lowest = int(words.min()) if words.size else 0
    shifted = words - lowest
    nbytes = max(1, (int(shifted.max(initial=0)).bit_length() + 7) // 8)
    planes = [(shifted >> (8 * k)) & 255 for k in range(nbytes)]
    return np.concatenate(planes, axis=1).astype(np.float32), lowest % 2**32, nbytes
