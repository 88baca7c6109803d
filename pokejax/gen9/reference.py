"""The Gen 9 reference: the pinned Pokémon Showdown under node, driven through ``showdown/gen9.js``.

Same plumbing as Gen 1's ``pokejax.reference.ShowdownBridge`` (one long-lived node process, JSON
lines), another script: team generation with Showdown's stats, ``getDamage`` with forced crit and
damage roll, the accuracy check, the turn order of two moves, a battle of two given teams as Showdown
builds and starts it, and which choices its ``Side.choose`` accepts. Only tests and tools import this.
"""

from __future__ import annotations

import atexit
import os
import pathlib
import subprocess
from typing import Any, Sequence

from pokejax.reference import ShowdownBridge, _require, ensure_showdown

SCRIPT = pathlib.Path(__file__).resolve().parent / "showdown" / "gen9.js"


class Gen9Bridge(ShowdownBridge):
    """One node process running ``gen9.js``; use as a context manager, or call ``close()``."""

    def __init__(self, timeout: float = 120.0):
        package = ensure_showdown()
        node = _require("node", "running Pokémon Showdown, the reference of pokejax's Gen 9 engine")
        self.timeout = timeout
        self._proc = subprocess.Popen(
            [node, str(SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=package.parent.parent, text=True, bufsize=1,
            env={**os.environ, "POKEJAX_SHOWDOWN_PACKAGE": str(package)},
        )
        self._buffer = ""
        atexit.register(self.close)

    def teams(self, seeds: Sequence[Sequence[int]], format: str = "gen9randombattle") -> list[dict[str, Any]]:
        """Showdown's teams at these PRNG seeds (4 words each): ``[{"sets", "stats"}]``."""
        return self.call("teams", format=format, seeds=[list(map(int, s)) for s in seeds])["teams"]

    def damage(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """``BattleActions.getDamage`` for each case (see gen9.js for the fields)."""
        return self.call("damage", cases=list(cases))["results"]

    def accuracy(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """``BattleActions.hitStepAccuracy`` for each case (see gen9.js)."""
        return self.call("accuracy", cases=list(cases))["results"]

    def order(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Which side moves first for each case (see gen9.js)."""
        return self.call("order", cases=list(cases))["results"]

    def battle(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """A battle of two teams (``{"teams": [sets, sets], "seed": [4 words]}``) as Showdown holds it
        before ``start`` and at its first request: ``[{"created", "started"}]`` (see gen9.js)."""
        return self.call("battle", cases=list(cases))["results"]

    def choices(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Which of pokejax's 14 actions ``Side.choose`` accepts for each side of an edited started
        battle: ``[{"accepted": [[14 bools], [14 bools]], "request"}]`` (see gen9.js)."""
        return self.call("choices", cases=list(cases))["results"]

    def play(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Whole battles of given teams at given seeds, played with pokejax's action numbers:
        ``[{"teams", "seed", "actions": [[a1, a2], ...], "trace"?}]`` -> ``[{"states": [...]}]``, the
        comparable state after the start and after each decision (see gen9.js ``play``)."""
        return self.call("play", cases=list(cases))["results"]

    def speed_sort(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """``Battle.speedSort`` of handler records (``{"handlers": [{id, order, priority, speed, subOrder}], "seed"}``;
        order None: no order) -> ``[{"ids": the sorted ids, "draws": [[m, n, result], ...]}]`` (see gen9.js)."""
        return self.call("speedsort", cases=list(cases))["results"]

    def speed(self, battles: int, seed: Sequence[int] = (1, 2, 3, 4), format: str = "gen9randombattle") -> dict[str, Any]:
        """Showdown's own speed on whole random battles (its generator's teams, nothing restricted),
        both players choosing uniformly among what their request offers:
        ``{"decisions", "battles", "seconds", "fallbacks"}`` (see gen9.js ``speed``)."""
        return self.call("speed", battles=int(battles), seed=list(map(int, seed)), format=format)
