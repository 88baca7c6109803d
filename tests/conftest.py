"""Session-wide test setup shared by every env's tests."""

from __future__ import annotations

import os
import pathlib

from paritygym.cache import enable_compilation_cache

# Compile each program once per machine, not once per test session: JAX's persistent cache.
_CACHE_DIR = pathlib.Path(os.environ.get("PARITYGYM_JAX_CACHE", pathlib.Path(__file__).resolve().parents[1] / ".jax_cache"))
enable_compilation_cache(_CACHE_DIR)
