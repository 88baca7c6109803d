"""Session-wide test setup shared by every env's tests."""

from __future__ import annotations

import os
import pathlib
import tempfile
from collections import OrderedDict

import pytest

from paritygym.cache import enable_compilation_cache
from paritygym.memory import keep_freed_memory

TESTS = pathlib.Path(__file__).resolve().parent

# Compile each program once per machine, not once per test session: JAX's persistent cache.
_CACHE_DIR = pathlib.Path(os.environ.get("PARITYGYM_JAX_CACHE", TESTS.parent / ".jax_cache"))
enable_compilation_cache(_CACHE_DIR)

# The test processes run many XLA:CPU programs: keep their freed buffers (paritygym.memory).
keep_freed_memory()


def _write_cache_entries_atomically() -> None:
    """Makes the cache safe for several processes at once (pytest-xdist workers, or two sessions).

    JAX 0.9.2 (pinned) writes an entry with a plain ``Path.write_bytes`` and reads it without a lock
    (locks only come with a size limit, which then needs an access-time file beside every entry
    and fails on entries other processes wrote without one). So another process could read a
    half-written entry (zlib's checksum rejects it: a warning and a recompile) or two writers of one
    key could interleave. Here each entry is written to a file of its own and renamed into place:
    readers see a whole entry or none."""
    from jax._src import lru_cache

    if not hasattr(lru_cache, "_CACHE_SUFFIX"):  # another JAX: keep its own writes
        return
    jax_put = lru_cache.LRUCache.put

    def put(self: lru_cache.LRUCache, key: str, value: bytes) -> None:
        if self.eviction_enabled or not key:  # JAX's locked writes, or JAX's own error for an empty key
            return jax_put(self, key, value)
        path = pathlib.Path(self.path) / f"{key}{lru_cache._CACHE_SUFFIX}"
        if path.exists():
            return
        descriptor, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
        try:
            os.fchmod(descriptor, 0o644)  # as JAX's own entries (mkstemp makes 0o600)
            with os.fdopen(descriptor, "wb") as file:
                file.write(value)
            os.replace(partial, path)
        except BaseException:
            pathlib.Path(partial).unlink(missing_ok=True)
            raise

    lru_cache.LRUCache.put = put


_write_cache_entries_atomically()

# pytest-xdist (`scripts/test.sh` runs `-n <cores> --dist loadgroup`): the tests of one group run in
# one worker process, in order, so a session fixture or a per-process compiled program is built once
# per suite. The group is the test's folder under tests/ (one env), except for these test-id prefixes:
_GROUP_OVERRIDES: tuple[tuple[str, str], ...] = (
    # Uses pokejax.parity.compiled_engine, which the pokemon L3 tests compile once per process, and
    # Showdown, whose first use installs it (npm ci) into one folder.
    ("train/test_l4_pokemon.py", "pokemon"),
    # Compile large programs of their own (minutes of CPU cold): a group each, so that the
    # scheduler can balance them against the env folders.
    ("pokemon/test_ppo_smoke.py::test_example_smoke", "pokemon-ppo-smoke"),
    ("tcg/test_ppo_smoke.py::test_example_smoke", "tcg-ppo-smoke"),
    # Compiles the batched engine in both step forms (~175 CPU s cold): a group of its own, so that
    # the scheduler can balance it against the pokemon folder.
    ("pokemon/test_accelerator_l3.py", "pokemon-accelerator-l3"),
    # Builds the wheel, installs it in a fresh virtualenv and steps every env there (a few minutes cold).
    ("paritygym/test_wheel.py", "wheel"),
    # Gen 9: one group per file (below), so that its ~25 CPU minutes spread over the workers instead of
    # running after Gen 1's tests in the pokemon group. Each process compiles Gen 9's programs once
    # (the persistent cache shares them between processes) and starts its own Gen 9 Showdown bridge.
    ("pokemon/gen9/", "pokemon-gen9/"),
)

# CPU seconds of each group, cold cache, two workers on two cores (`--durations=0` of a whole run, summed by
# group; 2026-12-06). Workers take the costliest groups first, so that a long group does not start last; only
# the order of the groups depends on these figures. (Gen 9's test_env.py: 570 before its full conformance run
# became slow, 2026-12-07.)
_GROUP_CPU_SECONDS: dict[str, float] = {
    "pokemon": 640, "tcg": 345, "pokemon-gen9/test_env.py": 250, "halfcheetah": 240, "climb": 165,
    "pong": 150, "pokemon-gen9/test_design.py": 150, "train": 150, "pokemon-gen9/test_bots.py": 120,
    "pokemon-ppo-smoke": 105, "paritygym": 95, "pokemon-gen9/test_l3_restricted.py": 95,
    "pokemon-gen9/test_l3_lock.py": 75, "pokemon-accelerator-l3": 60, "pokemon-gen9/test_l3_power.py": 60,
    "gameboy": 25,
    # last: the wheel's smoke compiles every env's jitted reset and step, the programs the envs' check_env tests
    # compiled by then (JAX's persistent cache keys them without file paths: the installed copy hits them)
    "wheel": 0,
}


def xdist_group(nodeid: str) -> str:
    """The pytest-xdist group of the test ``nodeid`` ("tests/<folder>/<file>::<name>"). Groups come
    only from here: ``@pytest.mark.xdist_group`` marks are not used (on pytest 9.2 xdist cannot read them)."""
    test_id = nodeid.removeprefix("tests/")
    for prefix, group in _GROUP_OVERRIDES:
        if test_id.startswith(prefix):
            return group + test_id.removeprefix(prefix).split("::", 1)[0] if group.endswith("/") else group
    return test_id.split("/", 1)[0] if "/" in test_id.split("::", 1)[0] else "tests"


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: ignored where xdist is not installed
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` with the groups of ``xdist_group``. (xdist 3.8's own loadgroup reads
    ``xdist_group`` marks by renaming node ids, which pytest 9.2 no longer lets it do.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class EnvGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid)

        def _assign_work_unit(self, node) -> None:
            # The queue holds every group once collection is done: costliest first, then the most tests.
            # (xdist 3.x keeps it in an OrderedDict; pyproject pins pytest-xdist below 4.)
            if not isinstance(self.workqueue, OrderedDict):
                raise pytest.UsageError("tests/conftest.py's scheduler needs pytest-xdist 3.x (see pyproject.toml)")
            for group in sorted(self.workqueue, key=lambda g: (-_GROUP_CPU_SECONDS.get(g, 0), -len(self.workqueue[g]))):
                self.workqueue.move_to_end(group)
            super()._assign_work_unit(node)

    return EnvGroupScheduling(config, log)
