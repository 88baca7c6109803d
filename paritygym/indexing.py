"""Dynamic indexing by a per-game (traced) index, in the form that suits the backend. Shared by the
TCG engine and pokejax's team generator.

XLA:CPU runs a vmapped gather/scatter (`x[p, slot]`, `x.at[slot].set(v)`, `table[card]` with a
per-game index) as one cheap kernel, and the engines were written for it. XLA's TPU backend expands a
scatter or gather whose indices differ per batch row into a sequential loop over the rows, or runs
it element by element, while the chip idles. In the accelerator form (`paritygym.backend`, read
when a function is traced) the helpers here compute the same values as one-hot selects over the
small indexed axis: a few wide elementwise kernels that XLA fuses with their neighbours. In the
CPU form they are the plain indexing and `.at[]` updates, the program the engines always had.

Both forms give the same integers and booleans bit for bit (tests/tcg/test_backend_forms.py,
tests/pokemon/test_l1_teams.py): an index is taken as jnp indexing takes it (negative from the end,
a read clamped, a write out of range dropped), and a one-hot sum has exactly one non-zero term (no
floats are read through these).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form as accelerated
from paritygym.lookup import PackedColumns, take_rows

# a constant table of at least this many rows is read by a one-hot matrix product (`take_rows`)
MATRIX_LOOKUP_ROWS = 64


def _position(i, n: int, clamp: bool):
    """Index `i` of an axis of `n` as jnp indexing takes it: a negative one counts from the end; a
    read clamps one out of range, a write (`clamp` False) drops it (it matches no position)."""
    i = jnp.asarray(i)
    i = jnp.where(i < 0, i + n, i)
    return jnp.clip(i, 0, n - 1) if clamp else i


def _mask(shape, index: tuple, clamp: bool):
    """bool mask of `shape`, True at the positions `index` (ints, traced scalars and slices over the
    leading axes) selects; and the axes of the scalar entries."""
    mask = jnp.ones((), bool)
    scalar_axes = []
    for axis, i in enumerate(index):
        positions = jnp.arange(shape[axis]).reshape((-1,) + (1,) * (len(shape) - axis - 1))
        if isinstance(i, slice):
            start, stop, step = i.indices(shape[axis])
            if step != 1:
                raise ValueError("only contiguous slices")
            mask = mask & (positions >= start) & (positions < stop)
        else:
            mask = mask & (positions == _position(i, shape[axis], clamp))
            scalar_axes.append(axis)
    return mask, tuple(scalar_axes)


def _check(index) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def read(x, index):
    """`x[index]`: `index` is a tuple of ints, traced int scalars and contiguous slices over the
    leading axes."""
    index = _check(index)
    if not accelerated():
        return x[index]
    mask, scalar_axes = _mask(x.shape, index, clamp=True)
    picked = jnp.where(mask, x, jnp.zeros((), x.dtype))
    reduced = jnp.any(picked, axis=scalar_axes) if x.dtype == jnp.bool_ else jnp.sum(picked, axis=scalar_axes, dtype=x.dtype)
    # the slices still span their whole axes: cut them
    return reduced[tuple(i for i in index if isinstance(i, slice))]


def _spread(x, index, value):
    """`value` (shaped like `x[index]`, or broadcastable to it) broadcast to `x`'s shape; a
    non-scalar value needs whole-axis slices."""
    value = jnp.asarray(value, x.dtype)
    if value.ndim == 0:
        return jnp.broadcast_to(value, x.shape)
    if any(isinstance(i, slice) and i.indices(x.shape[a])[:2] != (0, x.shape[a]) for a, i in enumerate(index)):
        raise ValueError("a non-scalar value needs whole-axis slices")
    kept = tuple(n for a, n in enumerate(x.shape) if a >= len(index) or isinstance(index[a], slice))
    value = jnp.broadcast_to(value, kept)
    for axis, i in enumerate(index):
        if not isinstance(i, slice):
            value = jnp.expand_dims(value, axis)
    return jnp.broadcast_to(value, x.shape)


def write(x, index, value):
    """`x.at[index].set(value)` (index as in `read`)."""
    index = _check(index)
    if not accelerated():
        return x.at[index].set(value)
    mask, _ = _mask(x.shape, index, clamp=False)
    return jnp.where(mask, _spread(x, index, value), x)


def add(x, index, value):
    """`x.at[index].add(value)` (index as in `read`)."""
    index = _check(index)
    if not accelerated():
        return x.at[index].add(value)
    mask, _ = _mask(x.shape, index, clamp=False)
    return jnp.where(mask, x + _spread(x, index, value), x)


def write_rows(x, columns, values):
    """`x.at[rows, columns].set(values, mode="drop")` with `rows` each row's own index: `x` [R, N],
    `columns` and `values` [R, K], the in-range columns of a row all different (a column out of
    range is dropped), e.g. cards appended to each seat's pile at positions computed per game."""
    if not accelerated():
        rows = jnp.broadcast_to(jnp.arange(x.shape[0])[:, None], columns.shape)
        return x.at[rows, columns].set(values, mode="drop")
    hit = columns[:, :, None] == jnp.arange(x.shape[1])          # [R, K, N]
    written = jnp.sum(jnp.where(hit, jnp.asarray(values, x.dtype)[:, :, None], jnp.zeros((), x.dtype)),
                      axis=1, dtype=x.dtype)
    return jnp.where(jnp.any(hit, axis=1), written, x)


def lookup(table, index, packed: PackedColumns | None = None):
    """`table[index]` for integer index arrays (a tuple indexes the leading axes, its entries
    broadcast together), e.g. a card property of every card of a hand, or an entry of a short row
    at positions computed per game. `packed`: a constant table's place in a pack of tables read at the same
    indices (`paritygym.lookup.pack_tables`; the accelerator form's product then serves the whole pack)."""
    if not accelerated():
        return table[index]
    index = index if isinstance(index, tuple) else (index,)
    if any(not _is_integer_index(i) for i in index):
        return table[index]
    index = jnp.broadcast_arrays(*(jnp.asarray(i) for i in index))
    k = len(index)
    if _constant(table) and np.shape(table)[0] >= MATRIX_LOOKUP_ROWS and np.asarray(table).dtype != np.int64:
        # a long constant table (a card property): its rows by a one-hot matrix product on the matrix
        # unit, not a select over every row on the vector units; the later indices pick within a row
        rows = take_rows(np.asarray(table), index[0], packed)
        return lookup_rows(rows, index[1:]) if k > 1 else rows
    table = jnp.asarray(table)
    if table.dtype == jnp.bool_ and table.ndim == k == 2 and table.shape[0] <= 31:
        # a few rows of flags (the name lists): their bits packed per column, so the select runs
        # over the columns only, not over rows x columns
        xp = np if _constant(table) else jnp  # numpy keeps a constant table's bits constant (the product below)
        bits = xp.sum(xp.asarray(table).astype(np.int32) << xp.arange(table.shape[0], dtype=np.int32)[:, None], axis=0, dtype=np.int32)
        row = _position(index[0], table.shape[0], clamp=True)
        return ((lookup(bits, index[1]) >> row) & 1) == 1
    hot = jnp.ones((), bool)
    for axis, i in enumerate(index):
        positions = jnp.arange(table.shape[axis]).reshape((-1,) + (1,) * (k - axis - 1))
        i = _position(i, table.shape[axis], clamp=True)
        hot = hot & (i.reshape(i.shape + (1,) * k) == positions)  # [..., N0, .., Nk-1]
    hot = hot.reshape(hot.shape + (1,) * (table.ndim - k))
    picked = jnp.where(hot, table, jnp.zeros((), table.dtype))
    axes = tuple(range(index[0].ndim, index[0].ndim + k))
    return jnp.any(picked, axis=axes) if table.dtype == jnp.bool_ else jnp.sum(picked, axis=axes, dtype=table.dtype)


def lookup_rows(rows, index: tuple):
    """`rows[r..., index[0][r...], index[1][r...], ...]`: each element's own entry of its row's
    leading axes (`rows`: [..., N0, N1, ...], every index shaped like `rows`' leading part), as one-hot
    selects over those short axes."""
    if not index:
        return rows
    lead = index[0].ndim
    i = _position(index[0], rows.shape[lead], clamp=True)
    hot = i[..., None] == jnp.arange(rows.shape[lead])
    hot = hot.reshape(hot.shape + (1,) * (rows.ndim - lead - 1))
    picked = jnp.where(hot, rows, jnp.zeros((), rows.dtype))
    picked = jnp.any(picked, axis=lead) if rows.dtype == jnp.bool_ else jnp.sum(picked, axis=lead, dtype=rows.dtype)
    return lookup_rows(picked, index[1:])


def _constant(table) -> bool:
    """A value known when the step is traced (numpy, or a concrete jax array: a closed-over table)."""
    return isinstance(table, np.ndarray) or (isinstance(table, jax.Array) and not isinstance(table, jax.core.Tracer))


def _is_integer_index(i) -> bool:
    if isinstance(i, (slice, type(None), type(Ellipsis))) or isinstance(i, bool):
        return False
    return isinstance(i, int) or jnp.issubdtype(jnp.asarray(i).dtype, jnp.integer)


@jax.tree_util.register_pytree_node_class
class Table:
    """A constant table (e.g. one indexed by card, `tcgjax.game.tables.CardTables`) whose `[...]` is
    `lookup`: the engine's `T.hp[card]` needs no change to run as a one-hot select on an
    accelerator, and stays the plain gather on the CPU."""

    def __init__(self, array, packed: PackedColumns | None = None):
        self.array = array
        self.packed = packed  # its place in a pack of tables (`lookup`'s `packed`)

    def __getitem__(self, index):
        return lookup(self.array, index, self.packed)

    def __jax_array__(self):
        return jnp.asarray(self.array)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.array, dtype)

    shape = property(lambda self: self.array.shape)
    dtype = property(lambda self: self.array.dtype)
    ndim = property(lambda self: self.array.ndim)

    def tree_flatten(self):
        return (self.array,), self.packed

    @classmethod
    def tree_unflatten(cls, packed, children):
        return cls(*children, packed)
