"""The Gen 9 stage-1 functions (damage, accuracy, order, the state's ``from_pool``, the legal mask, the
turn ``step`` and its stat-stage change ``_boost``)
are accelerator-first: their programs in the accelerator form hold no control flow on values (no while
loop, cond, scan or host callback), only elementwise arithmetic, gathers and selects; the step's few
gathers read whole table rows, and it has no scatter. The CPU form's step has one loop, of two trips
and no more: the turn's two move actions."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from paritygym.backend import forced_form

from pokejax.gen9 import accuracy, damage, masks, order, pool, turn
from pokejax.gen9 import state as battle_state
from pokejax.gen9.data import tables

FORBIDDEN = {"while", "cond", "scan", "pure_callback", "io_callback", "callback"}
B = 8


def _equations(jaxpr):
    """Every equation of ``jaxpr`` and of the jaxprs inside its equations (loop bodies, calls)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in value if isinstance(value, (list, tuple)) else [value]:
                if hasattr(sub, "jaxpr"):
                    yield from _equations(sub.jaxpr if hasattr(sub.jaxpr, "eqns") else sub.jaxpr.jaxpr)
                elif hasattr(sub, "eqns"):
                    yield from _equations(sub)


def _primitives(jaxpr) -> set[str]:
    return {eqn.primitive.name for eqn in _equations(jaxpr)}


def _damage_args():
    z5, z2, z = jnp.zeros((B, 5), jnp.int32), jnp.zeros((B, 2), jnp.int32), jnp.zeros(B, jnp.int32)
    return dict(move=z, level=z, atk_stats=z5, atk_boosts=z5, atk_types=z2, atk_tera=z + tables.TYPE_NONE,
                atk_burned=z.astype(bool), def_stats=z5, def_boosts=z5, def_types=z2, def_tera=z + tables.TYPE_NONE)


RNG = jnp.zeros((B, 2), jnp.uint32)
CASES = {
    "damage": lambda: jax.make_jaxpr(lambda a: damage.damage(**a, crit=jnp.zeros(B, bool), roll=jnp.zeros(B, jnp.int32)))(_damage_args()),
    "hit": lambda: jax.make_jaxpr(lambda a: damage.hit(RNG, **a))(_damage_args()),
    "accuracy": lambda: jax.make_jaxpr(accuracy.hits)(RNG, jnp.zeros(B, jnp.int32), jnp.zeros(B, jnp.int32),
                                                      jnp.zeros(B, jnp.int32), jnp.zeros((B, 2), jnp.int32),
                                                      jnp.zeros(B, jnp.int32)),
    "order": lambda: jax.make_jaxpr(lambda r, p, s: order.first_mover(r, p, order.action_speed(s, s, s > 0)))(
        RNG, jnp.zeros((B, 2), jnp.int32), jnp.zeros((B, 2), jnp.int32)),
    "from_pool": lambda: jax.make_jaxpr(lambda a, b, r: battle_state.from_pool(pool.load_pool(), a, b, r))(
        jnp.zeros(B, jnp.int32), jnp.ones(B, jnp.int32), RNG),
    "legal_mask": lambda: jax.make_jaxpr(masks.legal_mask)(
        battle_state.from_pool(pool.load_pool(), jnp.zeros(B, jnp.int32), jnp.ones(B, jnp.int32), RNG)),
    "boost": lambda: jax.make_jaxpr(turn._boost)(jnp.zeros((B, 2, 7), jnp.int32), jnp.ones((B, 2, 7), jnp.int32),
                                                 jnp.ones((B, 2), bool)),
    "step": lambda: jax.make_jaxpr(lambda s, a: turn.step(s, a))(   # a fresh trace: the form is read when traced
        battle_state.from_pool(pool.load_pool(), jnp.zeros(B, jnp.int32), jnp.ones(B, jnp.int32), RNG),
        jnp.zeros((B, 2), jnp.int32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_control_flow_on_values(name):
    with forced_form("accelerator"):
        primitives = _primitives(CASES[name]().jaxpr)
    assert not primitives & FORBIDDEN, f"{name} uses {sorted(primitives & FORBIDDEN)}"
    assert "gather" in primitives or "select_n" in primitives   # it did trace the table lookups / masks


def _count(jaxpr, primitive: str) -> int:
    return sum(eqn.primitive.name == primitive for eqn in _equations(jaxpr))


# Batch-indexed gathers are the accelerator's slow op (one lookup per battle; the TPU v5e ran the
# turn 4x slower with a gather per table column and per side/slot read): in the accelerator form the step
# reads each move's table row once (``tables.move_table().at``: move row, stage row, status row, accuracy,
# hit, damage; the type chart's row, the species' weights) as a one-hot matrix product (``tables.take_rows``:
# the TPU v5e ran the env 1.6x faster so), short constant tables (per type, per status) by
# ``tables.small_lookup``'s selects, and everything per side, slot or type column by selects: no gather at
# all. A new per-move column belongs in a MoveTable, a new table in ``take_rows``.
MAX_STEP_GATHERS = 0


def test_the_step_reads_tables_by_rows_and_writes_by_selects():
    st = battle_state.from_pool(pool.load_pool(), jnp.zeros(B, jnp.int32), jnp.ones(B, jnp.int32), RNG)
    trace = lambda: jax.make_jaxpr(lambda s, a: turn.step(s, a))(st, jnp.zeros((B, 2), jnp.int32)).jaxpr  # a fresh trace
    with forced_form("accelerator"):
        jaxpr = trace()
    assert _count(jaxpr, "gather") <= MAX_STEP_GATHERS
    assert _count(jaxpr, "scatter") + _count(jaxpr, "scatter-add") == 0
    with forced_form("cpu"):   # the CPU form reads sides and slots by gathers (faster on XLA:CPU)
        assert _count(trace(), "gather") > MAX_STEP_GATHERS


def _loops(jaxpr) -> list:
    return [eqn for eqn in _equations(jaxpr) if eqn.primitive.name in ("scan", "while")]


def test_the_cpu_form_runs_the_switch_actions_and_the_move_actions_as_loops():
    """XLA:CPU compiles ``_use_move`` once and the turn's switch-in once (a scan of two trips each, no trip
    count read from values: the two switch actions, the two move actions); the accelerator form unrolls the
    two actions (faster on the TPU v5e)."""
    with forced_form("cpu"):
        jaxpr = CASES["step"]().jaxpr
    loops = _loops(jaxpr)
    assert [(eqn.primitive.name, eqn.params.get("length")) for eqn in loops] == [("scan", 2), ("scan", 2)]
    assert not _primitives(jaxpr) & (FORBIDDEN - {"scan"})
    with forced_form("accelerator"):
        assert _loops(CASES["step"]().jaxpr) == []


def test_both_forms_play_the_same_battles():
    """The step traced in the accelerator form (selects) and in the CPU form (gathers) gives the same
    states, bit for bit, over random play of restricted battles (``benchmarks.pokemon_gen9``'s loop:
    random legal actions, ended battles replaced)."""
    from benchmarks.pokemon_gen9 import make_run, restricted_pool

    team_pool = restricted_pool()
    finals = {}
    for form in ("cpu", "accelerator"):
        with forced_form(form):
            run, new_battles = make_run(team_pool, 48)
            st = jax.jit(new_battles, static_argnums=1)(jax.random.key(3), 24)   # distinct buffers (run donates them)
            finals[form], ended = run(st, jax.random.key(4))
        assert int(ended) > 0   # some battles ended and new ones started
    for (path, a), b in zip(jax.tree_util.tree_leaves_with_path(finals["cpu"]), jax.tree.leaves(finals["accelerator"])):
        assert (a == b).all(), jax.tree_util.keystr(path)


# XLA:CPU copies an elementwise producer into every fusion that reads it: without ``turn._keep``
# (the CPU form's shared values computed once) the compiled step had ~180,000 HLO instructions, 1.6e8
# flops at 1,024 battles and a minute's compile; with it ~20,000 and 1.5e7. 40,000 -> 42,000: the
# battle-dependent power rules of ``turn.power_moves()`` (39,631 -> 41,572); 43,000: with recoil, drain
# and healing (``turn.hp_moves()``) beside them, 42,064; 44,500: the self-switch moves
# (``turn.switch_moves()``: the stop after a move action, the resumed turn's queued move), 43,580; 45,500:
# Protect (``turn.protect_moves()``: its stall draw, the blocking, the protect and stall fields cleared on
# fainting and switching, the residual's ties of the volatiles' handlers), 45,146; 46,500: Substitute
# (``turn.substitute_moves()``: the substitute's HP field, the hit into it, its recoil and rounded-up drain,
# the effects it keeps from the target), 46,265. Each
# stage adds ~1-2 K: the bound catches a stage that brings back per-use copies of shared values, not the
# stages' own growth. The multi-hit moves (``turn._later_hits``: up to nine later hits' draws read from
# one table of PRNG jumps and one ``damage.damage`` vectorised over a hit axis, not a copy per hit) added
# ~6 K (42,064 -> 48,028 without the self-switch moves; with Freeze-Dry's effectiveness and the crash
# moves 48,601); 51,777 with all of them; 51,490 with Substitute merged beside them (the later hits split
# between the substitute and the Pokémon). 59,800: Taunt, Encore, Throat Chop and Psychic Noise
# (``turn.lock_moves()``: six per-side fields written at every switch-in and faint, the override, the
# residual's counts, the handlers' ties), 59,119 (56,466 with Taunt and Encore alone) without Substitute, 58,769 with it.
# Rest (its status, turns, heal and ``self_sleep`` written on the user's cell, its sleep draw) 52,874 without those
# two; with Sleep Talk (the called move's row gathers after BeforeMove), Wish, Leech Seed, Haze and Yawn (three more
# residual handler groups, two of them with a draw read) 59,934. All merged: 66,916; with Wish's swaps 67,418.
# 49,200: the two move actions as one loop of two trips (``_use_move`` compiled once), 48,544. 52,800: the residual
# sort's passes replayed on the tracked handlers' positions (``_later_first``, 2,222), the listed volatiles' order
# stamped after each move action (196), a Leech Seed faint clearing every volatile (``_clear_volatiles``), 52,309;
# the weight looked up per use (``_weight``: two [B] gathers, not one of every Pokémon) and the multi-hit
# PRNG jumps as two word arrays (``prng.jump_words``), 52,513. 55,600: the turn's stage marks (``raised`` and
# ``lowered``: two per-side fields cleared at every switch-in and turn end, set at the seven stage changes; Alluring
# Voice and Lash Out read them) and Sticky Web run in the hazards' order, 55,245. 56,000: a non-Ghost's Curse (its
# selfDrops draw and stages) and Rage Fist (``times_attacked``: a per-Pokémon field, the hit loop's count), 55,668.
# 58,600: the forced switches (Roar, Dragon Tail: a third copy of ``_switch_in``, the dragIn after the move actions,
# and ``position``, a per-Pokémon field written at every switch-in), 61,150; the turn's two switch actions as one
# loop of two trips (``_switch_in`` compiled once there), 58,279. 59,000: Tidy Up (both sides' hazards and
# substitutes cleared) and Explosion (its user's faint, the win rule of two sides out at once), 58,689. 59,700: Tri
# Attack's and Dire Claw's status sample (a draw), Belly Drum's HP cost, Take Heart's cure, Endeavor's immunity and
# damage, Clear Smog's stage clearing, Ceaseless Edge's and Stone Axe's hazard after the hit, 59,311. 60,000: the
# selfDrops draw read (Diamond Storm's chance on ``self``), Triple Arrows, Clanging Scales, 59,676. 62,000: Outrage's
# and Petal Dance's ``lockedmove`` (three per-side fields: its start's draw in selfDrops, its end's confusion draw at
# AfterMove and at the residual, cleared at every switch-in and faint), 61,899. 63,000: Giga Impact's ``mustrecharge``
# (the recharge's BeforeMove, its priority and Sucker Punch's read, the mask), 62,706. 65,500: Meteor Beam's and Solar
# Beam's ``twoturnmove`` (the charge's stage change and three fields, MoveAborted, the residual's count-down), 64,991. 66,500: No Retreat's
# volatile and trapping (the mask's Ghost check), Clangorous Soul's condition and cost, 65,948. 69,000: Salt Cure's
# secondary and its residual handlers (both sides in one pass, their masks kept: 73,540 without ``_keep``), 68,616.
# 70,000: the move's result of the turn and of the last (``move_failed``, ``move_failed_last``: set at each step of
# the move that can fail it, Stomping Tantrum's doubling), Fillet Away's cost percentage, 69,517. 71,000: Spirit
# Shackle's ``trapped`` volatile (its secondary; cleared with either active leaving the field), Photon Geyser's
# category, 70,473; Fickle Beam's draw, 70,771; Hyperspace Fury's protect break and species check, 70,818;
# the target's current types read once in ``_use_move``, 70,694. 72,000: rain and sun (``BattleState.weather``: the
# damage modifier, the accuracy and power callbacks, the weather moves, the residual's countdown and its sorts), 71,603.
# 73,000: snow, Reflect, Light Screen and Aurora Veil (``BattleState.screens``; the ModifyDamage sort's draws in the
# multi-hit moves' later hits: one strided slice per number of draws a hit), 72,483. 74,000: Glaive Rush's volatile
# (the accuracy override, the later hits' checks, the doubled damage chained with a screen's in one modifier), 73,381.
MAX_CPU_STEP_HLO_INSTRUCTIONS = 74_000


def test_the_cpu_form_computes_the_steps_shared_values_once():
    from benchmarks.pokemon_gen9 import restricted_pool, step_cost

    if jax.default_backend() != "cpu":
        pytest.skip("the bound is XLA:CPU's")
    with forced_form("cpu"):
        cost = step_cost(B, restricted_pool())
    assert cost["hlo_instructions"] <= MAX_CPU_STEP_HLO_INSTRUCTIONS, cost


def test_the_check_finds_a_cond():
    jaxpr = jax.make_jaxpr(lambda x: jax.lax.cond(x > 0, lambda: x, lambda: -x))(jnp.int32(1))
    assert "cond" in _primitives(jaxpr.jaxpr)
