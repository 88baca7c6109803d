"""JAX's persistent compilation cache for command-line runs (verify, training examples).

On a CPU, compiling an env step can take minutes; with the cache a second run of the same program
loads it instead. Benchmarks do not use it: they report real compile time.
"""

from __future__ import annotations

import os
import pathlib

import jax


def cache_dir() -> pathlib.Path:
    """``$PARITYGYM_JAX_CACHE``, else ``~/.cache/paritygym/jax``."""
    default = pathlib.Path.home() / ".cache" / "paritygym" / "jax"
    return pathlib.Path(os.environ.get("PARITYGYM_JAX_CACHE", default))


def enable_compilation_cache(path: str | os.PathLike | None = None) -> pathlib.Path:
    """Turns on JAX's persistent compilation cache (programs that took over 0.5 s to compile),
    unless a cache directory is already configured (e.g. by the test suite)."""
    configured = jax.config.jax_compilation_cache_dir
    if configured and path is None:
        return pathlib.Path(configured)
    directory = pathlib.Path(path) if path is not None else cache_dir()
    jax.config.update("jax_compilation_cache_dir", str(directory))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return directory
