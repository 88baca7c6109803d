"""The Rust core's own tests (`cargo test --release` in emurust/): per-opcode unit tests, cartridge,
timer, joypad and APU unit tests, and Blargg's ROMs on the core without Python. Slow (it compiles the
crate's test profile); the Blargg ROMs also run through the binding in test_l1_blargg.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from .conftest import REPO, blargg_dir


@pytest.mark.slow
def test_cargo_test_passes():
    cargo = shutil.which("cargo")
    assert cargo, "cargo is required (https://rustup.rs)"
    env = dict(os.environ, EMURUST_TEST_ROMS=str(blargg_dir()))
    proc = subprocess.run([cargo, "test", "--release"], cwd=REPO / "emurust", capture_output=True, text=True, env=env, timeout=3600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    passed = sum(int(n) for n in re.findall(r"test result: ok\. (\d+) passed", out))
    assert passed >= 70, f"expected the unit, opcode and Blargg tests to run, got {passed}\n{out[-2000:]}"
