"""Per-move tables laid out for a batched engine on an accelerator: every column of a move in one
row, read with one gather per batch of move indices, and short constant tables read by selects.
Both Pokémon engines use them (``pokejax.gen9`` for every table, ``pokejax.game.batched`` in its
accelerator form), and ``select``, the per-battle entry of a short axis that both read sides and slots by."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from paritygym.lookup import take_rows


class MoveTable:
    """Per-move columns (``[M]`` or ``[M, k]`` integer or bool arrays) stored side by side in one int32
    matrix, so that reading any number of them at a batch of move indices is one row gather:
    ``row = table.at(move)``, then ``row.power``, ``row.type``... An accelerator runs a batch-indexed
    gather of one column about as slowly as one of a whole row (on the TPU v5e the engine ran 4x
    slower with a gather per column)."""

    def __init__(self, columns: dict[str, np.ndarray]):
        self.columns: dict[str, tuple[int, int, bool, bool]] = {}   # name -> start, width, 2-D, bool
        parts, start = [], 0
        for name, values in columns.items():
            values = np.asarray(values)
            if values.ndim not in (1, 2) or not (np.issubdtype(values.dtype, np.integer) or values.dtype == bool):
                raise ValueError(f"move column {name!r} must be a 1-D or 2-D int or bool array, got {values.dtype}{list(values.shape)}")
            width = 1 if values.ndim == 1 else values.shape[1]
            parts.append(values.reshape(values.shape[0], width).astype(np.int32))
            self.columns[name] = (start, width, values.ndim == 2, values.dtype == bool)
            start += width
        self.matrix = np.concatenate(parts, axis=1)

    def at(self, move) -> MoveRow:
        """The rows of moves ``move`` (int array ``[...]``), read once (``take_rows``)."""
        return MoveRow(self, take_rows(self.matrix, move))


class MoveRow:
    """The columns of ``MoveTable`` rows by name: ``[...]`` (``[..., k]`` for a 2-D column), int32 or bool."""

    def __init__(self, table: MoveTable, rows):
        self._table, self._rows = table, rows

    def __getattr__(self, name: str):
        try:
            start, width, two_d, is_bool = self._table.columns[name]
        except KeyError:
            raise AttributeError(f"no move column {name!r}") from None
        values = self._rows[..., start:start + width]
        values = values if two_d else values[..., 0]
        return values != 0 if is_bool else values


def small_lookup(values, index):
    """``values[index]`` for a short constant table (``values``: a 1-D numpy array of a few dozen
    entries) as a chain of selects over its entries, not a gather (see ``MoveTable``)."""
    import jax.numpy as jnp
    values, index = np.asarray(values), jnp.asarray(index)
    if values.dtype != bool:
        values = values.astype(np.int32)
    out = jnp.full(index.shape, values[0], values.dtype)
    for k in range(1, len(values)):
        if values[k] != values[0]:
            out = jnp.where(index == k, values[k], out)
    return out


def select(x, index) -> jnp.ndarray:
    """``x[..., index[...], *rest]``: the entry of the axis that follows ``index``'s axes (``x`` has
    ``index``'s shape, then that axis, then ``rest``). In the accelerator form
    (``paritygym.backend``, read at trace time) a chain of selects over the axis's few entries: an
    accelerator runs a batch-indexed gather as one slow lookup per row (the TPU v5e ran the turn 4x
    faster so). In the CPU form the gather, which XLA:CPU runs ~3x faster than the selects."""
    x, index = jnp.asarray(x), jnp.asarray(index)
    axis = index.ndim
    if not accelerator_form():
        taken = index.reshape(index.shape + (1,) * (x.ndim - index.ndim))
        return jnp.take_along_axis(x, taken, axis=axis).squeeze(axis)
    index = index.reshape(index.shape + (1,) * (x.ndim - index.ndim - 1))
    entry = lambda k: jax.lax.index_in_dim(x, k, axis, keepdims=False)   # a static slice
    out = entry(0)
    for k in range(1, x.shape[axis]):
        out = jnp.where(index == k, entry(k), out)
    return out
