"""The real reference: Pokémon Showdown 0.11.11 under node, driven through ``showdown/bridge.js``.

``ensure_showdown()`` installs the pinned package (``npm ci``) the first time it is needed;
``ShowdownBridge`` keeps one node process alive and speaks JSON lines with it.  Nothing here is
imported by the engine: only tests, benchmarks and the verification harness use it.
"""

from __future__ import annotations

import atexit
import json
import os
import pathlib
import select
import shutil
import subprocess
import threading
from typing import Any, Sequence

SHOWDOWN_DIR = pathlib.Path(__file__).resolve().parent / "showdown"
SHOWDOWN_VERSION = "0.11.11"
_install_lock = threading.Lock()


class ShowdownError(RuntimeError):
    """The bridge reported an error, died, or timed out."""


def ensure_showdown() -> pathlib.Path:
    """Install ``pokemon-showdown`` into ``pokejax/showdown/node_modules`` if it is missing.

    Uses ``npm ci`` against the committed lockfile (no optional dependencies, no install scripts:
    the simulator needs neither).  Returns the package directory.
    """
    package_dir = SHOWDOWN_DIR / "node_modules" / "pokemon-showdown"
    with _install_lock:
        marker = package_dir / "package.json"
        if marker.exists() and json.loads(marker.read_text())["version"] == SHOWDOWN_VERSION:
            return package_dir
        npm = shutil.which("npm")
        if npm is None:
            raise ShowdownError("npm is required to install Pokémon Showdown (scripts/install_system_deps.sh)")
        result = subprocess.run(
            [npm, "ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=SHOWDOWN_DIR, capture_output=True, text=True,
        )
        if result.returncode != 0 or not marker.exists():
            raise ShowdownError(f"npm ci failed in {SHOWDOWN_DIR}:\n{result.stdout}\n{result.stderr}")
    return package_dir


Seed = Sequence[int]
Choice = str | dict[str, int] | None


class ShowdownBridge:
    """One long-lived node process running many Showdown battles.

    Use as a context manager, or call ``close()``.  Every call raises ``ShowdownError`` on a
    bridge-side error or when no reply arrives within ``timeout`` seconds.
    """

    def __init__(self, timeout: float = 60.0):
        ensure_showdown()
        node = shutil.which("node")
        if node is None:
            raise ShowdownError("node is required to run Pokémon Showdown")
        self.timeout = timeout
        self._proc = subprocess.Popen(
            [node, str(SHOWDOWN_DIR / "bridge.js")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=SHOWDOWN_DIR, text=True, bufsize=1,
        )
        self._buffer = ""
        atexit.register(self.close)

    # -- process plumbing -----------------------------------------------------------------------
    def call(self, cmd: str, **fields: Any) -> dict[str, Any]:
        if self._proc is None or self._proc.poll() is not None:
            raise ShowdownError("the Showdown bridge is not running")
        self._proc.stdin.write(json.dumps({"cmd": cmd, **fields}) + "\n")
        self._proc.stdin.flush()
        line = self._read_line()
        reply = json.loads(line)
        if not reply.pop("ok"):
            raise ShowdownError(reply.get("error", "unknown bridge error"))
        return reply

    def _read_line(self) -> str:
        fd = self._proc.stdout.fileno()
        while "\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                self.close()
                raise ShowdownError(f"no reply from the Showdown bridge within {self.timeout} s")
            chunk = os.read(fd, 1 << 20).decode()
            if not chunk:
                err = self._proc.stderr.read() if self._proc.stderr else ""
                self.close()
                raise ShowdownError(f"the Showdown bridge exited:\n{err}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split("\n", 1)
        return line

    def close(self) -> None:
        proc, self._proc = getattr(self, "_proc", None), None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=5)
        except Exception:
            proc.kill()
            proc.wait()

    def __enter__(self) -> "ShowdownBridge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands ----------------------------------------------------------------------------------
    def start(self, seed: Seed, p1_team: str | None = None, p2_team: str | None = None,
              p1_seed: Seed | None = None, p2_seed: Seed | None = None,
              format: str = "gen1randombattle", trace: bool | str = False) -> dict[str, Any]:
        """Start a battle. Teams are packed Showdown teams, or None to let Showdown generate
        them from the *player* seeds (the battle seed never seeds teams)."""
        return self.call("start", format=format, seed=list(seed), trace=trace,
                         p1={"team": p1_team, "seed": None if p1_seed is None else list(p1_seed)},
                         p2={"team": p2_team, "seed": None if p2_seed is None else list(p2_seed)})

    def choose(self, battle_id: int, p1: Choice, p2: Choice) -> dict[str, Any]:
        """Both players' choices for the pending request (None = Showdown's autoChoose)."""
        return self.call("choose", id=battle_id, p1=p1, p2=p2)

    def destroy(self, battle_id: int) -> None:
        self.call("destroy", id=battle_id)

    def prng(self, seed: Seed, calls: list[list[Any]]) -> dict[str, Any]:
        return self.call("prng", seed=list(seed), calls=calls)

    def generate_team(self, seed: Seed, format: str = "gen1randombattle") -> dict[str, Any]:
        return self.call("generate", format=format, seed=list(seed))

    def damage(self, attacker_set: dict, defender_set: dict, move: str, seed: Seed,
               setup: dict | None = None) -> dict[str, Any]:
        return self.call("damage", p1=attacker_set, p2=defender_set, attacker=0, move=move,
                         seed=list(seed), setup=setup or {})

    def speed(self, battles: int, seed: Seed = (1, 2, 3, 4), format: str = "gen1randombattle") -> dict[str, Any]:
        return self.call("speed", battles=battles, seed=list(seed), format=format)
