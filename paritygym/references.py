"""What the reference systems need, and a clear error when one is missing.

The envs need none of this: ``make``, ``make_vec`` and training run on the installed package alone.
Only the code that runs a reference (``paritygym verify``, ``paritygym bench --reference``, the tests)
needs MuJoCo, PyBoy, Node.js (Pokémon Showdown), a C compiler (the Pong reference) or sdcc (the Game
Boy test ROMs built from source). When one is missing it raises :class:`MissingReference`, whose
message says what to install; the command line prints it and exits with status 2.
"""

from __future__ import annotations

import importlib
import shutil
from types import ModuleType

#: The optional Python packages of the references: import name -> (what needs it, how to install it).
PYTHON_PACKAGES: dict[str, tuple[str, str]] = {
    "mujoco": ("MuJoCo 4.0.0, the reference of HalfCheetah-v0 and Climb-v0",
               "pip install 'paritygym[verify]'  (or: pip install mujoco==4.0.0 imageio)"),
    "imageio": ("Gymnasium's MuJoCo envs (the HalfCheetah-v0 reference)",
                "pip install 'paritygym[verify]'  (or: pip install imageio)"),
    "pyboy": ("PyBoy 2.8.1, the reference of GameBoy-v0",
              "pip install 'paritygym[verify]'  (or: pip install pyboy==2.8.1)"),
}

#: Programs the references run: name -> how to install it.
PROGRAMS: dict[str, str] = {
    "node": "install Node.js (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org)",
    "npm": "install npm, Node.js's package manager (Debian/Ubuntu: apt-get install npm)",
    "cc": "install a C compiler (Debian/Ubuntu: apt-get install gcc) or set CC",
    "sdcc": "install SDCC, the Game Boy C compiler (Debian/Ubuntu: apt-get install sdcc)",
}


class MissingReference(RuntimeError):
    """A reference system, or a tool one needs, is not installed. The message says what to install."""


def import_reference(module: str) -> ModuleType:
    """Imports a reference's Python package, or raises :class:`MissingReference` saying how to install it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise missing_package(exc) or exc


def missing_package(exc: ModuleNotFoundError) -> MissingReference | None:
    """The :class:`MissingReference` for a failed import of a reference's package (``None`` for others)."""
    top = (exc.name or "").split(".")[0]
    if top not in PYTHON_PACKAGES:
        return None
    what, install = PYTHON_PACKAGES[top]
    error = MissingReference(f"the Python package {top!r} is not installed; it is needed for {what}. Install it: {install}")
    error.__cause__ = exc
    return error


def require_program(name: str, purpose: str, *alternatives: str) -> str:
    """The path of program ``name`` (or the first of ``alternatives`` found), or :class:`MissingReference`."""
    for candidate in (name, *alternatives):
        path = shutil.which(candidate)
        if path is not None:
            return path
    install = PROGRAMS.get(name, f"install {name}")
    raise MissingReference(f"{name!r} was not found on PATH; it is needed for {purpose}. To get it: {install}")
