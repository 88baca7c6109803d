"""L1: Showdown's Gen 5 LCG and its derived draws, against Showdown's own PRNG class."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pokejax import prng


@pytest.fixture(scope="module")
def jitted():
    def run(state, ns, lows, highs, kinds):
        # kinds: 0 random(n), 1 random(low, high), 2 randomChance(low, n)
        def body(st, x):
            n, lo, hi, kind = x
            st1, a = prng.random_int(st, n)
            _, b = prng.random_range(st, lo, hi)
            _, c = prng.random_chance(st, lo, n)
            out = jnp.where(kind == 0, a, jnp.where(kind == 1, b, c.astype(jnp.int32)))
            return st1, out
        return jax.lax.scan(body, state, (ns, lows, highs, kinds))
    return jax.jit(run)


def test_test_vector_from_seed_1_2_3_4():
    state = prng.seed_from_words([1, 2, 3, 4])
    outs = []
    for _ in range(6):
        state, u = prng.next_u32(state)
        outs.append(int(u))
    assert outs == [0x79068476, 0xE22232E8, 0xA9FA2546, 0x22414360, 0xD7D2F437, 0x9329B629]


def test_masked_draw_does_not_advance():
    state = prng.seed_from_words([1, 2, 3, 4])
    same, _ = prng.random_int(state, 256, when=False)
    moved, _ = prng.random_int(state, 256, when=True)
    assert np.array_equal(same, state) and not np.array_equal(moved, state)


@pytest.mark.parametrize("case", range(6))
def test_draw_sequences_match_showdown(showdown, jitted, case):
    rng = np.random.default_rng(case)
    seed = [int(x) for x in rng.integers(0, 65536, 4)]
    calls, ns, lows, highs, kinds = [], [], [], [], []
    for _ in range(400):
        kind = int(rng.integers(0, 3))
        if kind == 0:
            n = int(rng.choice([2, 4, 8, 146, 163, 256, 65535, int(rng.integers(1, 1000))]))
            calls.append(["random", n]); ns.append(n); lows.append(0); highs.append(1)
        elif kind == 1:
            lo = int(rng.integers(0, 300)); hi = lo + int(rng.integers(1, 300))
            calls.append(["random", lo, hi]); ns.append(1); lows.append(lo); highs.append(hi)
        else:
            d = int(rng.choice([256, 2, 100, 5])); k = int(rng.integers(0, d + 2))
            calls.append(["randomChance", k, d]); ns.append(d); lows.append(k); highs.append(1)
        kinds.append(kind)
    ref = showdown.prng(seed, calls)
    expected = [int(r) if not isinstance(r, bool) else int(r) for r in ref["results"]]
    state, got = jitted(prng.seed_from_words(seed), *(jnp.array(v, jnp.int32) for v in (ns, lows, highs, kinds)))
    assert [int(x) for x in got] == expected
    assert prng.to_showdown(state) == ref["seed"]


def test_seed_formats():
    assert prng.to_showdown(prng.seed_from_showdown("gen5,0001000200030004")) == "1,2,3,4"
    assert prng.to_showdown(prng.seed_from_showdown("65535,0,7,9")) == "65535,0,7,9"
    with pytest.raises(ValueError):
        prng.seed_from_words([70000, 0, 0, 0])


def test_pool_and_jump_ahead_match_sequential_draws():
    state = prng.seed_from_words([9, 8, 7, 6])
    outs = prng.pool(state, 40)
    s = state
    for k in range(40):
        s, u = prng.next_u32(s)
        assert int(u) == int(outs[k])
        assert np.array_equal(np.asarray(prng.advance_by(state, k + 1)), np.asarray(s))
    assert np.array_equal(np.asarray(prng.advance_by(state, 0)), np.asarray(state))
    for n in (1, 2, 8, 163, 256, 65535):
        for u in (0, 1, 0x7FFFFFFF, 0xFFFFFFFF, int(outs[3])):
            assert int(prng.scale(np.uint32(u), n)) == (u * n) >> 32


def test_jump_words_match_sequential_draws():
    state = jnp.stack([prng.seed_from_words([9, 8, 7, 6]), prng.seed_from_words([65535, 0, 1, 65535])])
    hi, lo = prng.jump_words(state, 37)
    assert hi.shape == lo.shape == (2, 37)
    s = state
    for k in range(37):
        s = prng.advance(s)
        assert np.array_equal(np.stack([hi[:, k], lo[:, k]], axis=-1), np.asarray(s)), k
    with pytest.raises(ValueError):
        prng.jump_words(state, prng.POOL_SIZE + 1)


def test_shape_probe_draws_showdowns_sequence():
    """``python -m benchmarks.pokemon_shape_probe`` keeps the generator as two word arrays: same draws."""
    from benchmarks import pokemon_shape_probe as shape_probe
    state = prng.seed_from_words([1, 2, 3, 4])
    words = (state[0:1], state[1:2])
    for n in (256, 39, 7, 2, 256):
        words, value = shape_probe._random_int(words, n, jnp.asarray([True]))
        state, expected = prng.random_int(state, n)
        assert int(value[0]) == int(expected)
        assert [int(words[0][0]), int(words[1][0])] == [int(x) for x in np.asarray(state)]
    skipped, _ = shape_probe._random_int(words, 9, jnp.asarray([False]))
    assert [int(skipped[0][0]), int(skipped[1][0])] == [int(words[0][0]), int(words[1][0])]


def test_skip_matches_sequential_advances():
    state = jnp.stack([prng.seed_from_words([1, 2, 3, 4]), prng.seed_from_words([65535, 7, 0, 65535])])
    for max_count in (1, 5, 13, 127):
        for count in sorted({0, 1, max_count // 2, max_count}):
            want = state
            for _ in range(count):
                want = prng.advance(want)
            got = prng.skip(state, jnp.array([count, count]), max_count)
            assert (np.asarray(got) == np.asarray(want)).all(), (max_count, count)
