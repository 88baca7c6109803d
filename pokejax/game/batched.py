"""``engine.move_step`` for a whole batch, written batched: the common move turn as straight-line code on
one ``[B]`` array per field and side, the rest by the per-battle engine on the battles that need it.

Why. The per-battle engine under ``vmap`` costs ~10-15 us of CPU per battle step on XLA:CPU (packed
rows written by scatters, whole-state selects of ``flip`` and loop carries); the same mechanics as
batched code on separate ``[B]`` arrays cost a small fraction of that (``python -m benchmarks.pokemon_shape_probe``,
docs/dev/progress-pokemon-env.md). Rewriting every rare mechanic in this shape is a
long job, so this module runs the *common* turn here and hands every other battle to
``engine.move_step`` (``paritygym.batching.update_where_needed``): same results, battle by battle.

The common turn (``eligible``): a move request where no lock or volatile this code does not model is
active on either side (partial trapping, Bide, Thrash, Rage, Disable, Leech Seed),
and each side either switches or uses a move of the common kinds (Struggle included): damage (fixed,
level-based, Psywave, Super Fang, OHKO, or from the formula; multi-hit; drain, Dream Eater, recoil,
Jump Kick's crash, Hyper Beam and its recharge turn, Counter, Explosion / Self-Destruct; a secondary
stat drop, status, flinch or confusion), a status move aimed at the foe (status, stat drops,
confusion, Conversion, Transform, Mimic), a self-targeting stat / Reflect / Light Screen / Mist /
Focus Energy / Minimize / Defense Curl / Recover / Soft-Boiled / Rest / Haze / Substitute /
no-effect move, Mirror Move (when the move it may call is one of these), or a two-turn move (Sky
Attack, Solar Beam, Dig, Fly, ...: both turns, Dig / Fly's invulnerability). Substitutes (hits into
them, what they block, confusion and crash damage with them up), sleep, freeze, paralysis,
confusion, Toxic, switching in, faints, the win check and the Endless Battle Clause are handled
here. Every move of Showdown's gen-1 random-battle sets is a common one, so in random battles every
move request is a common turn; with teams of any moves ~84% are.

Every function follows the engine function of the same name (``engine.py``) restricted to the
common turn; ``tests/pokemon/test_batched.py`` checks the whole state against ``engine.move_step``
on states from random play.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.backend import accelerator_form
from paritygym.batching import update_where_needed
from pokejax import prng
from pokejax.data import tables
from pokejax.data.tables import Effect
from pokejax.game import engine, mechanics
from paritygym.lookup import take_rows
from pokejax.rows import MoveTable, small_lookup
from pokejax.game.state import (REQUEST_ENDED, REQUEST_MOVE, REQUEST_START, REQUEST_SWITCH, STORE, VOLATILE_START,
                                WINNER_NONE, WINNER_P1, WINNER_P2, WINNER_TIE, Active, BattleState, Side)

I32 = jnp.int32

# ---------------------------------------------------------------------------------------------
# which moves the common turn runs
# ---------------------------------------------------------------------------------------------
_TABLES = tables.load()
_effect = np.asarray(_TABLES.move_effect)
_self = np.asarray(_TABLES.move_targets_self).astype(bool)
_COMMON_FOE = ~_self & np.isin(_effect, (Effect.NONE, Effect.NOTHING, Effect.HYPER_BEAM, Effect.COUNTER,
                                         Effect.SUPER_FANG, Effect.PSYWAVE, Effect.OHKO, Effect.DREAM_EATER,
                                         Effect.CRASH, Effect.CONVERSION, Effect.CHARGE, Effect.CHARGE_INVULNERABLE,
                                         Effect.TRANSFORM, Effect.MIMIC))
_COMMON_SELF = _self & np.isin(_effect, (Effect.NONE, Effect.NOTHING, Effect.SCREEN, Effect.MIST, Effect.FOCUS_ENERGY,
                                         Effect.SELF_VOLATILE_NOOP, Effect.RECOVER, Effect.REST, Effect.HAZE,
                                         Effect.SUBSTITUTE, Effect.MIRROR_MOVE))
_common = _COMMON_FOE | _COMMON_SELF
_common[[tables.NOMOVE, tables.CANNOTMOVE]] = False
_common[tables.STRUGGLE] = True
COMMON_MOVE = jnp.asarray(_common)
# a move that may run from the commit's last selection (a thawed Pokémon's, a two-turn move's second
# turn), and a move Mirror Move may call (none: it fails)
_queued = _common.copy()
_queued[[tables.NOMOVE, tables.CANNOTMOVE]] = True
QUEUED_OK = jnp.asarray(_queued)
_callable = _common.copy()
_callable[0] = True
CALLABLE_OK = jnp.asarray(_callable)


# the columns of a move: the accelerator form reads all of them as one row (``pokejax.rows``: a TPU
# gathers a row at a batch of indices about as fast as one column), the CPU form a gather per column
# read (its program as before); the row also holds the move type's line of the type chart
_MOVE_COLUMNS = ("type", "category", "power", "accuracy", "high_crit", "self", "ignore_immunity", "multihit",
                 "recoil_num", "recoil_den", "drain", "fixed", "selfdestruct", "status", "confuses", "boosts",
                 "sec_chance", "sec_kind", "sec_status", "sec_boosts", "effect", "two_turn", "keeps_last_damage",
                 "is_reflect", "self_flag")
_MOVE_ROWS = MoveTable({**{name: np.asarray(getattr(engine, "MOVE_" + name.upper())) for name in _MOVE_COLUMNS},
                        "chart": np.asarray(mechanics.TYPE_CHART)[np.asarray(engine.MOVE_TYPE)]})


class _Columns:
    """``engine.MOVE_<NAME>[move]`` as ``.name``: one gather per column read (the CPU form)."""

    def __init__(self, move):
        self._move = move

    def __getattr__(self, name: str):
        return getattr(engine, "MOVE_" + name.upper())[self._move]


def _move_columns(move):
    """The columns of ``move`` ([B] move indices) by name: ``.type``, ``.power``, ``.boosts`` ([B, 7])..."""
    return _MOVE_ROWS.at(move) if accelerator_form() else _Columns(move)


def _effectiveness(mv, defender_types):
    """``mechanics.effectiveness`` of the move of ``mv`` (``_move_columns``) on ``defender_types`` [B, 2],
    from the row's type-chart line by selects (the accelerator form)."""
    chart = [mv.chart[:, t] for t in range(mv.chart.shape[-1])]
    return jnp.stack([_at(chart, defender_types[:, k]) for k in range(defender_types.shape[-1])], -1)


def _lookup(values, index):
    """``values[index]`` for a short constant table: a gather in the CPU form, selects in the accelerator form."""
    return small_lookup(np.asarray(values), index) if accelerator_form() else values[index]


def unbatched_moves(moves) -> list[str]:
    """Showdown ids of the moves in ``moves`` (a host array of move indices; 0 marks an empty move
    slot) that the common turn does not run: a battle with any of them needs ``engine.move_step``."""
    ids = np.unique(np.asarray(moves))
    return [_TABLES.move_ids[i] for i in ids if i != 0 and not _common[i]]


# ---------------------------------------------------------------------------------------------
# fields: one [B] array per field, side and element
# ---------------------------------------------------------------------------------------------

def _unpack(cls, data) -> list[dict]:
    """Packed rows ``(side 0 [B, N], side 1 [B, N])`` -> per side ``{name: [B] array or list of
    [B] arrays}`` (int32, bool for the boolean fields)."""
    sides = []
    for row in data:
        row = row.astype(I32)
        side = {}
        for name, (offset, length) in cls._layout.items():
            cols = [row[:, offset + j] for j in range(length)]
            if name in cls.BOOL:
                cols = [c != 0 for c in cols]
            side[name] = cols[0] if length == 1 else cols
        sides.append(side)
    return sides


def _pack(cls, sides: list[dict]) -> tuple:
    rows = []
    for side in sides:
        cols = []
        for name, (_, length) in cls._layout.items():
            value = side[name]
            cols.extend([value] if length == 1 else value)
        rows.append(jnp.stack([c.astype(I32) for c in cols], axis=1).astype(STORE))
    return tuple(rows)


def _at(values: list, index):
    """``values[index]`` for a list of [B] arrays and a [B] index."""
    out = values[0]
    for j in range(1, len(values)):
        out = jnp.where(index == j, values[j], out)
    return out


def _set(side: dict, on, **fields) -> None:
    """``engine.set_active`` / ``set_side`` on one side's dict, in place, where ``on``."""
    for name, value in fields.items():
        old = side[name]
        if isinstance(old, list):
            side[name] = [jnp.where(on, v, o) for v, o in zip(value, old)]
        else:
            side[name] = jnp.where(on, jnp.asarray(value).astype(old.dtype), old)


def _select(pick_first, x: dict, y: dict) -> dict:
    """Field by field: ``x`` where ``pick_first`` else ``y``."""
    out = {}
    for name, value in x.items():
        if isinstance(value, list):
            out[name] = [jnp.where(pick_first, a, b) for a, b in zip(value, y[name])]
        else:
            out[name] = jnp.where(pick_first, value, y[name])
    return out


def _rarely(on, fn, dicts: tuple) -> None:
    """``fn(*dicts)`` (updating the field dicts in place) under ``lax.cond(any(on))``: a rare
    mechanic's selects cost nothing in the calls where no battle of the batch needs it. Only the
    fields ``fn`` writes go through the cond (found by tracing ``fn`` once beforehand), so the call
    that skips copies those and no more. ``fn`` may read closed-over values but must not draw."""
    written = []

    def probe(ds):
        new = [dict(x) for x in ds]
        fn(*new)
        written[:] = [[k for k in x if y[k] is not x[k]] for x, y in zip(ds, new)]
        return 0

    jax.eval_shape(probe, [dict(x) for x in dicts])

    def run(ds):
        new = [dict(x) for x in ds]
        fn(*new)
        return [{k: y[k] for k in keys} for y, keys in zip(new, written)]

    def skip(ds):
        return [{k: x[k] for k in keys} for x, keys in zip(ds, written)]

    out = jax.lax.cond(jnp.any(on), run, skip, [dict(x) for x in dicts])
    for x, changed in zip(dicts, out):
        x.update(changed)


class _Turn:
    """The mutable state of one batched turn: ``act[s]`` / ``side[s]`` field dicts, the battle
    fields, the generator (two [B] words) and the read-only team facts of each side's active."""

    def __init__(self, st: BattleState):
        self.act = _unpack(Active, st.active.data)
        self.side = _unpack(Side, st.side.data)
        self.hi, self.lo = st.rng[:, 0], st.rng[:, 1]
        self.count = jnp.zeros_like(st.turn)
        self.last_damage = st.last_damage
        self.request = st.request
        self.winner = st.winner
        self.turn = st.turn
        self.team = st.team.wide()
        self.team_facts = [None, None]
        self.refresh_team_facts()

    def refresh_team_facts(self, sides=(0, 1)):
        """Read-only facts of each side's team for the rules (after a switch, again: only ``sides``)."""
        team = self.team
        six = jnp.arange(6)[None, :]
        for s in sides:
            slot = self.act[s]["slot"]
            here = six == slot[:, None]
            pick = lambda x: jnp.sum(jnp.where(here, x, 0), axis=1)
            exists = six < team.size[:, s, None]
            stats = team.stats[:, s]
            self.team_facts[s] = dict(
                max_hp=pick(stats[..., 0]), own=[pick(stats[..., 1 + j]) for j in range(5)],
                level=pick(team.level[:, s]), species=pick(team.species[:, s]),
                speed_iv=pick(team.ivs[:, s, :, tables.SPE + 1]), speed_ev=pick(team.evs[:, s, :, tables.SPE + 1]),
                # the benched Pokémon's part of the Sleep / Freeze Clause tests and of has_bench
                bench_asleep=jnp.any(~here & (team.hp[:, s] > 0) & (team.status[:, s] == tables.SLP)
                                     & team.status_by_foe[:, s], axis=1),
                bench_frozen=jnp.any(~here & (team.status[:, s] == tables.FRZ), axis=1),
                has_bench=jnp.any(exists & ~here & ~team.fainted[:, s], axis=1))

    def barrier(self, *extra, team: bool = False):
        """Materialise the turn state (and ``extra``; the team and its facts too where ``team``):
        route it through a ``lax.cond`` whose predicate XLA cannot fold (``optimization_barrier`` is
        removed early on XLA:CPU). No kernel after this point re-evaluates the chains of selects and
        generator steps that produced these values; without it XLA's fusion duplicated them into
        every consumer (a 66 MB program, 5 ms per battle step at batch 1,024)."""
        fields = [self.act, self.side, self.hi, self.lo, self.count, self.last_damage, self.request, self.winner,
                  self.turn, extra]
        if team:
            fields += [self.team, self.team_facts]
        fields = self._materialise(fields)
        (self.act, self.side, self.hi, self.lo, self.count, self.last_damage, self.request, self.winner,
         self.turn, extra) = fields[:10]
        if team:
            self.team, self.team_facts = fields[10:]
        return extra[0] if len(extra) == 1 else extra

    def _materialise(self, fields):
        """``fields`` through a ``lax.cond`` whose predicate XLA cannot fold (the generator word is
        never 0 once its low bit is set): the identity, written out once. In the accelerator form an
        ``optimization_barrier`` instead, which the TPU backend keeps: no conditional to launch, and
        no copies of the fields into and out of its branches."""
        if accelerator_form():
            return jax.lax.optimization_barrier(fields)
        always = (self.lo[0] | jnp.uint32(1)) != 0
        return jax.lax.cond(always, lambda f: f, lambda f: jax.tree_util.tree_map(jnp.zeros_like, f), fields)

    def checkpoint(self, dicts: tuple, *values):
        """``barrier`` inside a move: the generator, ``last_damage``, the field dicts ``dicts`` (those
        the move writes: the turn's own ``act`` / ``side`` dicts, updated in place) and ``values``. The
        rest of the turn state (the other dicts, the team and its facts) stays out of the cond: fewer
        buffers through it, fewer copies."""
        fields = self._materialise([self.hi, self.lo, self.count, self.last_damage, dicts, values])
        self.hi, self.lo, self.count, self.last_damage, new_dicts, values = fields
        for old, new in zip(dicts, new_dicts):
            old.update(new)
        return values[0] if len(values) == 1 else values

    def repeat(self, keep_going, fn, dicts: tuple, loop):
        """``while keep_going(loop): loop = fn(*dicts, loop)`` as a ``lax.while_loop`` (its body traced
        and compiled once); ``fn`` updates the dicts and the turn's generator and ``last_damage`` (all
        that goes through the loop) in place."""
        names = ("hi", "lo", "count", "last_damage")

        def body(carry):
            values, ds, loop = carry
            saved = [getattr(self, n) for n in names]
            for n, v in zip(names, values):
                setattr(self, n, v)
            ds = [dict(x) for x in ds]
            loop = fn(*ds, loop)
            out = ([getattr(self, n) for n in names], ds, loop)
            for n, v in zip(names, saved):
                setattr(self, n, v)
            return out

        values, ds, loop = jax.lax.while_loop(lambda carry: keep_going(carry[2]), body,
                                              ([getattr(self, n) for n in names], [dict(x) for x in dicts], loop))
        for n, v in zip(names, values):
            setattr(self, n, v)
        for old, new in zip(dicts, ds):
            old.update(new)
        return loop

    _STATE = ("act", "side", "hi", "lo", "count", "last_damage", "request", "winner", "turn", "team", "team_facts")

    def twice(self, fn, extra):
        """``extra = fn(extra)`` twice, as a ``lax.while_loop`` of two passes over the whole turn state:
        the body is traced and compiled once (the two movers of a turn run the same code; unrolled, the
        move turn was two thirds of the env program's XLA kernels)."""
        def body(carry):
            k, values, extra = carry
            saved = [getattr(self, n) for n in self._STATE]
            for n, v in zip(self._STATE, values):
                setattr(self, n, v)
            extra = fn(extra)
            out = (k + 1, [getattr(self, n) for n in self._STATE], extra)
            for n, v in zip(self._STATE, saved):
                setattr(self, n, v)
            return out

        start = (jnp.zeros((), I32), [getattr(self, n) for n in self._STATE], extra)
        _, values, extra = jax.lax.while_loop(lambda carry: carry[0] < 2, body, start)
        for n, v in zip(self._STATE, values):
            setattr(self, n, v)
        return extra

    # ---- randomness -------------------------------------------------------------------------
    def draw(self, low, high, on):
        """``engine.draw``: Showdown's ``random(low, high)``, only where ``on``."""
        on = jnp.asarray(on, bool)
        new_hi, new_lo = prng.advance_words(self.hi, self.lo)
        # materialised at every draw: the generator words are a chain of selects through the whole
        # turn, which XLA's fusion would otherwise re-evaluate from the last barrier in each consumer
        # (6.08 -> 5.2-5.4 CPU us per battle for the move turn at batch 1,024, compile 14 -> 12 s)
        self.hi, self.lo, new_hi = self._materialise([jnp.where(on, new_hi, self.hi), jnp.where(on, new_lo, self.lo),
                                                      new_hi])
        self.count = self.count + on.astype(I32)
        low = jnp.asarray(low, I32)
        return low + prng.scale(new_hi, jnp.asarray(high, I32) - low)

    def chance(self, numerator, denominator, on):
        return self.draw(0, denominator, on) < numerator

    # ---- the acting order ------------------------------------------------------------------
    # While the two movers act, the turn state is kept in the acting frame: side 0 of ``act``,
    # ``side``, ``team`` and ``team_facts`` is the side that acts now. ``orient`` puts the real sides
    # in that order (and back: it is its own inverse) with one select per field; ``flip`` hands the
    # turn to the other side by swapping the two halves, which costs no select.
    def orient(self, swap):
        """Swap the two sides where ``swap`` ([B] bool)."""
        keep = ~swap
        self.act = [_select(keep, self.act[0], self.act[1]), _select(keep, self.act[1], self.act[0])]
        self.side = [_select(keep, self.side[0], self.side[1]), _select(keep, self.side[1], self.side[0])]
        self.team_facts = [_select(keep, self.team_facts[0], self.team_facts[1]),
                           _select(keep, self.team_facts[1], self.team_facts[0])]
        self.team = jax.tree_util.tree_map(
            lambda x: jnp.where(keep.reshape((-1,) + (1,) * (x.ndim - 1)), x, x[:, ::-1]), self.team)

    def flip(self):
        self.act, self.side, self.team_facts = self.act[::-1], self.side[::-1], self.team_facts[::-1]
        self.team = jax.tree_util.tree_map(lambda x: x[:, ::-1], self.team)


# ---------------------------------------------------------------------------------------------
# the common turn
# ---------------------------------------------------------------------------------------------

def _usable(a: dict):
    return [(a["moves"][j] != 0) & (a["pp"][j] > 0) for j in range(4)]   # no Disable in the common turn


def _struggles(a: dict):
    """No usable move: the commit makes it Struggle."""
    usable = _usable(a)
    return ~(usable[0] | usable[1] | usable[2] | usable[3])


def _keeps_last_selection(a: dict):
    """Asleep, frozen, recharging or mid-charge: the commit keeps the last selected move (a two-turn
    move's second turn, or none of its own that runs)."""
    return (a["status"] == tables.SLP) | (a["status"] == tables.FRZ) | a["must_recharge"] | (a["two_turn_move"] != 0)


def eligible(st: BattleState, actions) -> jax.Array:
    """bool[B]: the battles whose step this module runs itself (the others go to ``engine.move_step``).
    A state not in a move request is eligible (nothing happens to it but the step's bookkeeping)."""
    act = _unpack(Active, st.active.data)
    side = _unpack(Side, st.side.data)
    ok = jnp.ones(st.request.shape, bool)
    switches, move_now, mirror = [], [], []
    for s in range(2):
        a = act[s]
        quiet = ((a["trapped"] == 0) & (a["trap_lock_move"] == 0) & (a["fake_trapped"] == 0)
                 & (a["bide_time"] == 0) & (a["locked_move"] == 0) & ~a["rage"] & (a["disable_move"] == 0)
                 & ~a["leech_seed"] & ~a["maybe_locked"])
        struggle = _struggles(a)
        no_move = _keeps_last_selection(a)
        chosen = _at(a["moves"], jnp.clip(actions[:, s], 0, 3))
        move = jnp.where(no_move, side[s]["last_selected_move"], jnp.where(struggle, tables.STRUGGLE, chosen))
        move_ok = jnp.where(no_move, QUEUED_OK[move], COMMON_MOVE[move])
        switches.append(actions[:, s] >= engine.ACTION_SWITCH_BASE)
        move_now.append(move)
        mirror.append(~switches[s] & ~no_move & (move == engine.MV_MIRROR_MOVE))
        ok = ok & quiet & (switches[s] | move_ok)
    # Mirror Move calls the foe's last move: the one it has, the one it may use first this turn, or
    # (the foe's own Mirror Move) the user's last move; all must be moves this module runs
    for s in range(2):
        f = 1 - s
        calls_ok = (CALLABLE_OK[act[f]["last_move"]] & (switches[f] | CALLABLE_OK[move_now[f]])
                    & CALLABLE_OK[act[s]["last_move"]])
        ok = ok & (~mirror[s] | calls_ok)
    return (st.request != REQUEST_MOVE) | ok


def _boost_stats(turn: _Turn, a: dict, deltas: list, on, from_foe_status_move):
    """``engine.boost_stats`` on ``a`` (deltas: 7 [B] arrays). Returns success."""
    on = on & (a["hp"] > 0)
    deltas = [jnp.where(a["mist"] & from_foe_status_move & (dv < 0), 0, dv) for dv in deltas]
    changed_any = jnp.zeros_like(on)
    boosts, modified = list(a["boosts"]), list(a["modified"])
    for j in range(7):
        dv, b = deltas[j], a["boosts"][j]
        blocked = ((dv > 0) & (b >= 6)) | ((dv < 0) & (b <= -6))
        raised = jnp.clip(b + dv, -6, 6)
        at_cap = jnp.zeros_like(on)
        if j < 5:
            m = a["modified"][j]
            at_cap = ((dv > 0) & (m == 999)) | ((dv < 0) & (m == 1))
        new_b = jnp.where(at_cap, raised - jnp.sign(dv), raised)
        changed = (dv != 0) & ~blocked & ~at_cap
        applied = (dv != 0) & ~blocked
        boosts[j] = jnp.where(applied, new_b, b)
        if j < 5:
            re = mechanics.staged_stat(a["stored"][j], boosts[j])
            re = jnp.where(dv > 0, jnp.minimum(re, 999), re)
            modified[j] = jnp.where(changed, re, a["modified"][j])
        changed_any = changed_any | changed
    _set(a, on, boosts=boosts, modified=modified)
    # materialised: each stage and stat is a chain of selects that later consumers would re-evaluate
    # (the move turn 5.1 -> 4.7 CPU us per battle at batch 1,024)
    a["boosts"], a["modified"], ok = turn._materialise([a["boosts"], a["modified"], on & changed_any])
    return ok


def _penalised(stats: list, status) -> list:
    """``mechanics.apply_status_penalties`` on a list of 5 [B] stats: paralysis quarters Speed, burn
    halves Attack (floor, at least 1)."""
    out = list(stats)
    out[tables.SPE] = jnp.where(status == tables.PAR, jnp.maximum(stats[tables.SPE] // 4, 1), stats[tables.SPE])
    out[tables.ATK] = jnp.where(status == tables.BRN, jnp.maximum(stats[tables.ATK] // 2, 1), stats[tables.ATK])
    return out


def _stat_modification_error(foe: dict, on):
    """After a successful stage change, the foe re-suffers its par / brn penalty."""
    _set(foe, on, modified=_penalised(foe["modified"], foe["status"]))


def _damage_hp(turn: _Turn, x: dict, amount, on, sets_last_damage: bool):
    hp = x["hp"]
    on = on & (hp > 0)
    uncapped = jnp.where(amount != 0, jnp.maximum(amount, 1), 0)
    dealt = jnp.minimum(uncapped, hp)
    _set(x, on, hp=hp - dealt)
    if sets_last_damage:
        turn.last_damage = jnp.where(on, uncapped, turn.last_damage)
    return jnp.where(on, dealt, 0)


def _heal(x: dict, max_hp, amount, on):
    hp = x["hp"]
    on = on & (amount > 0) & (hp > 0) & (hp < max_hp)
    _set(x, on, hp=jnp.minimum(hp + amount, max_hp))


def _set_status(turn: _Turn, x: dict, tx: dict, status, on, by_foe=True, ignore_immunity: bool = False):
    """``engine.set_status`` on ``x`` (``tx``: its team facts). Returns success."""
    on = on & (x["hp"] > 0) & (x["status"] != status)
    if not ignore_immunity:
        poison = (status == tables.PSN) | (status == tables.TOX)
        poison_type = engine._TABLES.type_names.index("Poison")
        on = on & ~(poison & ((x["types"][0] == poison_type) | (x["types"][1] == poison_type)))
    turn.draw(0, 2, on)   # Sleep Clause Mod / Freeze Clause Mod handler tie
    asleep = tx["bench_asleep"] | ((x["hp"] > 0) & (x["status"] == tables.SLP) & x["status_by_foe"])
    frozen = tx["bench_frozen"] | (x["status"] == tables.FRZ)
    blocked = by_foe & (((status == tables.SLP) & asleep) | ((status == tables.FRZ) & frozen))
    ok = on & ~blocked
    turns = turn.draw(1, 8, ok & (status == tables.SLP))
    _set(x, ok, status=status, status_by_foe=by_foe, sleep_turns=jnp.where(status == tables.SLP, turns, 0))
    _set(x, ok & (status == tables.TOX), has_toxic_counter=True, toxic_counter=0)
    return ok


def _add_confusion(turn: _Turn, x: dict, on):
    on = on & (x["hp"] > 0) & (x["confusion"] == 0)
    turns = turn.draw(2, 6, on)
    _set(x, on, confusion=turns)


def _get_damage(turn: _Turn, a, d, ta, td, sd, move, on):
    """``engine.get_damage`` for the moves of the common turn (no trapping moves), where ``on``: the
    caller (``_hit_foe``) has already stopped a move the defender is immune to, so no immunity here.
    ``sd``: the defender's side fields (Counter reads them). Returns (kind, damage)."""
    mv = _move_columns(move)
    mtype = mv.type
    effect = mv.effect
    fixed = mv.fixed
    power = mv.power
    level = ta["level"]
    psywave = effect == Effect.PSYWAVE
    psywave_softlock = ((level + (level >> 1)) & 255) < 2
    psywave_damage = turn.draw(1, (level * 3) // 2, on & psywave & ~psywave_softlock)
    counter = effect == Effect.COUNTER
    counter_ok = ((sd["last_enemy_selected_move"] != engine.MV_COUNTER)
                  & take_rows(engine.MOVE_COUNTERABLE, sd["last_enemy_move"]) & (turn.last_damage > 0))
    ohko, super_fang = effect == Effect.OHKO, effect == Effect.SUPER_FANG
    kind = jnp.where((~ohko & counter & ~counter_ok) | (psywave & psywave_softlock), engine.DMG_FALSE,
                     engine.DMG_NUMBER)
    value = jnp.where(ohko, 65535, jnp.where(counter, 2 * turn.last_damage,
               jnp.where(super_fang, jnp.maximum(d["hp"] // 2, 1), jnp.where(psywave, psywave_damage,
                  jnp.where(fixed == -1, level, jnp.where(fixed > 0, fixed, 0))))))
    decided = ohko | counter | super_fang | psywave | (fixed != 0)
    kind = jnp.where(~decided & (power == 0), engine.DMG_UNDEFINED, kind)
    decided = decided | (power == 0)
    formula = on & ~decided
    threshold = mechanics.crit_threshold(take_rows(_TABLES.species_base[:, 5], ta["species"]), a["focus_energy"],
                                         mv.high_crit)
    crit = turn.chance(threshold, 256, formula & (threshold > 0)) & formula & (threshold > 0)
    special = mv.category == tables.CATEGORY_SPECIAL
    attack = jnp.where(special, a["modified"][tables.SPA], a["modified"][tables.ATK])
    defense = jnp.where(special, d["modified"][tables.SPD], d["modified"][tables.DEF])
    screened = jnp.where(special, d["light_screen"], d["reflect"])
    defense = jnp.where(screened, defense * 2, defense)
    attack = jnp.where(crit, jnp.where(special, ta["own"][tables.SPA], ta["own"][tables.ATK]), attack)
    defense = jnp.where(crit, jnp.where(special, td["own"][tables.SPD], td["own"][tables.DEF]), defense)
    dmg = mechanics.base_damage(level, power, attack, defense, crit, mv.selfdestruct & ~special)
    eff = _effectiveness(mv, jnp.stack(d["types"], -1)) if accelerator_form() else None
    dmg = mechanics.modify_by_type(dmg, mtype, jnp.stack(a["types"], -1), jnp.stack(d["types"], -1), eff)
    roll = turn.draw(217, 256, formula & mechanics.needs_roll(dmg))
    dmg = mechanics.apply_roll(dmg, roll)
    # materialised: the damage chain (stats, crit, type chart, roll) feeds many consumers (-8% move turn)
    kind, dmg = turn._materialise([kind, jnp.where(formula, dmg, value)])
    return kind, dmg


def _hit_foe(turn: _Turn, a, d, sa, sd, ta, td, move, on):
    """``engine.hit_foe`` + ``primary_hit`` + ``extra_hit`` + ``foe_effects`` for a foe-aimed move of
    the common turn. Returns move_failed."""
    mv = _move_columns(move)
    act_a, act_d = dict(a), dict(d)   # the values at the start of the hit (the engine's ``act``)
    effect = mv.effect
    # a foe in the air / underground (Fly, Dig): every move but Swift and Transform misses
    invulnerable_miss = on & d["invulnerable"] & (move != engine.MV_SWIFT) & (move != engine.MV_TRANSFORM)
    on_target = on & ~invulnerable_miss
    immune = (on_target & ~mv.ignore_immunity
              & (jnp.any(_effectiveness(mv, jnp.stack(d["types"], -1)) == 3, axis=-1) if accelerator_form()
                 else mechanics.is_immune(mv.type, jnp.stack(d["types"], -1))))
    # TryImmunity: Dream Eater needs a sleeping foe without a substitute
    try_immunity_fail = (on_target & ~immune & (effect == Effect.DREAM_EATER)
                         & ((d["status"] != tables.SLP) | (d["sub_hp"] > 0)))
    selfdestruct = mv.selfdestruct
    _set(a, (invulnerable_miss | immune) & selfdestruct, hp=0)   # faint_now
    live = on_target & ~immune & ~try_immunity_fail
    ohko_fail = live & (effect == Effect.OHKO) & (act_d["modified"][tables.SPE] > act_a["modified"][tables.SPE])
    live = live & ~ohko_fail
    # accuracy (a sleep move never misses a Pokémon that must recharge)
    never_miss = (mv.accuracy < 0) | ((mv.status == tables.SLP) & act_d["must_recharge"])
    acc = mv.accuracy
    acc = acc * _lookup(mechanics.ACCURACY_TABLE, act_a["boosts"][tables.ACC] + 6) // 100
    acc = acc * _lookup(mechanics.ACCURACY_TABLE, -act_d["boosts"][tables.EVA] + 6) // 100
    acc = jnp.clip(acc, 1, 255)
    hit = turn.chance(acc, 256, live & ~never_miss)
    miss = live & ~never_miss & ~hit
    turn.last_damage = jnp.where(miss, 0, turn.last_damage)
    live = live & ~miss
    # the hit count: 2, or 2-5 from the multi-hit table
    multihit = mv.multihit
    k = turn.draw(0, 8, live & (multihit == 5))
    hits = jnp.where(multihit == 5, _lookup(engine.MULTIHIT_TABLE, k), jnp.where(multihit == 2, 2, 1))
    # primary hit (primary_hit): the substitute blocks poison, stage-changing and confusing status
    # moves; a damaging move hits the substitute instead of the Pokémon
    is_status = mv.category == tables.CATEGORY_STATUS
    had_sub = d["sub_hp"] > 0
    mstatus = mv.status
    blocked_status = is_status & ((mstatus == tables.PSN) | (mstatus == tables.TOX)
                                  | jnp.any(mv.boosts != 0, axis=-1) | mv.confuses)
    sub_block = live & had_sub & blocked_status
    via_sub = live & had_sub & ~is_status
    kind, dmg = _get_damage(turn, a, d, ta, td, sd, move, live & ~sub_block)
    sub_null = via_sub & (kind != engine.DMG_NUMBER)
    sub_hit = via_sub & (kind == engine.DMG_NUMBER)
    turn.last_damage = jnp.where(sub_hit, dmg, turn.last_damage)
    new_sub = d["sub_hp"] - jnp.minimum(dmg, d["sub_hp"])
    broke = sub_hit & (new_sub <= 0)
    _set(d, sub_hit, sub_hp=new_sub)
    _set(d, broke, sub_fainted=True)
    survived = sub_hit & ~broke
    direct = live & ~sub_block & ~via_sub
    number = direct & (kind == engine.DMG_NUMBER)
    capped = jnp.minimum(dmg, d["hp"])
    dealt = _damage_hp(turn, d, capped, number, sets_last_damage=True)
    # drain and recoil of the damage to a substitute that survived or to the Pokémon (a drain into
    # a substitute heals even for 0 damage; a hit that broke the substitute has neither)
    landed = jnp.where(survived, dmg, dealt)
    drain = (survived | (number & (dealt > 0))) & mv.drain
    turn.last_damage = jnp.where(drain, jnp.maximum(landed // 2, 1), turn.last_damage)
    _heal(a, ta["max_hp"], jnp.maximum(landed // 2, 1), drain)
    num, den = mv.recoil_num, mv.recoil_den
    _damage_hp(turn, a, jnp.maximum(landed * num // jnp.maximum(den, 1), 1),
               (survived | number) & (num > 0) & (landed > 0), sets_last_damage=False)
    go = direct & (kind != engine.DMG_FALSE)
    first_failed = sub_block | sub_null | (direct & (kind == engine.DMG_FALSE))
    # onHit: Transform (the foe's species, types, stats, stages and moves at 5 PP; only the cached
    # speed is the user's own set's, from the new species), Mimic (a random foe move into Mimic's
    # slot), Conversion (the foe's types)
    transform = go & (effect == Effect.TRANSFORM)
    own_speed = ((2 * take_rows(_TABLES.species_base[:, tables.SPE + 1], d["species"]) + ta["speed_iv"] + ta["speed_ev"] // 4)
                 * ta["level"] // 100 + 5)
    real = [m != 0 for m in d["moves"]]
    copied_pp = [jnp.where(r, jnp.minimum(5, take_rows(engine.MOVE_PP, m)), 0) for r, m in zip(real, d["moves"])]
    _set(a, transform, species=d["species"], types=d["types"], stored=d["stored"], modified=d["modified"],
         boosts=d["boosts"], moves=d["moves"], pp=copied_pp, virtual=real, transformed=True, speed=own_speed)
    mimic = go & (effect == Effect.MIMIC)
    k = jnp.clip(turn.draw(0, sum(r.astype(I32) for r in real), mimic), 0, 3)
    mimic_slot = [mimic & (sa["last_selected_slot"] == j) for j in range(4)]
    a["moves"] = [jnp.where(here, _at(d["moves"], k), m) for here, m in zip(mimic_slot, a["moves"])]
    a["virtual"] = [v | here for here, v in zip(mimic_slot, a["virtual"])]
    _set(a, go & (effect == Effect.CONVERSION), types=d["types"])
    # Hyper Beam's recharge: not after a hit that broke a substitute
    reached = sub_hit | go
    _set(a, reached & (~had_sub | (d["sub_hp"] > 0)) & (effect == Effect.HYPER_BEAM) & (a["hp"] > 0),
         must_recharge=True)
    # hits 2+ of a multi-hit move: the first hit's damage again (into a substitute: the last damage);
    # the secondary rolls after the last hit, and never through a substitute
    multi = live & (multihit > 0)
    keep_going = multi & ~first_failed & ~d["sub_fainted"]
    last_landed = go & (hits == 1)
    first_dealt = jnp.where(number, dealt, 0)
    for n in range(2, 6):
        on_n = keep_going & (n <= hits) & (d["hp"] > 0) & (a["hp"] > 0)
        into_sub = on_n & (d["sub_hp"] > 0)
        new_sub = d["sub_hp"] - jnp.minimum(turn.last_damage, d["sub_hp"])
        broke_n = into_sub & (new_sub <= 0)
        _set(d, into_sub, sub_hp=new_sub)
        _set(d, broke_n, sub_fainted=True)
        direct_n = on_n & ~into_sub
        _damage_hp(turn, d, jnp.minimum(first_dealt, d["hp"]), direct_n, sets_last_damage=True)
        keep_going = keep_going & ~broke_n
        last_landed = last_landed | (direct_n & (n == hits))
    # a confusing secondary still rolls on a substitute that survived
    sub_confusion_roll = survived & (mv.sec_kind == tables.SECONDARY_CONFUSION)
    go, first_failed, last_landed, sub_confusion_roll = turn.checkpoint((a, d), go, first_failed, last_landed,
                                                                        sub_confusion_roll)
    # foe_effects: a status move's primary effects, or a damaging move's secondary
    sec = mv.sec_kind
    sstatus = mv.sec_status
    mtype = mv.type
    same_type_skip = ((sec == tables.SECONDARY_STATUS)
                      & ((sstatus == tables.PAR) | (sstatus == tables.BRN) | (sstatus == tables.FRZ))
                      & ((d["types"][0] == mtype) | (d["types"][1] == mtype)))
    roll = (last_landed & (sec != tables.SECONDARY_NONE) & (d["hp"] > 0) & ~same_type_skip) | sub_confusion_roll
    secondary_on = roll & turn.chance(mv.sec_chance, 256, roll)
    primary_boosts = mv.boosts
    boost_primary = go & jnp.any(primary_boosts != 0, axis=-1)
    boost_on = (boost_primary | (secondary_on & (sec == tables.SECONDARY_BOOST))) & (d["hp"] > 0)
    deltas = jnp.where(boost_primary[:, None], primary_boosts, mv.sec_boosts)
    boosted = _boost_stats(turn, d, [deltas[:, j] for j in range(7)], boost_on, is_status)
    boost_fail = boost_on & boost_primary & ~boosted
    _stat_modification_error(d, boost_on & boosted)   # the engine's stat_modification_error(st, 0, ...): side 1
    status_primary = go & (mstatus != 0)
    status = jnp.where(status_primary, mstatus, sstatus)
    # a sleep move also lands on a Pokémon that must recharge, whatever its status
    sleep_recharge = status_primary & (mstatus == tables.SLP) & d["must_recharge"]
    plain = (((status_primary & ~sleep_recharge) | (secondary_on & (sec == tables.SECONDARY_STATUS)))
             & (d["status"] == 0))
    ok = _set_status(turn, d, td, status, sleep_recharge | plain)
    _set(d, sleep_recharge & ok, must_recharge=False)
    # apply_penalty_for_new_status
    _set(d, plain & ok, modified=_penalised(d["modified"], status))
    flinch = secondary_on & (sec == tables.SECONDARY_FLINCH) & (d["hp"] > 0) & (d["flinch"] == 0)
    _set(d, flinch, flinch=1, must_recharge=False)
    confuse = (go & mv.confuses) | (secondary_on & (sec == tables.SECONDARY_CONFUSION))
    _add_confusion(turn, d, confuse)
    _set(a, on & selfdestruct & ~d["sub_fainted"] & ~immune & ~invulnerable_miss, hp=0)   # faint_now
    move_failed = on & (invulnerable_miss | immune | try_immunity_fail | ohko_fail | miss | (~multi & first_failed)
                        | boost_fail)
    thaw = (on & ~move_failed & ~(multi & first_failed) & (d["status"] == tables.FRZ) & (d["hp"] > 0)
            & (sec == tables.SECONDARY_STATUS) & (sstatus == tables.BRN))
    _set(d, thaw, status=0)
    return move_failed


def _direct_self_damage(turn: _Turn, a, d, amount, on):
    """``engine.direct_self_damage`` (confusion, crash): the user loses HP, unless it has a substitute:
    then the foe's substitute (if any) takes it and nobody loses HP."""
    on = on & (a["hp"] > 0)
    amount = jnp.maximum(amount, 1)
    turn.last_damage = jnp.where(on, amount, turn.last_damage)
    user_sub = a["sub_hp"] > 0
    new_sub = d["sub_hp"] - amount
    _set(d, on & user_sub & (d["sub_hp"] > 0), sub_hp=jnp.maximum(new_sub, 0),
         sub_fainted=d["sub_fainted"] | (new_sub <= 0))
    _damage_hp(turn, a, amount, on & ~user_sub, sets_last_damage=False)


def _haze(a, d, sd, on):
    """``engine.haze``: stages, the foe's status and most volatiles end on both sides; a sleeping or
    frozen foe that has yet to move does nothing this turn."""
    foe_sleeps = (d["status"] == tables.SLP) | (d["status"] == tables.FRZ)
    _set(sd, on & foe_sleeps, last_selected_move=tables.CANNOTMOVE, last_enemy_selected_move=tables.CANNOTMOVE,
         queued_move=jnp.where(sd["queued_move"] != 0, tables.CANNOTMOVE, 0))
    _set(d, on & (d["hp"] > 0), status=0, sleep_turns=0)
    zero = jnp.zeros_like(a["hp"])
    for x in (a, d):
        _set(x, on, boosts=[zero] * 7, modified=x["stored"], speed=x["stored"][tables.SPE], disable_move=zero,
             disable_time=zero, disable_slot=zero, confusion=zero, mist=False, focus_energy=False,
             leech_seed=False, light_screen=False, reflect=False, has_toxic_counter=False, toxic_counter=zero)


def _hit_self(turn: _Turn, a, d, sa, sd, ta, move, on):
    """``engine.hit_self`` for the common self-targeting moves (``sa`` / ``sd``: the user's / foe's
    side fields). Returns the move Mirror Move calls (0: none)."""
    mv = _move_columns(move)
    effect = mv.effect
    sub_fail = (effect == Effect.SUBSTITUTE) & ((a["sub_hp"] > 0) | (a["hp"] * 4 < ta["max_hp"]))
    screen_fail = (effect == Effect.SCREEN) & jnp.where(mv.is_reflect, a["reflect"], a["light_screen"])
    live = on & ~sub_fail & ~screen_fail
    boosts = mv.boosts
    boost_on = live & jnp.any(boosts != 0, axis=-1) & (a["hp"] > 0)
    boosted = _boost_stats(turn, a, [boosts[:, j] for j in range(7)], boost_on, jnp.zeros_like(on))
    _stat_modification_error(d, boost_on & boosted)
    live = live & ~(boost_on & ~boosted)
    new_sub = live & (effect == Effect.SUBSTITUTE) & (a["hp"] > 0)
    _set(a, new_sub, sub_hp=ta["max_hp"] // 4 + 1, trapped=0)
    column = mv.self_flag
    flag_on = live & (a["hp"] > 0)
    for name in ("reflect", "light_screen", "mist", "focus_energy", "minimize", "defense_curl"):
        a[name] = a[name] | (flag_on & (column == Active.indices(name)[0]))
    # Recover / Soft-Boiled and Rest (both fail at full HP and in the cartridge's 255 / 511 glitch)
    hp, max_hp = a["hp"], ta["max_hp"]
    full = hp == max_hp
    heal_glitch = ((hp == max_hp - 255) | (hp == max_hp - 511)) & (hp % 256 != 0)
    recovered = live & (effect == Effect.RECOVER) & ~full & ~heal_glitch
    rest = live & (effect == Effect.REST)
    rest_try = rest & ~full & ~heal_glitch
    haze_on = live & (effect == Effect.HAZE)
    toxic_to_poison = haze_on & (a["status"] == tables.TOX)
    by_foe = a["status_by_foe"] & ~rest
    _rarely(haze_on, lambda a, d, sd: _haze(a, d, sd, haze_on), (a, d, sd))
    # Rest's sleep, or Haze turning the user's Toxic into poison: one setStatus
    set_ok = _set_status(turn, a, ta, jnp.where(rest, tables.SLP, tables.PSN), rest_try | toxic_to_poison,
                         by_foe=by_foe, ignore_immunity=True)
    slept = rest_try & set_ok
    _set(a, slept, sleep_turns=2)
    _heal(a, max_hp, jnp.where(recovered, max_hp // 2, max_hp), slept | recovered)
    _damage_hp(turn, a, max_hp // 4, new_sub & (max_hp > 3), sets_last_damage=False)   # the substitute's cost
    # Mirror Move: the foe's last move, unless it has none or it is Mirror Move
    foe_last = d["last_move"]
    mirror = live & (effect == Effect.MIRROR_MOVE) & (foe_last != 0) & (foe_last != engine.MV_MIRROR_MOVE)
    call = jnp.where(mirror, foe_last, 0)
    _set(sa, mirror, last_selected_move=call, last_enemy_selected_move=call)
    return call


def _after_move_self(turn: _Turn, a, ta, on):
    """``engine.after_move_self`` without Leech Seed (none in the common turn)."""
    status = a["status"]
    poisoned = (status == tables.BRN) | (status == tables.PSN) | (status == tables.TOX)
    counter = a["toxic_counter"] + (on & a["has_toxic_counter"] & poisoned).astype(I32)
    _set(a, on, toxic_counter=counter)
    wake = on & (status == tables.SLP) & (a["sleep_turns"] <= 0) & (a["hp"] > 0)
    _set(a, wake, status=0)
    base = jnp.maximum(ta["max_hp"] // 16, 1)
    mult = jnp.where(status == tables.TOX, counter, jnp.where(a["has_toxic_counter"], counter, 1))
    _damage_hp(turn, a, base * mult, on & poisoned, sets_last_damage=False)


def _run_move(turn: _Turn, a, d, sa, sd, ta, td, move, on):
    """``engine.run_move`` of the common turn."""
    mv = _move_columns(move)
    cannot = move == tables.CANNOTMOVE
    _set(d, on & ~cannot, sub_fainted=False)
    live = on & ~cannot
    frozen = live & (a["status"] == tables.FRZ)
    live = live & ~frozen
    asleep = live & (a["status"] == tables.SLP)
    _set(a, asleep, sleep_turns=a["sleep_turns"] - 1)
    _set(a, frozen | asleep, last_move=0)
    live = live & ~asleep & ~(a["flinch"] > 0)
    recharging = live & a["must_recharge"]
    _set(a, recharging, must_recharge=False)
    live = live & ~recharging
    confused = live & (a["confusion"] > 0)
    confusion_left = a["confusion"] - 1
    _set(a, confused, confusion=confusion_left)
    roll = confused & (confusion_left > 0)
    keeps_control = turn.chance(128, 256, roll)
    self_hit = roll & ~keeps_control
    amount = ((ta["level"] * 2 // 5 + 2) * a["modified"][tables.ATK] * 40 // a["modified"][tables.DEF]) // 50 + 2
    _direct_self_damage(turn, a, d, amount, self_hit)
    _set(a, self_hit, two_turn_move=0, invulnerable=False)
    live = live & ~self_hit
    paralysed = live & (a["status"] == tables.PAR)
    full = paralysed & turn.chance(63, 256, paralysed)
    _set(a, full, two_turn_move=0)   # a Dig / Fly user stays invulnerable (the Gen 1 quirk Showdown keeps)
    live = live & ~full
    aborted = on & ~live
    live, aborted = turn.checkpoint((a, d, sa), live, aborted)
    # PP: a two-turn move pays on its second turn
    slot = sa["last_selected_slot"]
    charged = a["two_turn_move"] != 0
    locked = a["must_recharge"] | charged
    deduct = (live & (move != tables.STRUGGLE) & (_at(a["moves"], slot) != 0)
              & ((~locked & ~mv.two_turn) | charged))
    pp = [jnp.where(deduct & (slot == j), (a["pp"][j] - 1) % 64, a["pp"][j]) for j in range(4)]
    # a slot that is not a Transform copy is the base slot (a Mimic slot writes through to it)
    base_pp = [jnp.where(deduct & (slot == j) & ~(a["virtual"][j] & a["transformed"]), (a["pp"][j] - 1) % 64,
                         a["base_pp"][j])
               for j in range(4)]
    a["pp"], a["base_pp"] = pp, base_pp

    # useMove, then the move Mirror Move called: one loop body (compiled once), a second iteration
    # only when some battle of the batch calls
    def use(a, d, sa, sd, loop):
        k, move, on, aborted = loop
        call = _use_move(turn, a, d, sa, sd, ta, td, move, on, called=k > 0)
        _after_move(turn, a, d, ta, move, on & ~((move == engine.MV_MIRROR_MOVE) & (call != 0)), aborted)
        again = on & (call != 0)
        return k + 1, jnp.where(again, call, move), again, jnp.zeros_like(aborted)

    turn.repeat(lambda loop: (loop[0] == 0) | ((loop[0] < 2) & jnp.any(loop[2])), use, (a, d, sa, sd),
                (jnp.zeros((), I32), move, live, aborted))


def _use_move(turn: _Turn, a, d, sa, sd, ta, td, move, on, called):
    """``engine.use_move_once`` (``called``: a scalar, the move Mirror Move called). Returns Mirror
    Move's call."""
    mv = _move_columns(move)
    slot = sa["last_selected_slot"]
    # a called two-turn move gives the calling slot its PP back; a transformed user's base slot gets
    # one back for any called move (Showdown's corner cases)
    refund = on & called & mv.two_turn & (_at(a["moves"], slot) != 0)
    pp_back = (_at(a["pp"], slot) + 1) % 64
    here = [slot == j for j in range(4)]
    a["base_pp"] = [jnp.where(refund & h & ~(v & a["transformed"]), pp_back, p)
                    for h, v, p in zip(here, a["virtual"], a["base_pp"])]
    a["pp"] = [jnp.where(refund & h, pp_back, p) for h, p in zip(here, a["pp"])]
    refund_base = on & called & a["transformed"] & (_at(a["base_moves"], slot) != 0)
    a["base_pp"] = [jnp.where(refund_base & h, (p + 1) % 64, p) for h, p in zip(here, a["base_pp"])]
    _set(sa, on, last_move=move, last_enemy_move=move)
    # the opponent now knows this move of the set (not for calls or a Transform copy)
    a["base_revealed"] = [r | (on & ~called & ~a["transformed"] & (m == move))
                          for r, m in zip(a["base_revealed"], a["base_moves"])]
    charged = a["two_turn_move"] != 0
    _set(a, on & (~mv.two_turn | charged), last_move=move)
    # TryMove: the charging turn of a two-turn move (Dig / Fly: invulnerable meanwhile)
    effect = mv.effect
    charge_move = on & ((effect == Effect.CHARGE) | (effect == Effect.CHARGE_INVULNERABLE))
    releasing = charge_move & charged
    _set(a, releasing, two_turn_move=0, invulnerable=False)
    charging = charge_move & ~releasing
    _set(a, charging, two_turn_move=move, invulnerable=(effect == Effect.CHARGE_INVULNERABLE) | a["invulnerable"])
    go = on & ~charging
    turn.last_damage = jnp.where(go & ~mv.keeps_last_damage, 0, turn.last_damage)
    targets_self = mv.self
    call = _hit_self(turn, a, d, sa, sd, ta, move, go & targets_self)
    failed = _hit_foe(turn, a, d, sa, sd, ta, td, move, go & ~targets_self)
    # Jump Kick / Hi Jump Kick that failed: 1 HP of crash damage
    _direct_self_damage(turn, a, d, 1, go & ~targets_self & failed & (effect == Effect.CRASH))
    return call


def _after_move(turn: _Turn, a, d, ta, move, on, aborted):
    """``engine.after_move`` of the common turn (a KO drops the recharge), then ``after_move_self``
    (also after an aborted move)."""
    mv = _move_columns(move)
    targets_self = mv.self
    _set(a, on & a["must_recharge"] & (jnp.where(targets_self, a["hp"], d["hp"]) <= 0), must_recharge=False)
    target_alive = jnp.where(targets_self, a["hp"], d["hp"]) > 0
    _after_move_self(turn, a, ta, (on & target_alive) | aborted)


def _speed_tie_event(turn: _Turn, on):
    a0, a1 = turn.act
    tie = on & ~a0["fainted"] & ~a1["fainted"] & (a0["speed"] == a1["speed"])
    turn.draw(0, 2, tie)


def _update_speeds(turn: _Turn, on):
    for a in turn.act:
        _set(a, on & ~a["fainted"], speed=a["modified"][tables.SPE])


def _reset_volatiles(a: dict, tf: dict, on):
    """``engine.reset_volatiles``: every volatile field back to zero, the set's own species, stats
    (with the par / brn penalty of the current status) and moves. ``tf``: the team facts of ``a``'s slot."""
    own = tf["own"]
    species = tf["species"]
    types = take_rows(_TABLES.species_types, species)
    fresh = dict(species=species, types=[types[:, 0], types[:, 1]], stored=own, modified=_penalised(own, a["status"]),
                 speed=own[tables.SPE], moves=a["base_moves"], pp=a["base_pp"])
    for name, (offset, length) in Active._layout.items():
        if offset < VOLATILE_START:
            continue
        if name in fresh:
            value = fresh[name]
        else:
            zero = jnp.zeros_like(a[name][0] if length > 1 else a[name])
            value = [zero] * length if length > 1 else zero
        _set(a, on, **{name: value})


def _switch_in(turn: _Turn, new_slot, on, s: int = 0):
    """``engine.switch_in`` of side ``s`` (the acting side 0 of the move turn's frame; either side in
    the switch turn) to team slot ``new_slot`` where ``on``. The outgoing Pokémon's persistent fields
    go back to the team; its team facts are refreshed. (The engine's first ``reset_volatiles``, of the
    outgoing Pokémon, is left out: the second one overwrites every field it writes.)"""
    team = turn.team
    six = jnp.arange(6)[None, :]
    columns = {name: getattr(team, name)[:, s]
               for name in ("hp", "status", "sleep_turns", "status_by_foe", "fainted", "pp", "revealed_moves",
                            "revealed")}
    a = turn.act[s]
    at_old = (six == a["slot"][:, None]) & on[:, None]
    for name, value in (("hp", a["hp"]), ("status", a["status"]), ("sleep_turns", a["sleep_turns"]),
                        ("status_by_foe", a["status_by_foe"]), ("fainted", a["fainted"])):
        columns[name] = jnp.where(at_old, value[:, None], columns[name])
    for name, value in (("pp", a["base_pp"]), ("revealed_moves", a["base_revealed"])):
        columns[name] = jnp.where(at_old[..., None], jnp.stack(value, -1)[:, None, :], columns[name])
    at_new = (six == new_slot[:, None]) & on[:, None]
    columns["revealed"] = columns["revealed"] | at_new
    pick = lambda x: jnp.sum(jnp.where(six == new_slot[:, None], x, 0), axis=1)
    pick4 = lambda x: [jnp.sum(jnp.where(six == new_slot[:, None], x[..., j], 0), axis=1) for j in range(4)]
    _set(a, on, slot=new_slot, hp=pick(columns["hp"]), status=pick(columns["status"]),
         sleep_turns=pick(columns["sleep_turns"]), status_by_foe=pick(columns["status_by_foe"]) != 0,
         fainted=False, base_moves=pick4(team.moves[:, s]), base_pp=pick4(columns["pp"]),
         base_revealed=[x != 0 for x in pick4(columns["revealed_moves"])])
    turn.team = team.replace(**{name: jnp.stack([column, getattr(team, name)[:, 1]] if s == 0
                                                else [getattr(team, name)[:, 0], column], axis=1)
                                for name, column in columns.items()})
    turn.refresh_team_facts(sides=(s,))
    _reset_volatiles(a, turn.team_facts[s], on)
    _set(a, on, speed=a["modified"][tables.SPE])


def _run_switch(turn: _Turn, on, s: int = 0, metronome_lock: bool = False):
    """``engine.run_switch`` of side ``s``'s new active (``s`` as in ``_switch_in``).
    ``metronome_lock``: with the foe's Wrap-family lock called by Metronome (never in the common
    turn, whose battles have no trapping lock: left out of its program)."""
    a, sa, ta = turn.act[s], turn.side[s], turn.team_facts[s]
    _set(a, on & (a["status"] == tables.TOX), status=tables.PSN)
    for x in turn.act:
        _set(x, on & ~x["fainted"], last_move=0)
    _set(sa, on, last_selected_slot=0)
    if metronome_lock:
        d, sd = turn.act[1 - s], turn.side[1 - s]
        locked = on & (d["trap_lock_move"] != 0) & (_at(d["moves"], sd["last_selected_slot"]) == engine.MV_METRONOME)
        _set(sd, locked, last_selected_move=engine.MV_METRONOME, last_enemy_selected_move=engine.MV_METRONOME)
        requeue = locked & (sd["queued_move"] != 0)
        _set(sd, requeue, queued_move=engine.MV_METRONOME)
        _set(d, requeue, speed=d["modified"][tables.SPE])
    status = a["status"]
    hurt = on & ~sa["fainted_this_turn"] & ((status == tables.PSN) | (status == tables.BRN))
    _damage_hp(turn, a, jnp.maximum(ta["max_hp"] // 16, 1), hurt, sets_last_damage=False)


def _process_faints(turn: _Turn, on, real_of_0):
    """``engine.process_faints``, in the acting frame (``real_of_0``: the real side index of frame
    side 0, for the winner). Returns any_faint."""
    any_faint = jnp.zeros_like(on)
    for s in range(2):
        a, sd, tf = turn.act[s], turn.side[s], turn.team_facts[s]
        newly = on & (a["hp"] <= 0) & ~a["fainted"]
        _reset_volatiles(a, tf, newly)
        _set(a, newly, fainted=True, status=0, sleep_turns=0)
        _set(sd, newly, pokemon_left=jnp.maximum(sd["pokemon_left"] - 1, 0), fainted_this_turn=True)
        any_faint = any_faint | newly
    left0, left1 = turn.side[0]["pokemon_left"], turn.side[1]["pokemon_left"]
    p0, p1 = jnp.where(real_of_0 == 0, WINNER_P1, WINNER_P2), jnp.where(real_of_0 == 0, WINNER_P2, WINNER_P1)
    winner = jnp.where((left0 == 0) & (left1 == 0), WINNER_TIE,
                       jnp.where(left1 == 0, p0, jnp.where(left0 == 0, p1, WINNER_NONE)))
    ended = any_faint & (winner != WINNER_NONE)
    turn.winner = jnp.where(ended, winner, turn.winner)
    turn.request = jnp.where(ended, REQUEST_ENDED, turn.request)
    for s in range(2):
        flag = any_faint & ~ended & turn.act[s]["fainted"] & turn.team_facts[s]["has_bench"]
        _set(turn.side[s], flag, switch_flag=True)
    need = any_faint & ~ended & (turn.side[0]["switch_flag"] | turn.side[1]["switch_flag"])
    turn.request = jnp.where(need, REQUEST_SWITCH, turn.request)
    return any_faint


def _residual(turn: _Turn, on):
    """``engine.residual`` of the common turn: only flinch can be counted down."""
    _update_speeds(turn, on)
    a0, a1 = turn.act
    counts = [jnp.where(a["fainted"], 0, (a["flinch"] > 0).astype(I32)) for a in turn.act]
    tie = a0["speed"] == a1["speed"]
    turn.draw(0, 2, on & tie & (counts[0] + counts[1] >= 2))
    for a in turn.act:
        live = on & ~a["fainted"]
        _set(a, live & (a["flinch"] > 0), flinch=a["flinch"] - 1)


def move_turn_common(st: BattleState, actions) -> BattleState:
    """``engine.move_step`` of every battle, exact for the battles where ``eligible`` holds (the
    others come back with meaningless values)."""
    turn = _Turn(st)
    on = turn.request == REQUEST_MOVE
    _update_speeds(turn, on)
    moves, is_move = [], []
    for s in range(2):
        a, sd = turn.act[s], turn.side[s]
        move_on = on & (actions[:, s] < engine.ACTION_SWITCH_BASE)
        sleeps = _keeps_last_selection(a)
        _set(sd, move_on & sleeps, last_enemy_selected_move=_at(a["moves"], sd["last_selected_slot"]))
        struggle = move_on & ~sleeps & _struggles(a)
        _set(sd, struggle, last_selected_move=tables.STRUGGLE, last_enemy_selected_move=tables.STRUGGLE)
        slot = jnp.clip(actions[:, s], 0, 3)
        chosen = _at(a["moves"], slot)
        normal = move_on & ~sleeps & ~struggle
        _set(sd, normal, last_selected_move=chosen, last_selected_slot=slot, last_move=chosen,
             last_enemy_selected_move=chosen)
        moves.append(sd["last_selected_move"])
        is_move.append(actions[:, s] < engine.ACTION_SWITCH_BASE)
        _set(sd, on, queued_move=jnp.where(is_move[s], sd["last_selected_move"], 0))
    speed = [turn.act[s]["modified"][tables.SPE] for s in range(2)]
    key = [jnp.where(is_move[s], 200, 103) * 1_000_000
           - jnp.where(is_move[s], take_rows(engine.MOVE_PRIORITY, moves[s]), 0) * 10_000 - speed[s]
           for s in range(2)]
    tie = key[0] == key[1]
    swapped = turn.draw(0, 2, on & tie) == 1
    first = jnp.where(tie, jnp.where(on & swapped, 1, 0), jnp.where(key[0] < key[1], 0, 1))
    _speed_tie_event(turn, on)
    _speed_tie_event(turn, on)
    # the two movers in the acting frame (side 0 acts), one loop body for both
    swap = first == 1
    turn.orient(swap)
    in_order = lambda pair: [jnp.where(swap, pair[1], pair[0]), jnp.where(swap, pair[0], pair[1])]

    def mover(carry):
        """The acting side's action, then the faint check; then the other side's turn to act."""
        going, real_of_0, is_move_, action = carry
        switching = going & ~is_move_[0]
        _switch_in(turn, action[0] - engine.ACTION_SWITCH_BASE, switching)
        _speed_tie_event(turn, switching)
        _run_switch(turn, switching)
        going, switching = turn.barrier(going, switching, team=True)
        moving = going & is_move_[0]
        (a, d), (sa, sd), (ta, td) = turn.act, turn.side, turn.team_facts
        move = sa["queued_move"]   # the second mover's may have become "cannot move" (Haze)
        _set(sa, moving, queued_move=0)
        _run_move(turn, a, d, sa, sd, ta, td, move, moving)
        fainted = _process_faints(turn, going, real_of_0)
        _speed_tie_event(turn, going & ~fainted)
        turn.flip()
        return going & ~fainted, 1 - real_of_0, is_move_[::-1], action[::-1]

    going = turn.twice(mover, (on, first, in_order(is_move), in_order([actions[:, 0], actions[:, 1]])))[0]
    turn.orient(swap)
    going = turn.barrier(going)
    _residual(turn, going)
    _speed_tie_event(turn, going)
    # end_turn (no partial trapping, Disable, Bide in the common turn: no handler ties to shuffle)
    turn.turn = turn.turn + going.astype(I32)
    for a in turn.act:
        _set(a, going, maybe_locked=False)
    for sd in turn.side:
        _set(sd, going, fainted_this_turn=False)
    out = st.replace(team=turn.team.narrow(), active=Active(data=_pack(Active, turn.act)),
                     side=Side(data=_pack(Side, turn.side)),
                     last_damage=turn.last_damage, turn=turn.turn, winner=turn.winner, request=turn.request,
                     rng=jnp.stack([turn.hi, turn.lo], axis=1), draw_count=turn.count,
                     draw_pool=jnp.zeros(st.draw_pool.shape[:-1] + (0,), jnp.uint32))
    stuck = jax.vmap(engine.no_progress_possible)(out)
    tie_end = going & (stuck | (out.turn > 1000))
    return out.replace(winner=jnp.where(tie_end, WINNER_TIE, out.winner),
                       request=jnp.where(tie_end, REQUEST_ENDED, jnp.where(going, REQUEST_MOVE, out.request)))


def move_step_batch(st: BattleState, actions, chunk: int | None = None, fallback: bool = True) -> BattleState:
    """``jax.vmap(engine.move_step)(st, actions)``, the same state: the common turn batched here,
    the other battles through ``engine.move_step`` in sub-batches of ``chunk`` (default B/16).

    ``fallback=False`` leaves ``engine.move_step`` out of the program (a quarter less to compile):
    only for battles whose every turn is a common one, which holds for battles between teams of
    Showdown's random-battle sets (``test_every_random_battle_move_runs_batched``): what the RL
    env's reset makes. Other battles would come back wrong."""
    actions = jnp.asarray(actions, I32)
    if not fallback:
        return move_turn_common(st, actions)
    batch = actions.shape[0]
    chunk = max(batch // 16, 1) if chunk is None else chunk
    common = eligible(st, actions)
    fast = move_turn_common(st, actions)
    return update_where_needed(~common, chunk, lambda _, s, a: engine.move_step(s, a),
                               fast, (st, actions))


# ---------------------------------------------------------------------------------------------
# the switch turn (a switch request, or the battle's start)
# ---------------------------------------------------------------------------------------------

def _shuffle_draws(turn: _Turn, start, size, on, max_size: int):
    """``engine._shuffle_draws``: the draws of Showdown's shuffle of ``size`` tied handlers."""
    for k in range(max_size - 1):
        turn.draw(start + k, start + size, on & (size >= k + 2))


def _end_turn(turn: _Turn, on):
    """``engine.end_turn`` whole (the partial-trapping bookkeeping and the DisableMove handler ties
    included: a switch request may follow a turn of any lock), but the Endless Battle Clause, which
    ``switch_step_batch`` checks on the packed state."""
    turn.turn = turn.turn + on.astype(I32)
    zero = jnp.zeros_like(turn.turn)
    for i in (0, 1):   # p1's bookkeeping, then p2's (which reads p1's)
        a, foe = turn.act[i], turn.act[1 - i]
        keep = (foe["slot"] == a["trap_lock_target"]) & (foe["hp"] > 0) & (foe["trapped"] > 0)
        _set(a, on & (a["trap_lock_move"] != 0) & ~keep, trap_lock_move=zero, trap_lock_duration=zero,
             trap_lock_total=zero, trap_lock_damage=zero, trap_lock_target=zero)
        keep = (foe["slot"] == a["trapped_source"]) & (foe["hp"] > 0) & (foe["trap_lock_move"] != 0)
        _set(a, on & (a["trapped"] > 0) & ~keep, trapped=zero, trapped_maybe_locked=False)
        keep = (foe["slot"] == a["fake_trapped_counterpart"]) & (foe["hp"] > 0) & (foe["fake_trapped"] > 0)
        _set(a, on & (a["fake_trapped"] > 0) & ~keep, fake_trapped=zero)
    for a in turn.act:
        alive = on & ~a["fainted"]
        high = (a["trapped"] > 0).astype(I32) + (a["fake_trapped"] > 0).astype(I32)
        has_status = ((a["status"] == tables.SLP) | (a["status"] == tables.FRZ)).astype(I32)
        low = ((a["disable_move"] != 0).astype(I32) + (a["trap_lock_move"] != 0).astype(I32)
               + (a["bide_time"] > 0).astype(I32))
        _shuffle_draws(turn, 0, high, alive, max_size=2)
        _shuffle_draws(turn, high + has_status, low, alive, max_size=3)
        maybe = (((a["trapped"] > 0) & a["trapped_maybe_locked"]) | (a["fake_trapped"] > 0)) & (has_status != 1)
        maybe = maybe | ((a["trap_lock_move"] != 0) & (a["trap_lock_total"] - a["trap_lock_duration"] > 1))
        _set(a, on, maybe_locked=maybe & (a["bide_time"] <= 0))
    for sd in turn.side:
        _set(sd, on, fainted_this_turn=False)


def _switch_turn(turn: _Turn, actions, on, start):
    """``engine.switch_turn``: the sides with a switch flag (both where ``start``: the leads, slot 0)
    switch in, faster first, then their runSwitches. The engine's per-side loops become one pass per
    side under a mask where the order cannot matter (the switch-ins write disjoint fields and draw
    nothing between them), and three masked runSwitch passes where it does (side 0, side 1, side 0:
    the second runSwitch reads what the first wrote)."""
    _update_speeds(turn, on)
    need = [(turn.side[s]["switch_flag"] | start) & on for s in range(2)]
    both = need[0] & need[1]
    speed = [turn.act[s]["modified"][tables.SPE] for s in range(2)]
    tie = speed[0] == speed[1]
    drawn = on & both & ~start & tie
    swapped = drawn & (turn.draw(0, 2, drawn) == 1)
    first_both = jnp.where(tie, jnp.where(swapped, 1, 0), jnp.where(speed[0] > speed[1], 0, 1))
    first = jnp.where(start, 0, jnp.where(both, first_both, jnp.where(need[0], 0, 1)))
    for s in range(2):
        _switch_in(turn, jnp.where(start, 0, actions[:, s] - engine.ACTION_SWITCH_BASE), need[s], s)
        _set(turn.side[s], need[s], switch_flag=False)
    # with a second instaswitch still queued, runAction returns before its Update
    _speed_tie_event(turn, (need[0] | need[1]) & ~both)
    # runswitch_order: the second switch-in's runSwitch first if faster (a tie draws)
    speed = [turn.act[s]["speed"] for s in range(2)]
    first_speed, second_speed = jnp.where(first == 0, speed[0], speed[1]), jnp.where(first == 0, speed[1], speed[0])
    tie = both & (second_speed == first_speed)
    second_first = both & ((second_speed > first_speed) | (tie & (turn.draw(0, 2, tie) == 0)))
    _speed_tie_event(turn, both)
    run_first = jnp.where(second_first, 1 - first, first)
    runs = [on & ((first == s) | both) for s in range(2)]
    for s, this_on in ((0, runs[0] & (run_first == 0)), (1, runs[1]), (0, runs[0] & (run_first == 1))):
        _run_switch(turn, this_on, s, metronome_lock=True)
        _speed_tie_event(turn, this_on)


def switch_step_batch(st: BattleState, actions) -> BattleState:
    """``jax.vmap(engine.switch_step)(st, actions)``, the same state, as batched code: the switch turn
    of the battles in a switch request or unstarted (``REQUEST_START``), every other battle returned
    unchanged (but for the step's bookkeeping, as the engine does). Every path of the engine's switch
    step is here (a switch turn runs no move and no rare mechanic but the end-of-turn bookkeeping of
    partial trapping and Disable): no engine fallback. ``tests/pokemon/test_batched.py`` checks the
    whole state against the engine's."""
    actions = jnp.asarray(actions, I32)
    turn = _Turn(st)
    start = turn.request == REQUEST_START
    on = (turn.request == REQUEST_SWITCH) | start
    _switch_turn(turn, actions, on, start)
    _end_turn(turn, on)
    out = st.replace(team=turn.team.narrow(), active=Active(data=_pack(Active, turn.act)),
                     side=Side(data=_pack(Side, turn.side)), turn=turn.turn,
                     rng=jnp.stack([turn.hi, turn.lo], axis=1), draw_count=turn.count,
                     draw_pool=jnp.zeros(st.draw_pool.shape[:-1] + (0,), jnp.uint32))
    # the Endless Battle Clause (gen 1): no progress possible, or turn 1000 reached
    stuck = jax.vmap(engine.no_progress_possible)(out)
    tie_end = on & (stuck | (out.turn > 1000))
    return out.replace(winner=jnp.where(tie_end, WINNER_TIE, out.winner),
                       request=jnp.where(tie_end, REQUEST_ENDED, jnp.where(on, REQUEST_MOVE, out.request)))
