"""``paritygym.batching``: ``batched_step`` picks an env's own batched step or the vmapped one;
``where_needed`` equals the vmapped function where needed (every chunk size, overflowing chunks
included) and leaves the other rows untouched; ``where_needed_batched`` does the same for a
function of a whole sub-batch and tells it which rows are padding. Each holds in the three ways the
forms run them (``paritygym.backend``): the CPU's gathered sub-batches, the accelerator's whole-batch
run under a mask (where a caller allows it) and the accelerator's sub-batches moved by one-hot
products (exact for every dtype a state holds, in groups of rows, overflowing trips included)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from paritygym import batching
from paritygym.backend import forced_form
from paritygym.batching import (batched_step, update_where_needed, update_where_needed_batched, where_needed,
                                where_needed_batched)

# (form, on_accelerator, rows per compaction group)
FORMS = pytest.mark.parametrize("form, whole, group", [("cpu", "whole", 1024), ("accelerator", "gather", 1024),
                                                      ("accelerator", "whole", 1024), ("accelerator", "one_hot", 8),
                                                      ("accelerator", "one_hot", 1024)])


def _jit_in_form(form, fn):
    """``fn`` jitted and traced in ``form`` (the form is read at trace time): returns a function of
    the traced one's arguments."""
    jitted = jax.jit(fn)

    def run(*args):
        with forced_form(form):
            return jitted.lower(*args).compile()(*args)
    return run


def _work(x, y):
    # a data-dependent loop, as in the envs' rare work (runs to the slowest row under vmap)
    def body(c):
        v, n = c
        return v * 3 + y, n + 1

    v, _ = jax.lax.while_loop(lambda c: c[1] < (c[0] % 5), body, (x, jnp.int32(0)))
    return {"v": v, "y2": (y * 2).astype(jnp.float32)}


def _inputs(seed: int, batch: int = 16):
    """Random inputs of `_work`, its vmapped result, and need masks from none to all (and the last row only)."""
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.integers(0, 100, batch), jnp.int32)
    y = jnp.asarray(rng.integers(0, 7, batch), jnp.int32)
    needs = [rng.random(batch) < p for p in (0.0, 0.1, 0.5, 1.0)] + [np.arange(batch) == batch - 1]
    return x, y, jax.vmap(_work)(x, y), needs


@FORMS
@pytest.mark.parametrize("chunk", [1, 3, 4, 16, 40])
def test_where_needed_equals_vmap_where_needed(chunk, form, whole, group, monkeypatch):
    monkeypatch.setattr(batching, "COMPACTION_GROUP", group)
    batch = 16
    x, y, full, needs = _inputs(chunk, batch)
    otherwise = {"v": jnp.full(batch, -1, jnp.int32), "y2": jnp.full(batch, -1.0, jnp.float32)}
    run = _jit_in_form(form, lambda need: where_needed(need, chunk, _work, (x, y), otherwise,
                                                       on_accelerator=whole))
    for need in needs:
        out = run(jnp.asarray(need))
        for k in full:
            expected = np.where(need, np.asarray(full[k]), np.asarray(otherwise[k]))
            assert np.array_equal(np.asarray(out[k]), expected), (chunk, need, k)


@FORMS
@pytest.mark.parametrize("chunk", [1, 3, 16, 40])
def test_where_needed_batched_equals_vmap_where_needed(chunk, form, whole, group, monkeypatch):
    monkeypatch.setattr(batching, "COMPACTION_GROUP", group)
    batch = 16
    x, y, full, needs = _inputs(100 + chunk, batch)
    otherwise = {"v": jnp.full(batch, -1, jnp.int32), "y2": jnp.full(batch, -1.0, jnp.float32),
                 "valid": jnp.zeros(batch, bool)}

    def batched_work(valid, xs, ys):
        return {**jax.vmap(_work)(xs, ys), "valid": valid}   # valid comes back, to check it

    run = _jit_in_form(form, lambda need: where_needed_batched(need, chunk, batched_work, (x, y), otherwise,
                                                               on_accelerator=whole))
    for need in needs:
        out = run(jnp.asarray(need))
        for k in full:
            expected = np.where(need, np.asarray(full[k]), np.asarray(otherwise[k]))
            assert np.array_equal(np.asarray(out[k]), expected), (chunk, need, k)
        # rows that were written came from valid rows only: padding results are dropped
        assert np.array_equal(np.asarray(out["valid"]), need), (chunk, need)


@pytest.mark.parametrize("chunk", [3, 5])
def test_where_needed_batched_valid_is_false_exactly_on_padding_rows(chunk):
    batch = 16
    need = jnp.asarray(np.arange(batch) % 3 == 0)   # 6 needing rows: chunk 5 pads 4 rows, chunk 3 none
    count = int(need.sum())
    x = jnp.arange(batch, dtype=jnp.int32) + 100
    seen = []

    def batched_work(valid, xs):
        jax.debug.callback(lambda v, r: seen.append((np.asarray(v), np.asarray(r))), valid, xs)
        return jnp.where(valid, xs, -7)

    out = jax.jit(lambda: where_needed_batched(need, chunk, batched_work, (x,), jnp.zeros(batch, jnp.int32)))()
    out.block_until_ready()
    rows_seen = np.concatenate([r for _, r in seen])
    valid_seen = np.concatenate([v for v, _ in seen])
    num_chunks = -(-count // chunk)
    assert len(seen) == num_chunks
    assert valid_seen.sum() == count and not valid_seen[count:].any()
    # the valid rows are the needing rows in index order; padding rows repeat row 0
    assert np.array_equal(rows_seen[:count], np.asarray(x)[np.asarray(need)])
    assert np.all(rows_seen[count:] == 100)
    assert np.array_equal(np.asarray(out), np.where(np.asarray(need), np.asarray(x), 0))


@FORMS
@pytest.mark.parametrize("chunk", [1, 3, 4, 16, 40])
def test_update_where_needed_equals_vmap_where_needed(chunk, form, whole, group, monkeypatch):
    """The carry's rows come from the output being written: each needing row is updated once,
    from its own input row (an earlier chunk's writes never reach a later row)."""
    monkeypatch.setattr(batching, "COMPACTION_GROUP", group)
    batch = 16
    x, y, _, needs = _inputs(200 + chunk, batch)
    carry = {"v": x, "y2": y.astype(jnp.float32)}
    full = jax.vmap(lambda c, y: _work(c["v"], y))(carry, y)

    def batched_work(valid, rows, ys):
        return {**jax.vmap(lambda c, y: _work(c["v"], y))(rows, ys)}

    run = _jit_in_form(form, lambda need: update_where_needed(need, chunk, lambda c, y: _work(c["v"], y), carry,
                                                              (y,), on_accelerator=whole))
    run_batched = _jit_in_form(form, lambda need: update_where_needed_batched(need, chunk, batched_work, carry, (y,),
                                                                              on_accelerator=whole))
    for need in needs:
        for out in (run(jnp.asarray(need)), run_batched(jnp.asarray(need))):
            for k in full:
                expected = np.where(need, np.asarray(full[k]), np.asarray(carry[k]))
                assert np.array_equal(np.asarray(out[k]), expected), (chunk, need, k)


def test_accelerator_form_runs_the_way_the_caller_asks():
    """In the accelerator form ``"whole"`` shows ``fn`` every row once (``valid`` = need, no gather);
    ``"gather"`` and ``"one_hot"`` run sub-batches (here two chunks)."""
    batch, chunk = 16, 5
    need = jnp.asarray(np.arange(batch) % 3 == 0)
    x = jnp.arange(batch, dtype=jnp.int32) + 100
    for way, calls in (("whole", 1), ("gather", 2), ("one_hot", 2)):
        seen = []

        def batched_work(valid, xs):
            jax.debug.callback(lambda v, r: seen.append((np.asarray(v), np.asarray(r))), valid, xs)
            return jnp.where(valid, xs, -7)

        out = _jit_in_form("accelerator", lambda: where_needed_batched(need, chunk, batched_work, (x,),
                                                                       jnp.zeros(batch, jnp.int32), way))()
        out.block_until_ready()
        assert len(seen) == calls, way
        if way == "whole":
            assert np.array_equal(seen[0][0], np.asarray(need)) and np.array_equal(seen[0][1], np.asarray(x))
        assert np.array_equal(np.asarray(out), np.where(np.asarray(need), np.asarray(x), 0))


def test_forced_form_refuses_an_unknown_form():
    with pytest.raises(ValueError, match="form"):
        with forced_form("gpu"):
            pass


def test_the_form_variable_chooses_the_form_and_defaults_to_the_backends_form(monkeypatch):
    from paritygym import backend
    on_this_backend = "cpu" if jax.default_backend() == "cpu" else "accelerator"
    monkeypatch.delenv(backend.FORM_VARIABLE, raising=False)
    assert backend.step_form() == on_this_backend
    assert [backend.form_for_backend(b) for b in ("cpu", "tpu", "gpu", "cuda", "rocm")] == [
        "cpu", "accelerator", "accelerator", "accelerator", "accelerator"]
    for value, form in (("accelerator", "accelerator"), (" Auto ", on_this_backend), ("cpu", "cpu"),
                        ("", on_this_backend)):
        monkeypatch.setenv(backend.FORM_VARIABLE, value)
        assert backend.step_form() == form, value
    monkeypatch.setenv(backend.FORM_VARIABLE, "accelerator")
    with forced_form("cpu"):   # a forced form wins over the variable
        assert backend.step_form() == "cpu"
    monkeypatch.setenv(backend.FORM_VARIABLE, "gpu")
    with pytest.raises(ValueError, match="PARITYGYM_STEP_FORM"):
        backend.step_form()


def test_where_needed_refuses_a_bad_chunk_or_way():
    with pytest.raises(ValueError, match="chunk"):
        where_needed(jnp.ones(4, bool), 0, _work, (jnp.zeros(4, jnp.int32),) * 2, None)
    with pytest.raises(ValueError, match="on_accelerator"):
        where_needed(jnp.ones(4, bool), 2, _work, (jnp.zeros(4, jnp.int32),) * 2, None, on_accelerator="masked")


def test_batched_step_uses_the_envs_own_batched_step():
    class Plain:
        def step(self, key, state, action, params):
            return state + action * params

    class Own(Plain):
        def step_batch(self, keys, states, actions, params):
            return "own"

    keys = jax.random.split(jax.random.key(0), 3)
    out = batched_step(Plain())(keys, jnp.arange(3), jnp.ones(3, jnp.int32), 2)
    assert np.array_equal(np.asarray(out), [2, 3, 4])
    assert batched_step(Own())(keys, None, None, None) == "own"


def test_batched_step_ignores_a_wrapped_envs_batched_step():
    # gymnax-style wrappers forward unknown attributes to the env inside: the wrapper's own step
    # must run, not the inner env's step_batch.
    class Own:
        def step(self, key, state, action, params):
            return state

        def step_batch(self, keys, states, actions, params):
            return "inner"

    class Wrapper:
        def __init__(self, env):
            self._env = env

        def __getattr__(self, name):
            return getattr(self._env, name)

        def step(self, key, state, action, params):
            return state + action

    keys = jax.random.split(jax.random.key(0), 3)
    out = batched_step(Wrapper(Own()))(keys, jnp.arange(3), jnp.ones(3, jnp.int32), None)
    assert np.array_equal(np.asarray(out), [1, 2, 3])


@pytest.mark.parametrize("group, chunk", [(8, 3), (8, 16), (1024, 5)])
def test_accelerator_sub_batches_move_every_dtype_exactly(group, chunk, monkeypatch):
    """The one-hot products move each value's bytes: int32 and uint32 extremes, float32 NaN, -0.0
    and infinities (bit for bit), bool, 8- and 16-bit ints and typed PRNG keys come out of a sub-batch
    and back as the gathered form gives them, in groups and with trips that overflow a chunk."""
    monkeypatch.setattr(batching, "COMPACTION_GROUP", group)
    batch = 16
    rng = np.random.default_rng(group + chunk)
    edge_floats = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38], np.float32)
    carry = {
        "i32": jnp.asarray(np.concatenate([[-2**31, 2**31 - 1], rng.integers(-2**31, 2**31, batch - 2)]).astype(np.int32)),
        "u32": jnp.asarray(rng.integers(0, 2**32, (batch, 2), dtype=np.uint64).astype(np.uint32)),
        "f32": jnp.asarray(np.resize(edge_floats, (batch, 3))),
        "flag": jnp.asarray(rng.random((batch, 2, 2)) < 0.5),
        "i8": jnp.asarray(rng.integers(-128, 128, batch).astype(np.int8)),
        "u8": jnp.asarray(rng.integers(0, 256, batch).astype(np.uint8)),
        "i16": jnp.asarray(rng.integers(-2**15, 2**15, batch).astype(np.int16)),
        "key": jax.random.split(jax.random.key(3), batch),
    }
    need = jnp.asarray(rng.random(batch) < 0.6)

    def update(c, salt):
        bits = jax.random.bits(c["key"], (), jnp.uint32)
        return {"i32": c["i32"] ^ salt, "u32": c["u32"] + bits, "f32": -c["f32"], "flag": ~c["flag"],
                "i8": c["i8"] - 1, "u8": c["u8"] * 3, "i16": c["i16"] + salt.astype(jnp.int16),
                "key": jax.random.fold_in(c["key"], salt)}

    salt = jnp.arange(batch, dtype=jnp.int32) * 7919
    outs = {}
    for form in ("cpu", "accelerator"):
        run = _jit_in_form(form, lambda n: update_where_needed(n, chunk, update, carry, (salt,), "one_hot"))
        outs[form] = run(need)
    for k in carry:
        a, b = outs["cpu"][k], outs["accelerator"][k]
        if k == "key":
            a, b = jax.random.key_data(a), jax.random.key_data(b)
        assert a.dtype == b.dtype and np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8)), k


def test_accelerator_sub_batch_padding_rows_copy_their_groups_first_row(monkeypatch):
    """In the accelerator's sub-batches ``valid`` is False exactly on the padding rows, which copy
    the first row of their group (a real row, so ``fn``'s inner loops see a real state), and their
    results are dropped."""
    monkeypatch.setattr(batching, "COMPACTION_GROUP", 8)
    batch, chunk = 16, 6                      # 3 rows per group and trip
    need = jnp.asarray(np.isin(np.arange(batch), [1, 2, 3, 4, 9]))
    x = jnp.arange(batch, dtype=jnp.int32) + 100
    seen = []

    def batched_work(valid, xs):
        jax.debug.callback(lambda v, r: seen.append((np.asarray(v), np.asarray(r))), valid, xs)
        return jnp.where(valid, xs, -7)

    out = _jit_in_form("accelerator", lambda: where_needed_batched(need, chunk, batched_work, (x,),
                                                                   jnp.zeros(batch, jnp.int32), "one_hot"))()
    out.block_until_ready()
    # group 0 needs rows 1-4 (two trips), group 1 row 9 (one): trip 0 takes 1, 2, 3 | 9, pad, pad;
    # trip 1 takes 4, pad, pad | pad, pad, pad (padding: group 0's row 0 = 100, group 1's row 8 = 108)
    assert len(seen) == 2
    assert np.array_equal(seen[0][1], [101, 102, 103, 109, 108, 108]) and np.array_equal(seen[0][0], [1, 1, 1, 1, 0, 0])
    assert np.array_equal(seen[1][1], [104, 100, 100, 108, 108, 108]) and np.array_equal(seen[1][0], [1, 0, 0, 0, 0, 0])
    assert np.array_equal(np.asarray(out), np.where(np.asarray(need), np.asarray(x), 0))
