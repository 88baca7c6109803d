"""Missing reference systems give an error that says what to install."""

from __future__ import annotations

import pytest

from paritygym import cli
from paritygym.references import MissingReference, import_reference, missing_package, require_program


def test_a_missing_reference_package_names_its_install_command():
    error = missing_package(ModuleNotFoundError("No module named 'mujoco'", name="mujoco"))
    assert isinstance(error, MissingReference) and "pip install 'paritygym[verify]'" in str(error)
    assert missing_package(ModuleNotFoundError("No module named 'numpyy'", name="numpyy")) is None


def test_import_reference_raises_missing_reference_for_reference_packages(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pyboy", None)  # importing it now raises ModuleNotFoundError
    with pytest.raises(MissingReference, match="pyboy==2.8.1"):
        import_reference("pyboy")


def test_a_missing_program_names_how_to_get_it(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingReference, match="apt-get install nodejs npm"):
        require_program("node", "running a reference")


def test_cli_verify_prints_the_advice_and_exits_2(monkeypatch, capsys):
    def hook(**_):
        raise MissingReference("'node' was not found on PATH; install Node.js")

    monkeypatch.setattr("paritygym.registry.load", lambda path: hook)
    assert cli.main(["verify", "Pong-v0", "--level", "1", "--episodes", "1"]) == 2
    assert capsys.readouterr().err.strip() == "paritygym verify Pong-v0: 'node' was not found on PATH; install Node.js"


def test_cli_verify_lets_other_errors_through(monkeypatch):
    def hook(**_):
        raise RuntimeError("a real failure")

    monkeypatch.setattr("paritygym.registry.load", lambda path: hook)
    with pytest.raises(RuntimeError, match="a real failure"):
        cli.main(["verify", "Pong-v0", "--level", "1", "--episodes", "1"])
