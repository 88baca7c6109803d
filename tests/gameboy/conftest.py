"""Fixtures for the Game Boy (emurust) tests.

Blargg's ROMs are test data in the repository (`emurust/roms/blargg`, see its SOURCE.md), or the
folder named by EMURUST_TEST_ROMS. Our own ROMs are built from `emurust/roms/` with sdcc on demand.
"""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def blargg_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("EMURUST_TEST_ROMS", REPO / "emurust" / "roms" / "blargg"))


@pytest.fixture(scope="session")
def blargg() -> pathlib.Path:
    path = blargg_dir()
    if not (path / "cpu_instrs").is_dir():
        pytest.fail(f"Blargg's test ROMs not found at {path} (they belong in emurust/roms/blargg; EMURUST_TEST_ROMS overrides)")
    return path


@pytest.fixture(scope="session")
def roms() -> dict[str, bytes]:
    """Every ROM of emurust/roms, built once per session (fails clearly if sdcc is missing)."""
    from emurust.roms import ROMS, rom_bytes

    return {name: rom_bytes(name) for name in ROMS}
