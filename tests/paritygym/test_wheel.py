"""The built wheel needs no toolchain and no reference system.

Builds the abi3 wheel (``maturin build --release``, which reuses cargo's target folder), installs it
in a fresh virtualenv outside the source tree (its dependencies from the package index, no extras),
and runs the installed package with PATH holding only the virtualenv's ``bin``: no cargo, no node,
no C compiler, no sdcc, and neither MuJoCo nor PyBoy installed. There, ``paritygym --version`` and
``paritygym list`` work, every registered env makes, resets and steps (``wheel_smoke.py``), and
``paritygym verify`` of an env whose reference is missing exits with status 2 and says what to install.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tomllib

import jax
import pytest

import paritygym

REPO = pathlib.Path(__file__).resolve().parents[2]
SMOKE = pathlib.Path(__file__).with_name("wheel_smoke.py")


def builtin_envs() -> list[str]:
    """The ids paritygym itself registers (the test suite adds toy envs from tests/)."""
    return [i for i in paritygym.registered_envs() if not paritygym.spec(i).entry_point.startswith("tests.")]


def _run(cmd: list[str], timeout: float, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A fresh virtualenv with only the wheel installed, and the bare environment to run it in."""
    work = tmp_path_factory.mktemp("wheel")
    build = _run([sys.executable, "-m", "maturin", "build", "--release", "--out", str(work / "dist")], 900, cwd=REPO)
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = (work / "dist").glob("paritygym-*-abi3-*.whl")
    venv = work / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], 120)
    assert made.returncode == 0, made.stderr
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)], 900)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    home = work / "home"
    home.mkdir()
    bare = {
        "PATH": str(venv / "bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        # The suite's persistent compilation cache: a second run of this test loads the smoke's programs.
        "PARITYGYM_JAX_CACHE": jax.config.jax_compilation_cache_dir or str(home / "jax-cache"),
    }
    return {"venv": venv, "env": bare, "cwd": work, "wheel": wheel}


def _in_venv(installed: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    bin_dir = installed["venv"] / "bin"
    return _run([str(bin_dir / args[0]), *args[1:]], timeout, env=installed["env"], cwd=installed["cwd"])


def test_the_bare_environment_has_no_toolchain_and_no_reference(installed):
    path = installed["env"]["PATH"]
    for program in ("cargo", "rustc", "node", "npm", "cc", "gcc", "sdcc"):
        assert shutil.which(program, path=path) is None, program
    probe = _in_venv(installed, "python", "-c",
                     "import importlib.util as u, paritygym; "
                     "print([m for m in ('mujoco', 'pyboy') if u.find_spec(m)]); print(paritygym.__file__)")
    assert probe.returncode == 0, probe.stderr
    missing, module_file = probe.stdout.split("\n")[:2]
    assert missing == "[]"
    assert pathlib.Path(module_file).is_relative_to(installed["venv"]) and not pathlib.Path(module_file).is_relative_to(REPO)


def test_version_and_list(installed):
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    out = _in_venv(installed, "paritygym", "--version")
    assert out.returncode == 0 and out.stdout.strip() == f"paritygym {version}", out.stdout + out.stderr
    listed = _in_venv(installed, "paritygym", "list")
    assert listed.returncode == 0, listed.stderr
    ids = [line.split()[0] for line in listed.stdout.splitlines() if line and not line.startswith(" ")]
    assert ids == builtin_envs() and len(ids) >= 7, listed.stdout


# The game engines, whose single-env step compiles for 30-110 s each on a 2-core CPU: in the default suite they are
# made (their package data loaded) and the other envs stepped; the slow suite steps every env.
ENGINE_ENVS = ("PokemonGen1Random-v0", "PokemonGen1RandomPool-v0", "PokemonGen9Random-v0", "TCGPocketA1-v0")


def _smoke(installed, make_only: tuple[str, ...]) -> None:
    args = ["--make-only", ",".join(make_only)] if make_only else []
    smoke = _in_venv(installed, "python", str(SMOKE), *args, timeout=1500)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr[-4000:]
    lines = smoke.stdout.splitlines()[1:]
    assert [line.split(":")[0] for line in lines] == builtin_envs(), smoke.stdout
    made = [line.split(":")[0] for line in lines if ": made, reset and step traced" in line]
    assert made == [i for i in builtin_envs() if i in make_only], smoke.stdout


def test_every_registered_env_makes_and_the_light_ones_step(installed):
    assert set(ENGINE_ENVS) <= set(builtin_envs())
    _smoke(installed, ENGINE_ENVS)


@pytest.mark.slow  # the game engines' steps compile for minutes in the fresh virtualenv
def test_every_registered_env_steps(installed):
    _smoke(installed, ())


@pytest.mark.parametrize(
    "env_id,advice",
    [
        ("Pong-v0", "apt-get install gcc"),
        ("HalfCheetah-v0", "pip install 'paritygym[verify]'"),
        ("Climb-v0", "pip install 'paritygym[verify]'"),
        ("GameBoy-v0", "apt-get install sdcc"),
        ("PokemonGen1Random-v0", "apt-get install npm"),
    ],
)
def test_verify_without_the_reference_says_what_to_install(installed, env_id, advice):
    out = _in_venv(installed, "paritygym", "verify", env_id, "--level", "3", "--episodes", "1")
    assert out.returncode == 2, out.stdout + out.stderr[-4000:]
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"paritygym verify {env_id}: ") and advice in last, out.stderr[-4000:]
    assert "Traceback" not in out.stderr
