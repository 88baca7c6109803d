"""Session-wide test setup shared by every env's tests."""

from __future__ import annotations

import os
import pathlib

import jax

# Compile each program once per machine, not once per test session: JAX's persistent cache.
_CACHE_DIR = pathlib.Path(os.environ.get("PARITYGYM_JAX_CACHE", pathlib.Path(__file__).resolve().parents[1] / ".jax_cache"))
jax.config.update("jax_compilation_cache_dir", str(_CACHE_DIR))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
