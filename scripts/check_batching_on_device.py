"""``paritygym.batching``'s one-hot sub-batches against its gathered ones on whatever device JAX has, bit for bit:
every dtype the engines carry (int32, uint32, float32 with NaN, infinities, -0.0 and subnormals, bool, int8, int16,
PRNG keys), groups of rows, padding. On the TPU (``. .tpu/setup.sh`` first) this checks the matrix unit's products
exactly as the CPU test (``tests/paritygym/test_batching.py``) checks XLA:CPU's.

    python3 scripts/check_batching_on_device.py        # prints one line per case, exits 1 on a difference
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

from paritygym import batching
from paritygym.backend import forced_form

CASES = ((4096, 1024, 512), (4096, 1024, 64), (1000, 1024, 100))   # (batch, group, chunk)
EDGE_FLOATS = np.array([np.nan, -0.0, np.inf, -np.inf, 1e-45, -3.4e38, 1.5, 7e-39], np.float32)


def _carry(rng: np.random.Generator, batch: int) -> dict:
    return {"i32": jnp.asarray(rng.integers(-2**31, 2**31, (batch, 5)).astype(np.int32)),
            "u32": jnp.asarray(rng.integers(0, 2**32, (batch, 2), dtype=np.uint64).astype(np.uint32)),
            "f32": jnp.asarray(np.resize(EDGE_FLOATS, (batch, 3))), "flag": jnp.asarray(rng.random((batch, 4)) < 0.5),
            "i8": jnp.asarray(rng.integers(-128, 128, batch).astype(np.int8)),
            "i16": jnp.asarray(rng.integers(-2**15, 2**15, batch).astype(np.int16)),
            "key": jax.random.split(jax.random.key(3), batch)}


def _update(carry: dict, salt):
    return {"i32": carry["i32"] ^ salt, "u32": carry["u32"] + jax.random.bits(carry["key"], (), jnp.uint32),
            "f32": -carry["f32"], "flag": ~carry["flag"], "i8": carry["i8"] - 1,
            "i16": carry["i16"] + salt.astype(jnp.int16), "key": jax.random.fold_in(carry["key"], salt)}


def _bits(x) -> np.ndarray:
    if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.ascontiguousarray(np.asarray(x)).view(np.uint8)


def main() -> int:
    print(jax.devices(), flush=True)
    rng = np.random.default_rng(0)
    different = 0
    default_group = batching.COMPACTION_GROUP
    try:
        for batch, group, chunk in CASES:
            batching.COMPACTION_GROUP = group
            carry = _carry(rng, batch)
            need = jnp.asarray(rng.random(batch) < 0.3)
            salt = jnp.arange(batch, dtype=jnp.int32) * 7919
            out = {}
            with forced_form("accelerator"):
                for way in ("gather", "one_hot"):
                    out[way] = jax.jit(lambda n, w=way: batching.update_where_needed(n, chunk, _update, carry, (salt,), w))(need)
            bad = [k for k in carry if not np.array_equal(_bits(out["gather"][k]), _bits(out["one_hot"][k]))]
            different += bool(bad)
            print(f"batch {batch} group {group} chunk {chunk}: " + (f"DIFFERENT in {bad}" if bad else "identical"),
                  flush=True)
    finally:
        batching.COMPACTION_GROUP = default_group
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
