"""The CPU and accelerator forms of the Pokémon step (``paritygym.backend``) give bit-identical results
on the CPU: the packed-row writes (scatters vs selects), and the whole env over random play (the
switch-only steps gathered into sub-batches vs run on the whole batch under a mask)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym.backend import forced_form
from paritygym.batching import batched_step
from paritygym.bench.runner import batched_random_actions
from pokejax.game.state import STORE, VOLATILE_START, Active, Side


def _writes(active: Active, side: Side, on, column, values):
    """Every kind of packed write: one column, a contiguous block, scattered columns, a traced
    column (-1 = none), a reset of the volatile block."""
    active = active.with_fields(0, on[0], hp=values[0])                                  # one column
    active = active.with_fields(1, on[1], base_moves=values[1:5], base_pp=values[5:9])  # a block
    active = active.with_fields(0, on[2], slot=values[9], speed=values[10], moves=values[11:15])  # scattered
    active = active.with_flag(1, on[3], column)                                          # traced column
    active = active.with_reset(0, on[4], VOLATILE_START, species=values[15], stored=values[16:21])
    side = side.with_fields(1, on[5], **{Side.FIELDS[0][0]: values[21]})
    return active, side


@pytest.mark.parametrize("seed", [0, 1])
def test_packed_writes_are_identical_in_both_forms(seed):
    rng = np.random.default_rng(seed)
    batch = 64
    active = Active(data=tuple(jnp.asarray(rng.integers(-300, 300, (batch, Active.WIDTH)), STORE) for _ in range(2)))
    side = Side(data=tuple(jnp.asarray(rng.integers(-300, 300, (batch, Side.WIDTH)), STORE) for _ in range(2)))
    on = jnp.asarray(rng.random((batch, 6)) < 0.5)
    column = jnp.asarray(rng.integers(-1, Active.WIDTH, batch), jnp.int32)
    values = jnp.asarray(rng.integers(-300, 300, (batch, 22)), jnp.int32)
    results = {}
    for form in ("cpu", "accelerator"):
        run = jax.jit(jax.vmap(_writes))
        with forced_form(form):
            results[form] = run.lower(active, side, on, column, values).compile()(active, side, on, column, values)
    cpu, accelerator = (jax.tree.leaves(results[f]) for f in ("cpu", "accelerator"))
    for a, b in zip(cpu, accelerator):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    # the writes did something: the rows changed where `on` held
    assert not np.array_equal(np.asarray(cpu[0]), np.asarray(active.data[0]))


def _tables(rng) -> list[np.ndarray]:
    """Constant tables of every kind ``take_rows`` reads: ints spanning one to four bytes (negatives too),
    bools, int8, and float32 with NaN, infinities and -0.0 among the values."""
    floats = rng.normal(size=(351, 26)).astype(np.float32)
    floats[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    return [rng.integers(-5, 200, (351, 3)).astype(np.int32), rng.integers(0, 60_000, (20, 20)).astype(np.int32),
            rng.integers(-2**31, 2**31, (40, 7)).astype(np.int32), np.arange(578, dtype=np.int32) * 9,
            rng.random((578, 2)) < 0.5, rng.integers(-128, 128, (9, 4)).astype(np.int8), floats]


@pytest.mark.parametrize("kind", range(7))
def test_table_reads_are_identical_in_both_forms(kind):
    """``paritygym.lookup.take_rows``: the accelerator form's one-hot product over the table's bytes gives the
    CPU form's gather bit for bit, indices below zero and past the end included, and traces no gather."""
    from paritygym.lookup import take_rows

    rng = np.random.default_rng(kind)
    table = _tables(rng)[kind]
    index = jnp.asarray(rng.integers(-2 * len(table), 2 * len(table), (64, 3)), jnp.int32)
    out = {}
    for form in ("cpu", "accelerator"):
        with forced_form(form):
            read = jax.jit(lambda i: take_rows(table, i))
            out[form] = np.asarray(read(index))
            gathers = "gather" in str(jax.make_jaxpr(lambda i: take_rows(table, i))(index))
        assert gathers == (form == "cpu")
    expected = table[np.clip(np.where(np.asarray(index) < 0, np.asarray(index) + len(table), np.asarray(index)),
                             0, len(table) - 1)]
    for form in ("cpu", "accelerator"):
        assert out[form].dtype == expected.dtype and out[form].shape == expected.shape
        assert np.array_equal(out[form].view(np.uint8), expected.view(np.uint8)), form


def test_packed_table_reads_share_one_product():
    """``paritygym.lookup.pack_tables``: tables with the same rows read at one index give the plain reads bit for bit,
    and the compiled accelerator form multiplies the index's one-hot matrix once for all of them (XLA merges the
    identical products), where unpacked reads make one product per table."""
    import re

    from paritygym.lookup import pack_tables, take_rows

    rng = np.random.default_rng(11)
    floats = rng.normal(size=(351, 5)).astype(np.float32)
    floats[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    tables = [rng.integers(-5, 200, (351, 3)).astype(np.int32), rng.integers(-2**31, 2**31, (351,)).astype(np.int32),
              rng.random((351, 2, 2)) < 0.5, rng.integers(-128, 128, 351).astype(np.int8), floats]
    index = jnp.asarray(rng.integers(-400, 400, (64, 3)), jnp.int32)
    clipped = np.clip(np.where(np.asarray(index) < 0, np.asarray(index) + 351, np.asarray(index)), 0, 350)
    products = {}
    for packs in (pack_tables(tables), [None] * len(tables)):
        def read(i):
            return [take_rows(t, i, p) for t, p in zip(tables, packs)]

        with forced_form("accelerator"):
            compiled = jax.jit(read).lower(index).compile()
        for table, got in zip(tables, compiled(index)):
            got = np.asarray(got)
            assert got.dtype == table.dtype and np.array_equal(got.view(np.uint8), table[clipped].view(np.uint8))
        products[packs[0] is None] = len(re.findall(r"= \S+ dot\(", compiled.as_text()))
    assert products == {False: 1, True: len(tables)}, products


def _random_play(form: str, batch: int, steps: int) -> list:
    """Every output of ``steps`` batched env steps of random legal play, traced in ``form``."""
    with forced_form(form):
        env, params = paritygym.make("PokemonGen1Random-v0")   # a fresh env: its jitted methods trace anew
        key = jax.random.key(7)
        _, states = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))(jax.random.split(key, batch), params)
        step = jax.jit(batched_step(env)).lower(jax.random.split(key, batch), states,
                                                jnp.zeros(batch, jnp.int32), params).compile()
    policy = jax.jit(batched_random_actions(env, params, batch))
    out = []
    for t in range(steps):
        k = jax.random.fold_in(key, t)
        obs, states, reward, terminated, truncated, info = step(jax.random.split(k, batch), states,
                                                                policy(k, states), params)
        out.append((obs, states, reward, terminated, truncated, info))
    return jax.device_get(out)


def test_env_steps_are_identical_in_both_forms():
    batch, steps = 16, 48
    cpu, accelerator = _random_play("cpu", batch, steps), _random_play("accelerator", batch, steps)
    for t, (a, b) in enumerate(zip(cpu, accelerator)):
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
            assert np.array_equal(x, y), f"step {t}: the forms differ"
    # the play reached the paths the forms differ on: replacements after faints, and new battles
    assert sum(int(np.sum(a[3])) for a in cpu) >= 1
