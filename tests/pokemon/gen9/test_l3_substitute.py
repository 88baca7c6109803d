"""L3 and L2 of Substitute (``turn.substitute_moves()``): Gen 9 battles of ``turn.step`` against Showdown,
state and PRNG after every decision (the comparison of ``test_l3_restricted.py``, which includes the HP of
each active's substitute, ``sub``).

Substitute fails (no draw, no Update) with a substitute up or at most a quarter of its user's max HP left;
else it makes a substitute of ``floor(maxhp / 4)`` HP and costs that. The substitute takes the foe's
damaging moves without ``bypasssub`` (sound moves go through): the damage, at most its HP, breaks it at 0;
recoil and drain (rounded up) come from that damage; the Pokémon behind it gets no secondary effect (the
draws are made) while the attacker's own stages and self-switch happen. The foe's status moves without
``bypasssub`` fail against it after their accuracy check.

Teams are restricted pool teams each of whose Pokémon is given Substitute as its first move; the players
pick it half the time.
"""

from __future__ import annotations

from pokejax.gen9 import state as S
from pokejax.gen9 import turn
from pokejax.gen9.data import tables
from tests.pokemon.gen9.test_l3_confusion import _battles
from tests.pokemon.gen9.test_l3_hp import _led, _row
from tests.pokemon.gen9.test_l3_restricted import assert_identical, pp_spent

SUBSTITUTE = turn.substitute_moves()
TABLES = tables.load()
SUB_INDEX = TABLES.move_index["substitute"]


def _subs(states):
    """Over the decisions: substitutes made, failed Substitutes (one up, or too little HP), substitutes
    hit (their HP lowered) and broken."""
    seen = dict(made=0, failed=0, hit=0, broken=0)
    for a, b in zip(states, states[1:]):
        for i in range(len(a.turn)):
            for s in range(2):
                k = int(a.active[i, s])
                if int(b.active[i, s]) != k:
                    continue
                used = pp_spent(a, b, i, s, SUB_INDEX)
                if used and a.sub_hp[i, s] == 0 and b.sub_hp[i, s] > 0:
                    seen["made"] += 1
                elif used:
                    seen["failed"] += 1
                if a.sub_hp[i, s] > 0 and b.sub_hp[i, s] < a.sub_hp[i, s]:
                    seen["hit"] += 1
                    seen["broken"] += int(b.sub_hp[i, s] == 0 and b.hp[i, s, k] > 0)
    return seen


def test_moves_are_covered():
    assert SUBSTITUTE == ["substitute"]
    assert set(SUBSTITUTE) <= set(turn.restricted_moves())


def test_substitute_battles_match_showdown(showdown9):
    """32 battles of teams holding Substitute on every Pokémon, chosen half the time."""
    states, actions, sets, seeds = _battles(SUBSTITUTE, 32, 101)
    assert_identical(showdown9, states, actions, sets, seeds)
    seen = _subs(states)
    print(seen)
    assert seen["made"] >= 60 and seen["failed"] >= 20 and seen["hit"] >= 40 and seen["broken"] >= 20, seen




def _users():
    out = []
    for s in ("dragapult", "meowscarada", "weavile", "greninja", "garchomp", "zeraora"):
        try:
            out.append(_row(s, ["substitute"]))
        except KeyError:
            pass
    return out


def test_l2_substitute_then_attacks(showdown9):
    """Fast leads using Substitute against slow leads attacking: Earthquake, Scald (its burn secondary does
    not reach behind the substitute), Drain Punch (drain from the substitute's damage, rounded up) and Brave
    Bird (recoil from it): the substitute is made (a quarter of the max HP, paid in HP), takes the hit
    and breaks or holds; the Pokémon behind it loses nothing to the hit."""
    count = 24
    foes = [_row(s, [m]) for s, m in (("hippowdon", "earthquake"), ("slowbro", "scald"), ("conkeldurr", "drainpunch"),
                                      ("mamoswine", "earthquake"), ("toxapex", "scald"), ("staraptor", "bravebird"))]
    states, actions, sets, seeds = _led(_users(), foes, count, 102, [[0, 0]] * 3)
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[0], states[1]
    made = hit = 0
    for i in range(count):
        quarter = int(a.hp[i, 0, 0]) // 4          # full HP at the start
        if b.sub_hp[i, 0] > 0 or b.hp[i, 0, 0] == a.hp[i, 0, 0] - quarter:
            made += 1
            assert b.hp[i, 0, 0] == a.hp[i, 0, 0] - quarter and b.status[i, 0, 0] == 0
            hit += int(b.sub_hp[i, 0] < quarter)
    assert made >= 16 and hit >= 12, (made, hit)


def test_l2_substitute_against_status_and_sound_moves(showdown9):
    """Substitute against status moves (Will-O-Wisp, Toxic, Thunder Wave, Spore: they fail after their
    accuracy check) and sound moves (Hyper Voice, Boomburst: ``bypasssub``, they hit the Pokémon)."""
    count = 24
    foes = [_row(s, [m]) for s, m in (("sableye", "willowisp"), ("toxapex", "toxic"), ("chansey", "thunderwave"),
                                      ("amoonguss", "spore"), ("sylveon", "hypervoice"), ("primarina", "hypervoice"))]
    states, actions, sets, seeds = _led(_users(), foes, count, 103, [[0, 0]] * 3)
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[0], states[1]
    blocked = sound = 0
    for i in range(count):
        quarter = int(a.hp[i, 0, 0]) // 4
        if b.sub_hp[i, 0] != quarter:
            continue                                      # the foe moved first, or the sound move broke nothing
        if i % 6 < 4:
            blocked += 1
            assert b.status[i, 0, 0] == 0
        else:
            sound += int(b.hp[i, 0, 0] < a.hp[i, 0, 0] - quarter)
    assert blocked >= 10 and sound >= 4, (blocked, sound)


def test_l2_substitute_with_low_hp_fails(showdown9):
    """Substitute every turn against strong attackers breaking it: each one costs a quarter of the max HP,
    so after three the user has at most a quarter left and the next one fails (no draw, no Update); one
    used with a substitute up fails too."""
    count = 24
    foes = [_row(s, [m]) for s, m in (("garchomp", "earthquake"), ("staraptor", "bravebird"),
                                      ("conkeldurr", "drainpunch"), ("mamoswine", "earthquake"))]
    states, actions, sets, seeds = _led(_users(), foes, count, 104, [[0, 0]] * 8)
    assert_identical(showdown9, states, actions, sets, seeds)
    weak = up = 0
    for a, b in zip(states[:8], states[1:9]):
        for i in range(count):
            if a.request[i] != S.REQUEST_MOVE or b.active[i, 0] != 0 or a.active[i, 0] != 0:
                continue
            if b.pp[i, 0, 0, 0] < a.pp[i, 0, 0, 0] and b.sub_hp[i, 0] == 0 and a.sub_hp[i, 0] == 0 \
                    and 4 * int(a.hp[i, 0, 0]) <= int(a.max_hp[i, 0, 0]) and a.hp[i, 0, 0] > 0:
                weak += 1
            up += int(b.pp[i, 0, 0, 0] < a.pp[i, 0, 0, 0] and a.sub_hp[i, 0] > 0)
    assert weak >= 5 and up >= 5, (weak, up)


def test_l2_draining_kiss_into_a_substitute(showdown9):
    """Fast Substitute leads against Hatterene and Primarina: on turn 1 each attacks the other (the foe below
    full HP; the user not with U-turn), then the substitute takes Draining Kiss, whose drain of 3/4 of that damage is rounded up
    (``Math.ceil``; Math.round of a normal hit's drain would differ where it ends in .25)."""
    count = 48
    foes = [_row(s, ["drainingkiss"]) for s in ("hatterene", "primarina")]
    users = [_row(s, ["substitute"]) for s in ("dragapult", "meowscarada", "weavile", "greninja")]
    states, actions, sets, seeds = _led(users, foes, count, 105, [[2, 1], [0, 0]])
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[1], states[2]
    drained = rounded_up = 0
    for i in range(count):
        quarter = int(a.max_hp[i, 0, 0]) // 4
        made = (a.request[i] == S.REQUEST_MOVE and a.sub_hp[i, 0] == 0 and b.pp[i, 0, 0, 0] < a.pp[i, 0, 0, 0]
                and b.hp[i, 0, 0] == a.hp[i, 0, 0] - quarter and (b.active[i] == 0).all() and (a.active[i] == 0).all())
        if not made or b.pp[i, 1, 0, 0] == a.pp[i, 1, 0, 0]:
            continue                                   # no substitute made, or no Draining Kiss into it
        taken = quarter - int(b.sub_hp[i, 0])
        healed = int(b.hp[i, 1, 0]) - int(a.hp[i, 1, 0])
        room = int(a.max_hp[i, 1, 0]) - int(a.hp[i, 1, 0])
        if taken and room:
            drained += 1
            assert healed == min(-(-3 * taken // 4), room), (i, taken, healed, room)
            rounded_up += int(3 * taken % 4 == 1 and healed == -(-3 * taken // 4))
    assert drained >= 12 and rounded_up >= 1, (drained, rounded_up)


def test_l2_multihit_moves_into_a_substitute(showdown9):
    """Fast Substitute leads against slower multi-hit users (Bullet Seed, Rock Blast, Icicle Spear, Surging
    Strikes, Tachyon Cutter, Scale Shot): each hit goes to the substitute while it stands (the same draws,
    at most its HP), the hits after the one that breaks it go to the Pokémon (the loop stops only at the
    Pokémon's 0 HP), and Scale Shot's selfBoost follows a loop that only hit the substitute."""
    count = 48
    foes = [_row(s, [m]) for s, m in (("breloom", "bulletseed"), ("cloyster", "rockblast"), ("lapras", "iciclespear"),
                                      ("urshifurapidstrike", "surgingstrikes"), ("ironcrown", "tachyoncutter"),
                                      ("sandaconda", "scaleshot"))]
    states, actions, sets, seeds = _led(_users(), foes, count, 106, [[0, 0]] * 2)
    assert_identical(showdown9, states, actions, sets, seeds)
    a, b = states[0], states[1]
    through = held = 0
    for i in range(count):
        quarter = int(a.max_hp[i, 0, 0]) // 4
        faster = a.stats[i, 0, 0, 4] > a.stats[i, 1, 0, 4]
        made_first = faster and b.pp[i, 0, 0, 0] < a.pp[i, 0, 0, 0] and b.pp[i, 1, 0, 0] < a.pp[i, 1, 0, 0] \
            and (b.active[i] == 0).all()
        if not made_first or b.hp[i, 0, 0] == 0:
            continue
        if b.sub_hp[i, 0] == 0 and b.hp[i, 0, 0] < a.hp[i, 0, 0] - quarter:
            through += 1                               # broken, then later hits into the Pokémon
        elif b.sub_hp[i, 0] > 0:
            held += 1
            assert b.hp[i, 0, 0] == a.hp[i, 0, 0] - quarter
    print(through, held)
    assert through >= 6 and held >= 2, (through, held)
