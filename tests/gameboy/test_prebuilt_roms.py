"""The ROMs shipped prebuilt (the bundled games an installed wheel runs without sdcc) are exactly what
their sources build to today."""

from __future__ import annotations

import hashlib

import pytest

from emurust import roms


@pytest.mark.parametrize("name", roms.PREBUILT)
def test_prebuilt_rom_equals_a_fresh_build_from_its_sources(name):
    shipped = (roms.PREBUILT_DIR / f"{name}.gb").read_bytes()
    fresh = roms.build(name).read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == hashlib.sha256(fresh).hexdigest(), (
        f"emurust/roms/prebuilt/{name}.gb differs from a build of its sources: run `python -m emurust.roms --prebuilt`"
    )


def test_bundled_game_reads_the_prebuilt_copy(monkeypatch):
    monkeypatch.setattr(roms, "build", lambda *a, **k: pytest.fail("rom_bytes built a prebuilt ROM from source"))
    assert roms.rom_bytes("catch") == (roms.PREBUILT_DIR / "catch.gb").read_bytes()
