"""L3 and L2 of the moves that force their target out (``turn.drag_moves()``: Roar, Whirlwind, Dragon Tail,
Circle Throw): Gen 9 battles of ``turn.step`` against Showdown, state and PRNG after every decision (the
comparison of ``test_l3_restricted.py``, which includes every Pokémon's place in ``side.pokemon``,
``position``, the order the forced switch samples in).

After the move, runAction's ``dragIn`` draws ``random(n)`` over the target side's benched Pokémon in
``side.pokemon`` order and switches that one in at once (its entry hazards; fainting on them); the target's
own move action, if still queued (both moves at priority -6), is cancelled. Nothing is dragged where the
target's side has no other Pokémon (a status one then fails), from behind a substitute (Dragon Tail; Roar and
Whirlwind go through it), from Protect (Dragon Tail; the status ones go through it) or after a miss.

Teams are restricted pool teams each of whose Pokémon is given one of the moves under test as its first
move (Showdown builds a battle of given sets without validating them); the players pick those moves half
the time.
"""

from __future__ import annotations

import numpy as np

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.masks import ACTION_SWITCH_BASE
from tests.pokemon.gen9.test_l3_confusion import _battles, _given
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import DOCUMENT, _usable_teams, assert_identical, move_mask, play

DRAG = turn.drag_moves()


def _dragged(states, actions) -> dict:
    """Over the decisions of a move request: the sides whose active changed with a move action of theirs and
    no mid-turn switch request (``dragged``), those whose new active was not the first benched Pokémon in
    team order (``not_first``: the sample reads ``side.pokemon``'s order), and those whose new active fainted
    on the entry hazards (``fainted_in``)."""
    seen = dict(dragged=0, not_first=0, fainted_in=0)
    for n, (a, b) in enumerate(zip(states, states[1:])):
        for i in range(len(a.turn)):
            if a.request[i] != S.REQUEST_MOVE or n >= len(actions[i]) or b.mid_turn[i]:
                continue
            for s in range(2):
                before, after = int(a.active[i, s]), int(b.active[i, s])
                if before != after and 0 <= actions[i][n][s] < ACTION_SWITCH_BASE:
                    seen["dragged"] += 1
                    benched = [k for k in range(int(a.team_size[i, s])) if k != before and a.hp[i, s, k] > 0]
                    seen["not_first"] += int(after != benched[0])
                    seen["fainted_in"] += int(b.hp[i, s, after] == 0)
    return seen


def test_moves_are_covered():
    assert {"roar", "whirlwind", "dragontail", "circlethrow"} == set(DRAG)
    assert set(DRAG) <= set(turn.restricted_moves())


def test_drag_battles_match_showdown(showdown9):
    """32 battles of teams holding a forcing move on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(DRAG, 32, 91)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _dragged(states, actions)
    print(seen)
    assert seen["dragged"] >= 60 and seen["not_first"] >= 20, seen


def test_l2_roar_mirror_and_dragon_tail_into_substitute(showdown9):
    """Leads that both Roar (priority -6 each: the faster drags the other out, whose Roar is cancelled;
    mirror matches tie on speed), then Dragon Tail leads against Substitute leads (the hit breaks or dents
    the substitute: no switch)."""
    count = 24
    roarers = [_row(s, ["roar", "whirlwind"]) for s in ("arcanine", "hippowdon", "skarmory", "lugia", "tornadus")]
    states, actions, sets, seeds = _led(roarers, roarers, count, 92, [[0, 0], [1, 1]])
    assert_identical(showdown9, states, actions, sets, seeds)
    cancelled = 0
    for i in range(count):
        a, b = states[0], states[1]
        moved = [b.pp[i, s, 0, 0] < a.pp[i, s, 0, 0] for s in range(2)]
        cancelled += int(moved[0] != moved[1])          # one Roar ran, the other was cancelled with its user
    assert cancelled >= 12, cancelled
    tails = [_row(s, ["dragontail", "substitute"]) for s in ("dragonite", "garchomp", "kingdra", "haxorus")]
    subs = [_row(s, ["substitute", "dragontail"]) for s in ("clefable", "blissey", "toxapex", "corviknight")]
    states, actions, sets, seeds = _led(tails, subs, count, 93, [[1, 0], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)


def test_l2_forced_switch_with_no_bench_and_on_hazards(showdown9):
    """Battles of forcing teams with Stealth Rock and Spikes, chosen 70 % of the time, played long: the
    last Pokémon of a side cannot be forced out (Roar fails), and Pokémon dragged in take the hazards
    (some faint on them, ending the battle where it was the last)."""
    count = 24
    rng = np.random.default_rng(94)
    moves = DRAG + ["stealthrock", "spikes"]
    p1 = [_given(DOCUMENT["teams"][int(n)], moves, rng) for n in rng.choice(_usable_teams(), count)]
    p2 = [_given(DOCUMENT["teams"][int(n)], moves, rng) for n in rng.choice(_usable_teams(), count)]
    seeds = [[int(x) for x in rng.integers(0, 65536, 4)] for _ in range(count)]
    states, actions, sets = play(p1, p2, seeds, rng, boost=0.7, prefer=move_mask(moves), max_decisions=200)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _dragged(states, actions)
    print(seen)
    assert seen["dragged"] >= 60 and seen["fainted_in"] >= 2, seen
