"""Fixtures for the Game Boy (emurust) tests.

Blargg's ROMs are test data outside the repository: `../shared/gb-test-roms` next to the clone, or
the folder named by EMURUST_TEST_ROMS. Our own ROMs are built from `emurust/roms/` with sdcc on demand.
"""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def blargg_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("EMURUST_TEST_ROMS", REPO.parent / "shared" / "gb-test-roms"))


@pytest.fixture(scope="session")
def blargg() -> pathlib.Path:
    path = blargg_dir()
    if not (path / "cpu_instrs").is_dir():
        pytest.fail(f"Blargg's test ROMs not found at {path}; set EMURUST_TEST_ROMS to the gb-test-roms folder")
    return path


@pytest.fixture(scope="session")
def roms() -> dict[str, bytes]:
    """Every ROM of emurust/roms, built once per session (fails clearly if sdcc is missing)."""
    from emurust.roms import ROMS, rom_bytes

    return {name: rom_bytes(name) for name in ROMS}
