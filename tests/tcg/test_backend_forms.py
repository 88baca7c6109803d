"""The accelerator form of the TCG engine (`paritygym.backend`: paritygym.indexing's one-hot
selects for card tables and per-game indices, sub-batches run on the whole batch under a mask,
unrolled shuffles) gives the CPU form's results bit for bit, on the CPU.

Each form is traced afresh: a jitted function (and every jitted function it calls) keeps the form
it was first traced with, and jax caches traces by function, so the caches are cleared before each
form (`_fresh`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from paritygym import indexing
from paritygym.backend import forced_form, step_form
from tcgjax.game import card_tables
from tcgjax.game.step import step_batch
from tests.tcg.test_env import BATCH, ENV_ID, _rollout

STEPS = 128


FORMS = ("cpu", "accelerator")


def _fresh(form: str):
    jax.clear_caches()
    return forced_form(form)


def _count(jaxpr, names) -> int:
    """Equations of a (closed) jaxpr and its sub-jaxprs whose primitive is one of `names`."""
    total = 0
    for eqn in jaxpr.eqns:
        total += eqn.primitive.name in names
        for sub in jax.core.jaxprs_in_params(eqn.params):
            total += _count(sub, names)
    return total


def test_default_form_on_cpu_and_forced():
    assert step_form() == "cpu" and not indexing.accelerated()
    with forced_form("accelerator"):
        assert indexing.accelerated()
    assert not indexing.accelerated()


def _helpers(x, table2, basic, lists, cards, i, j, v):
    """Every helper of paritygym.indexing on one row of the batch."""
    return (indexing.read(x, (i, j)), indexing.read(x, (slice(1, None), j)), indexing.read(x, i),
            indexing.write(x, (i, j), v), indexing.write(x, (slice(1, None), j), 0), indexing.write(x, i, x[0]),
            indexing.add(x, (0, j), v), indexing.lookup(table2, (cards, j % 2)), indexing.lookup(x[:, 0], cards % 4),
            indexing.lookup(x[0] > 0, j), basic[cards], basic[cards[0]], lists[i, cards], lists[j, cards[0]])


def test_indexing_helpers_agree():
    rng = np.random.default_rng(0)
    b = 64
    x = jnp.asarray(rng.integers(-50, 50, (b, 4, 15)), jnp.int32)
    table2 = jnp.asarray(rng.integers(-9, 9, (300, 2, 8)), jnp.int32)
    # indices out of range too: negative ones count from the end, reads clamp, writes drop
    cards = jnp.asarray(rng.integers(-5, 310, (b, 20)), jnp.int32)
    i, j = jnp.asarray(rng.integers(-6, 7, b), jnp.int32), jnp.asarray(rng.integers(-17, 18, b), jnp.int32)
    v = jnp.asarray(rng.integers(-5, 5, b), jnp.int32)
    basic = card_tables().is_basic  # an indexing.Table: its [] is `lookup`
    assert isinstance(basic, indexing.Table)
    lists = card_tables().name_lists  # bool [4, names]
    fn = jax.vmap(_helpers, in_axes=(0, None, None, None, 0, 0, 0, 0))
    out = {}
    for name in FORMS:
        with _fresh(name):
            out[name] = jax.jit(fn)(x, table2, basic, lists, cards, i, j, v)
            jaxpr = jax.make_jaxpr(fn)(x, table2, basic, lists, cards, i, j, v).jaxpr
            out[name + " indexing ops"] = _count(jaxpr, {"gather", "scatter", "scatter-add", "scatter_add"})
        # the tables closed over, as the engine's are: known when traced, the long ones read by one-hot matrix
        # products (`take_rows`); the short ones (`x[:, 0]`, 4 rows) by selects as above
        def closed(x, cards, i, j, v):
            return _helpers(x, table2, basic, lists, cards, i, j, v)

        with _fresh(name):
            out[name + " closed"] = jax.jit(jax.vmap(closed))(x, cards, i, j, v)
            jaxpr = jax.make_jaxpr(jax.vmap(closed))(x, cards, i, j, v).jaxpr
            out[name + " closed products"] = _count(jaxpr, {"dot_general"})
    for a, c, d, e in zip(out["cpu"], out["accelerator"], out["cpu closed"], out["accelerator closed"]):
        assert a.dtype == c.dtype == d.dtype == e.dtype and np.array_equal(a, c) and np.array_equal(a, d) and np.array_equal(a, e)
    assert out["cpu indexing ops"] >= 10 and out["accelerator indexing ops"] == 0, out
    assert out["cpu closed products"] == 0 and out["accelerator closed products"] >= 5, out


def test_write_rows_agrees_with_numpy_in_both_forms():
    """Cards appended at distinct per-row positions (those past the end dropped), as the Knock Out's
    discard writes them."""
    rng = np.random.default_rng(1)
    b, n, k = 32, 20, 24
    piles = rng.integers(-1, 300, (b, 2, n)).astype(np.int32)
    columns = np.stack([[rng.permutation(k) for _ in range(2)] for _ in range(b)]).astype(np.int32)  # 20..23 dropped
    values = rng.integers(0, 300, (b, 2, k)).astype(np.int32)
    expected = piles.copy()
    for g in range(b):
        for r in range(2):
            keep = columns[g, r] < n
            expected[g, r, columns[g, r][keep]] = values[g, r][keep]
    for name in FORMS:
        with _fresh(name):
            got = jax.jit(jax.vmap(indexing.write_rows))(piles, columns, values)
        assert np.array_equal(np.asarray(got), expected), name


def test_step_batch_has_fewer_gathers_when_accelerated():
    """The forced form reaches the engine: the accelerator's step has far fewer gathers (the
    card tables' lookups are one-hot selects) and no sub-batch loops (masked at full width)."""
    tables = card_tables()
    env, params = paritygym.make(ENV_ID)
    _, states = jax.eval_shape(jax.vmap(env.reset, in_axes=(0, None)), jax.random.split(jax.random.PRNGKey(0), 4), params)
    counts = {}
    for name in FORMS:
        with _fresh(name):
            jaxpr = jax.make_jaxpr(lambda s, a: step_batch(tables, s, a))(states.game, jax.ShapeDtypeStruct((4,), jnp.int32)).jaxpr
        counts[name] = (_count(jaxpr, {"gather"}), _count(jaxpr, {"while"}))
    assert counts["accelerator"][0] * 4 < counts["cpu"][0], counts
    assert counts["accelerator"][1] < counts["cpu"][1], counts


@pytest.mark.slow  # the whole env in both forms (~7 CPU min cold); by default the engine's forms are compared on the
# recorded reference games (test_accelerator_l3.py) and the indexing helpers here
def test_env_forms_identical():
    """Random-play rollouts through the env's `step_batch` (both opponents, both modes; one
    compiled program per form, the opponent and mode are traced params): observations, rewards,
    flags, masks, actions and the whole state pytree after every step are identical."""
    env, params = paritygym.make(ENV_ID)
    runs = {}
    for name in FORMS:
        with _fresh(name):
            run = _rollout(env, paritygym.batched_step(env))
            runs[name] = [jax.device_get(run(jax.random.PRNGKey(4 + opponent), us, params.replace(
                opponent=opponent, game=params.game.replace(interleaved=interleaved))))
                for opponent in (0, 1) for interleaved in (False, True)
                for us in [np.random.default_rng(7 + opponent).integers(0, 2**32, size=(STEPS, BATCH), dtype=np.uint32)]]
    ends = 0
    for ours, theirs in zip(runs["accelerator"], runs["cpu"]):
        for a, b in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        ends += int(np.sum(theirs[2][2] | theirs[2][3]))
    assert ends >= 4 * BATCH  # episodes ended, so the autoreset's new episodes were compared too
