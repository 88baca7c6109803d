"""Helpers for the per-rule L1 tests: scripted battles that must show a rule at work.

A rule test is two small packed teams, a script of both players' choices and the protocol lines
(regular expressions) that prove the rule was exercised. ``check_rule``:

1. asks Showdown alone (the bridge's ``scan`` command) which of many battle seeds make each
   expected line appear when the script is played, so that rare events (a 1/256 miss, a
   five-hit Pin Missile, a freeze) are found rather than hoped for;
2. plays the first matching seed of every pattern, plus a few fixed seeds, in both engines with
   ``parity.play_battle`` (full state and PRNG state compared after every decision);
3. asserts every expected line appears in the protocol log of a battle that was compared, so the
   test cannot pass without the rule having been played.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

import numpy as np

from pokejax import parity
from pokejax.reference import choice_actions

FIXED_SEEDS = 2          # seeds played whether or not they show anything
SEARCH_SEEDS = 3000      # battle seeds Showdown alone tries per rule


def packed(team: Sequence[tuple]) -> str:
    """A packed Showdown team from (species, moves, level) tuples: DVs 15, full stat experience."""
    return "]".join(f"{species}|||NoAbility|{','.join(moves)}||255,255,255,255,255,255||30,30,30,30,30,30||{level}|"
                    for species, moves, level in team)


def M(slot: int) -> int:   # noqa: N802 - reads like the action table: move slot
    return slot


def S(slot: int) -> int:   # noqa: N802 - switch to team slot
    return 4 + slot


@dataclasses.dataclass(frozen=True)
class Rule:
    """One mechanic in a scripted battle; ``expect`` maps a name to a protocol-log regex
    (multiline: ``^``/``$`` match at line ends; lines are joined with newlines)."""
    team1: tuple
    team2: tuple
    script: tuple
    expect: dict


def scripted(script: Sequence[Sequence[int]], counts: dict | None = None):
    """A ``parity.play_battle`` policy: the script, an illegal action replaced by the first legal
    one (the same fallback as the bridge's ``scan``), None after the script. ``counts`` (optional)
    tallies the scripted choices "followed" and "replaced"."""
    def policy(step, choices, rng):
        if step >= len(script):
            return None
        out = []
        for action, c in zip(script[step], choices):
            legal = choice_actions(c)
            if legal and counts is not None:
                counts["followed" if action in legal else "replaced"] += 1
            out.append(None if not legal else (action if action in legal else legal[0]))
        return out
    return policy


class RecordingBridge:
    """The Showdown bridge, keeping the protocol log of every battle played through it."""

    def __init__(self, bridge):
        self._bridge = bridge
        self.lines: list[str] = []

    def start(self, *args, **kwargs):
        reply = self._bridge.start(*args, **kwargs)
        self.lines += reply["log"]
        return reply

    def choose(self, *args, **kwargs):
        reply = self._bridge.choose(*args, **kwargs)
        self.lines += reply["log"]
        return reply

    def destroy(self, battle_id):
        self._bridge.destroy(battle_id)


def candidate_seeds(count: int = SEARCH_SEEDS, base: int = 0) -> list[list[int]]:
    rng = np.random.default_rng([7919, base])
    return rng.integers(0, 65536, size=(count, 4)).tolist()


def check_rule(showdown, rule: Rule, search: int = SEARCH_SEEDS, fixed: int = FIXED_SEEDS) -> dict[str, int]:
    """Play ``rule`` in both engines at the fixed seeds and at the first seed Showdown shows each
    expected line at; fail on any divergence or on an expected line never played. Returns how
    many compared battles showed each expected line."""
    teams = [packed(rule.team1), packed(rule.team2)]
    seeds = candidate_seeds(search)
    names = list(rule.expect)
    matches = showdown.scan(teams, rule.script, seeds, [rule.expect[n] for n in names], limit=1)
    never = [n for n, m in zip(names, matches) if not m]
    assert not never, f"Showdown never showed {never} in {search} seeds of this script: the scenario is wrong"
    chosen = sorted(set(range(fixed)) | {m[0] for m in matches})
    shown = {n: 0 for n in names}
    for index in chosen:
        recorder = RecordingBridge(showdown)
        result = parity.play_battle(recorder, seeds[index], teams=teams, policy=scripted(rule.script),
                                    max_steps=len(rule.script) + 1)
        assert result.matched, f"seed #{index} {seeds[index]} diverged:\n{result}"
        log = "\n".join(recorder.lines)
        for n in names:
            shown[n] += bool(re.search(rule.expect[n], log, re.MULTILINE))
    missing = [n for n, c in shown.items() if not c]
    assert not missing, f"no compared battle showed {missing}"
    return shown


def showdown_log(showdown, rule: Rule, seed: Sequence[int]) -> list[str]:
    """The protocol log of ``rule``'s script at one battle seed, Showdown only (for writing rules)."""
    teams = [packed(rule.team1), packed(rule.team2)]
    reply = showdown.start(list(seed), p1_team=teams[0], p2_team=teams[1])
    lines, policy = list(reply["log"]), scripted(rule.script)
    try:
        for step in range(len(rule.script)):
            if reply["state"]["ended"]:
                break
            actions = policy(step, reply["choices"], None)
            reply = showdown.choose(reply["id"], *({"move": a} if a is not None and a < 4 else
                                                   ({"switch": a - 4} if a is not None else None) for a in actions))
            lines += reply["log"]
    finally:
        showdown.destroy(reply["id"])
    return lines
