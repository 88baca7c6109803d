"""The Gen 9 battle state: a ``flax.struct`` pytree of fixed-shape arrays, batched.

Every field has a leading batch axis ``[B]`` (the functions of ``pokejax.gen9`` also run under
``jax.vmap``, one battle at a time, so nothing here indexes axis 0 by position: team and side axes
are counted from the end where it matters). Per side (an axis of 2, side 0 = p1) six Pokémon in team
order; the team order never changes (Showdown reorders ``side.pokemon`` on a switch, pokejax keeps
the slot and records which one is active instead).

What belongs to a Pokémon for the whole battle (HP, status and its counter, PP, Tera, the Stellar mask) is stored per
Pokémon ``[B, 2, 6, ...]``; what Showdown clears on switching out (the stat stages) only for the
active ``[B, 2, ...]``. Later stages add volatiles, side and field conditions next to them.

``from_pool`` builds battles from ``pool.load_pool()`` rows as Showdown's ``Battle`` holds them once
both players are set and before ``start`` runs (``request == REQUEST_START``): the Pokémon as its
``Pokemon`` constructor makes them, the PRNG at the battle seed (team construction draws nothing:
every pool set has its gender). The start itself (the leads' switch-ins, Zacian's and Zamazenta's
Crowned formes, their draws) belongs to the turn function, as in the Gen 1 engine.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from flax import struct

from pokejax.gen9.data import tables
from pokejax.rows import select  # noqa: F401  (re-exported: the engine, masks and observation read by it)

NUM_SIDES = 2
TEAM_SIZE = 6
NUM_MOVE_SLOTS = 4
NUM_BOOSTS = len(tables.BOOSTS)   # atk def spa spd spe accuracy evasion

# What the next decision is (the same codes as the Gen 1 engine's ``battle.request``). REQUEST_START:
# a battle whose leads have not been sent out yet; its next step runs Showdown's ``start`` and ignores
# the actions.
REQUEST_MOVE, REQUEST_SWITCH, REQUEST_ENDED, REQUEST_START = 0, 1, 2, 3
WINNER_NONE, WINNER_P1, WINNER_P2, WINNER_TIE = -1, 0, 1, 2
# Showdown's major status ids, by index (0: none).
STATUSES = ("", "brn", "par", "slp", "frz", "psn", "tox")
STATUS_NONE, BRN, PAR, SLP, FRZ, PSN, TOX = range(len(STATUSES))
# The entry hazards (Showdown's side conditions) of ``BattleState.hazards``, and their most layers.
HAZARDS = ("stealthrock", "spikes", "toxicspikes", "stickyweb")
HAZARD_LAYERS = (1, 3, 2, 1)
# the active's volatiles that the residual lists (a residual handler or a duration): ``volatile_order``'s axis
# The weathers (Showdown's ``field.weather``) of ``BattleState.weather``, by index (0: none); the moves setting one last
# WEATHER_TURNS turns (no item extends them in these battles).
WEATHERS = ("", "raindance", "sunnyday", "snowscape")
WEATHER_NONE, RAIN, SUN, SNOW = range(len(WEATHERS))
WEATHER_TURNS = 5
# The screens (Showdown's side conditions) of ``BattleState.screens``; set for SCREEN_TURNS turns (no Light Clay here).
SCREENS = ("reflect", "lightscreen", "auroraveil")
SCREEN_TURNS = 5
LISTED_VOLATILES = ("flinch", "protect", "stall", "taunt", "encore", "throatchop", "healblock", "roost", "leechseed",
                    "yawn", "lockedmove", "mustrecharge", "twoturnmove", "saltcure")


@struct.dataclass
class BattleState:
    """A batch of Gen 9 singles battles. Indices are those of ``pokejax.gen9.data.tables``."""
    # ---- per Pokémon [B, 2, 6, ...], in team order
    species: jnp.ndarray        # int32 species index (its current forme)
    level: jnp.ndarray          # int32
    types: jnp.ndarray          # int32 [.., 2] Showdown's ``types`` (not the Tera type; TYPE_NONE second if one type)
    stats: jnp.ndarray          # int32 [.., 5] Showdown's ``storedStats``: atk def spa spd spe (damage.py's layout)
    max_hp: jnp.ndarray         # int32 Showdown's ``maxhp``
    hp: jnp.ndarray             # int32; 0 = fainted
    status: jnp.ndarray         # int32 index into STATUSES
    status_count: jnp.ndarray   # int32 Showdown's ``statusState`` counter: tox's ``stage`` (0-15, reset on
                                # switching in), slp's ``time`` (turns left, drawn 2-4); 0 otherwise
    moves: jnp.ndarray          # int32 [.., 4] move slots (0 = empty slot)
    pp: jnp.ndarray             # int32 [.., 4]
    max_pp: jnp.ndarray         # int32 [.., 4]
    ability: jnp.ndarray        # int32
    item: jnp.ndarray           # int32 (0 = none)
    self_sleep: jnp.ndarray     # bool: its sleep is its own doing (Rest: Showdown's ``statusState.source`` an ally), which
                                # the Sleep Clause Mod does not count; set with every status, read only under slp
    tera_type: jnp.ndarray      # int32 type index
    terastallized: jnp.ndarray  # bool
    stellar: jnp.ndarray        # int32 bit mask (bit = type index) of Showdown's ``stellarBoostedTypes``
    times_attacked: jnp.ndarray  # int32 Showdown's ``timesAttacked``: hits of damaging moves taken (kept on switching;
                                # Rage Fist reads it)
    position: jnp.ndarray       # int32 Showdown's ``position``: the Pokémon's place in ``side.pokemon`` (team order at the
                                # start, the active at 0; a switch swaps the Pokémon coming in with the active), the order
                                # in which a forced switch (Roar, Dragon Tail) samples the benched
    # ---- per side [B, 2, ...]
    team_size: jnp.ndarray      # int32 Pokémon in the team (1-6; slots from team_size on are empty)
    active: jnp.ndarray         # int32 team slot of the active Pokémon
    boosts: jnp.ndarray         # int32 [.., 7] the active's stages (tables.BOOSTS order)
    can_tera: jnp.ndarray       # bool: the side may still Terastallize (Showdown's canTerastallize of its Pokémon)
    switch_flag: jnp.ndarray    # bool: in a REQUEST_SWITCH, this side must choose a switch (Showdown's switchFlag)
    flinch: jnp.ndarray         # bool: the active holds Showdown's ``flinch`` volatile (set by a flinch
                                # secondary, removed by its duration at the residual or on fainting; it
                                # stays in a battle that ended in the residual before its handler ran)
    confusion: jnp.ndarray      # int32 the turns left of the active's ``confusion`` volatile (Showdown's
                                # ``volatiles.confusion.time``, drawn 2-5 when set; 0: not confused; cleared
                                # on switching out and on fainting)
    moved: jnp.ndarray          # bool: the active has had a move action since switching in (Showdown's
                                # ``activeMoveActions > 0``; Fake Out fails after one)
    protect: jnp.ndarray        # bool: the active holds Showdown's ``protect`` volatile (Protect succeeded this turn; its
                                # duration of 1 ends it at the residual, fainting clears it; it stays in a battle that
                                # ended in the residual before its handler ran)
    stall: jnp.ndarray          # int32 the counter of the active's ``stall`` volatile (3, 9, ... 729: the next Protect
                                # succeeds on ``randomChance(1, counter)``), 0: none. Set or tripled by a successful
                                # Protect (its duration of 2 then outlasts one residual), gone at the residual of a turn
                                # with no successful Protect, on a failed one's draw, on switching out and on fainting
    sub_hp: jnp.ndarray         # int32 the HP of the active's ``substitute`` volatile (Showdown's
                                # ``volatiles.substitute.hp``, floor(maxhp / 4) when made), 0: none; gone when broken,
                                # on switching out and on fainting
    taunt: jnp.ndarray          # int32 the turns left of the active's ``taunt`` volatile (Showdown's ``duration``: 3 when set,
                                # 4 on a target that had moved this turn and not switched in; its residual handler counts
                                # it down, ending it at 0), 0: none; its status moves are disabled. Cleared on switching out
                                # and on fainting
    throat_chop: jnp.ndarray    # int32 the turns left of the active's ``throatchop`` volatile (Throat Chop's secondary: 2 when
                                # set, counted down by its residual handler), 0: none; its sound moves are disabled
    heal_block: jnp.ndarray     # int32 the turns left of the active's ``healblock`` volatile (Psychic Noise's secondary: 2
                                # when set), 0: none; its moves with the ``heal`` flag are disabled
    last_move: jnp.ndarray      # int32 the move slot (0-3) of the active's ``lastMove`` (set when a move action gets past
                                # ``BeforeMove`` and its PP: ``moveUsed``), 4: Struggle (in no slot), -1: none; cleared on
                                # switching out and on fainting (``clearVolatile``)
    encore: jnp.ndarray         # int32 the turns left of the active's ``encore`` volatile (``duration``: 3 when set, 4 on a
                                # target whose move action ran this turn; counted down by its residual handler, which also
                                # ends it when the encored move has no PP left), 0: none; cleared on switching out and fainting
    encore_slot: jnp.ndarray    # int32 the move slot of the encored move (``effectState.move``), read while ``encore`` > 0
    locked: jnp.ndarray         # int32 the ``duration`` of the active's ``lockedmove`` volatile (Outrage, Petal Dance: 2 when
                                # its move starts or restarts it, counted down by the residual), 0: none. While it is held
                                # the request offers that move alone, no switch and no Terastallization, and it spends no
                                # PP. Cleared on switching out and on fainting
    locked_turns: jnp.ndarray   # int32 its ``trueDuration`` (drawn 2-3 when it starts, one less at each residual): the
                                # lock ends in confusion when it runs out (``onEnd``: 1 or less); read while ``locked`` > 0
    locked_slot: jnp.ndarray    # int32 the move slot of the locked move (``effectState.move``), read while ``locked`` > 0
    recharge: jnp.ndarray       # bool: the active holds Showdown's ``mustrecharge`` volatile (Giga Impact's hit: its next
                                # move action is the recharge, offered alone; its ``BeforeMove`` ends it). Cleared on
                                # switching out and on fainting
    charge: jnp.ndarray         # int32 the duration left of the active's ``twoturnmove`` volatile (Meteor Beam, Solar
                                # Beam: 2 when it charges, 1 after a residual, which ends it at 0; 0: none). While held
                                # the request offers the charging move alone and it spends no PP
    charged: jnp.ndarray        # bool: the active holds the charging move's own volatile (its next use hits: its
                                # ``onTryMove`` removes it); ``twoturnmove`` then stays until the residual
    no_retreat: jnp.ndarray     # bool: the active holds Showdown's ``noretreat`` volatile (No Retreat): trapped (no
                                # switch chosen) unless a Ghost; cleared on switching out and on fainting
    salt_cure: jnp.ndarray      # bool: the active holds Showdown's ``saltcure`` volatile (Salt Cure: 1/8 of its max HP,
                                # 1/4 for a Water or Steel type, at each residual); cleared on switching out and fainting
    glaive: jnp.ndarray         # bool: the active holds Showdown's ``glaiverush`` volatile (Glaive Rush's ``self``: moves
                                # aimed at it never miss and deal double damage, until its next BeforeMove)
    shackled: jnp.ndarray       # bool: the active holds Showdown's ``trapped`` volatile (Spirit Shackle): no switch offered
                                # unless a Ghost; cleared when it or the foe's active (its trapper) leaves the field
    move_failed: jnp.ndarray    # bool: the active's move action this turn failed (Showdown's ``moveThisTurnResult ===
                                # false``: a BeforeMove that stopped it, a miss, an immunity, an ``onTry`` or a status
                                # effect that failed; not a Protect that blocked it, a recharge or a charge: ``null``)
    move_failed_last: jnp.ndarray   # bool: and last turn's (``moveLastTurnResult === false``: Stomping Tantrum's and
                                # Temper Flare's doubling); both cleared on switching in
    charge_slot: jnp.ndarray    # int32 the move slot of the charging move (``twoturnmove``'s ``effectState.move``),
                                # read while ``charge`` > 0
    seeded: jnp.ndarray         # bool: the active holds Showdown's ``leechseed`` volatile (its source the foe's slot);
                                # switching out, fainting and its own Rapid Spin remove it
    yawn: jnp.ndarray           # int32 the duration left of the active's ``yawn`` volatile (2 when set, 1 after a residual;
                                # at the next residual it ends: sleep through ``trySetStatus``), 0: none
    raised: jnp.ndarray         # bool: a ``boost`` moved one of the active's stages up this turn (Showdown's
                                # ``statsRaisedThisTurn``; Alluring Voice reads it); cleared at ``nextTurn`` and on switching
    lowered: jnp.ndarray        # bool: one moved down (``statsLoweredThisTurn``; Lash Out reads it); cleared the same way
    volatile_order: jnp.ndarray  # int32 [.., 14] the place of each of the active's volatiles listed by the residual
                                # (``turn.LISTED_VOLATILES``) in the order they were added (Showdown's ``volatiles``
                                # keys: the residual's handlers are collected in it): larger is later, compared among
                                # those it holds; 0: not held
    hazards: jnp.ndarray        # int32 [.., 4] the entry hazards on the side (HAZARDS order): Stealth Rock (0-1),
                                # Spikes (0-3 layers), Toxic Spikes (0-2 layers), Sticky Web (0-1)
    hazard_order: jnp.ndarray   # int32 [.., 4] each hazard's rank (1-4) in the order they were set on the side
                                # (Showdown's effectOrder, the order their SwitchIn handlers run), 0: absent
    faint_speed: jnp.ndarray    # int32 the speed Showdown keeps cached (``Pokemon.speed``) for the side's
                                # active that fainted last: its speed stat (fainting's clearVolatile calls
                                # setSpecies; the residual's sort of the turn it fainted in still counts
                                # its status handler)
    screens: jnp.ndarray        # int32 [.., 3] the turns left of each screen on the side (SCREENS order; Showdown's side
                                # condition's ``duration``: 5 when set, one less at each residual, gone at 0), 0: none
    wish_hp: jnp.ndarray        # int32 the max HP of the Pokémon whose Wish waits in the side's slot (Showdown's slot
                                # condition ``wish`` keeps half of it; its heal truncates that, at least 1), 0: none
    wish_turn: jnp.ndarray      # int32 that Wish's ``startingTurn`` (the turn it was made - 1, mod 256: it heals the slot's
                                # active at the residual of a later turn), -1: none
    queued: jnp.ndarray         # int32 at a self-switch's mid-turn request (``mid_turn``): the move slot of the side's
                                # move action still queued this turn (Showdown's ``queue``; 0 for Struggle), -1: none
    # ---- per battle [B, ...]
    weather: jnp.ndarray        # int32 index into WEATHERS (Showdown's ``field.weather``)
    weather_turns: jnp.ndarray  # int32 its turns left (``weatherState.duration``: 5 when set, one less at each residual,
                                # ended at 0), 0 with no weather
    mid_turn: jnp.ndarray       # bool: this REQUEST_SWITCH is a self-switch's (U-turn...) in the middle of a turn: the
                                # rest of the turn (``queued``, the residual) runs after the switch-in
    rng: jnp.ndarray            # uint32 [.., 2] Showdown's battle PRNG (Gen 5 LCG, ``pokejax.prng``)
    turn: jnp.ndarray           # int32 Showdown's ``battle.turn`` (0 before the start)
    request: jnp.ndarray        # int32 REQUEST_*
    winner: jnp.ndarray         # int32 WINNER_*

    def active_of(self, field: jnp.ndarray) -> jnp.ndarray:
        """A per-Pokémon field ``[..., 2, 6, *rest]`` at each side's active slot: ``[..., 2, *rest]``."""
        return active_of(field, self.active)


def active_of(field, active) -> jnp.ndarray:
    """``field[..., side, active[..., side], *rest]`` for a per-Pokémon ``field`` (team axis after the
    side axis) and ``active`` ``[..., 2]``; works with or without the batch axis."""
    return select(field, active)


def _pool_arrays(pool) -> dict[str, np.ndarray]:
    """The per-Pokémon fields of every pool team ``[N, 6, ...]``, as Showdown's Pokémon constructor
    sets them."""
    t = tables.load()
    moves = np.asarray(pool.moves, np.int32)
    # Showdown's Pokemon constructor: three PP Ups on every move (``calculatePP``: pp * 8/5) unless
    # the move has noPPBoosts; the tables hold that figure (0 for an empty slot).
    max_pp = t.move_pp[moves].astype(np.int32)
    return {
        "species": np.asarray(pool.species, np.int32),
        "level": np.asarray(pool.level, np.int32),
        "types": np.asarray(pool.types, np.int32),
        "stats": np.asarray(pool.stats[..., 1:], np.int32),
        "max_hp": np.asarray(pool.stats[..., 0], np.int32),
        "moves": moves,
        "max_pp": max_pp,
        "ability": np.asarray(pool.ability, np.int32),
        "item": np.asarray(pool.item, np.int32),
        "tera_type": np.asarray(pool.tera_type, np.int32),
        "team_size": (np.asarray(pool.species) != 0).sum(axis=-1).astype(np.int32),
    }


def from_pool(pool, team_index_p1, team_index_p2, seed) -> BattleState:
    """``[B]`` new battles of pool teams: p1 gets team ``team_index_p1[b]``, p2 ``team_index_p2[b]``
    (int arrays ``[B]``, may be traced), and the battle PRNG starts at ``seed`` (``uint32[B, 2]``,
    ``pokejax.prng`` states, e.g. ``prng.seed_from_words`` stacked). ``pool``: a
    ``pokejax.gen9.pool.Pool`` (``pool.load_pool()``).

    The state is Showdown's battle before ``start`` (``REQUEST_START``, turn 0, the leads in slot 0
    not yet switched in): full HP and PP, no status, no stages, not Terastallized, both sides able to
    Terastallize, no entry hazards."""
    p1, p2 = jnp.asarray(team_index_p1), jnp.asarray(team_index_p2)
    if p1.ndim != 1 or p1.shape != p2.shape:
        raise ValueError(f"team indices must be [B] arrays of one shape, got {p1.shape} and {p2.shape}")
    if not (jnp.issubdtype(p1.dtype, jnp.integer) and jnp.issubdtype(p2.dtype, jnp.integer)):
        raise TypeError(f"team indices must be integers, got {p1.dtype} and {p2.dtype}")
    seed = jnp.asarray(seed)
    if seed.shape != p1.shape + (2,) or seed.dtype != jnp.uint32:
        raise ValueError(f"seed must be uint32[B, 2] with B = {p1.shape[0]}, got {seed.dtype}{list(seed.shape)}")
    teams = jnp.stack([p1, p2], axis=-1)   # [B, 2]
    # every field of a team side by side in one int32 row: one row gather per side, not one per field
    # (an accelerator runs a gather at a per-battle index as one slow lookup per battle, whatever its width)
    fields = _pool_arrays(pool)
    packed = np.concatenate([v.reshape(len(v), -1) for v in fields.values()], axis=1)
    gathered = jnp.asarray(packed)[teams]   # [B, 2, W]
    ends = np.cumsum([0] + [int(np.prod(v.shape[1:])) for v in fields.values()])
    rows = {k: gathered[..., a:b].reshape(teams.shape + v.shape[1:])
            for (k, v), a, b in zip(fields.items(), ends[:-1], ends[1:])}
    size = rows.pop("team_size")
    shape = teams.shape + (TEAM_SIZE,)
    b = p1.shape[0]
    return BattleState(
        **rows,
        hp=rows["max_hp"],
        status=jnp.zeros(shape, jnp.int32),
        status_count=jnp.zeros(shape, jnp.int32),
        self_sleep=jnp.zeros(shape, bool),
        pp=rows["max_pp"],
        terastallized=jnp.zeros(shape, bool),
        stellar=jnp.zeros(shape, jnp.int32),
        times_attacked=jnp.zeros(shape, jnp.int32),
        position=jnp.broadcast_to(jnp.arange(TEAM_SIZE, dtype=jnp.int32), shape),
        team_size=size,
        active=jnp.zeros(teams.shape, jnp.int32),
        boosts=jnp.zeros(teams.shape + (NUM_BOOSTS,), jnp.int32),
        can_tera=jnp.ones(teams.shape, bool),
        switch_flag=jnp.zeros(teams.shape, bool),
        flinch=jnp.zeros(teams.shape, bool),
        confusion=jnp.zeros(teams.shape, jnp.int32),
        moved=jnp.zeros(teams.shape, bool),
        protect=jnp.zeros(teams.shape, bool),
        stall=jnp.zeros(teams.shape, jnp.int32),
        sub_hp=jnp.zeros(teams.shape, jnp.int32),
        taunt=jnp.zeros(teams.shape, jnp.int32),
        throat_chop=jnp.zeros(teams.shape, jnp.int32),
        heal_block=jnp.zeros(teams.shape, jnp.int32),
        last_move=jnp.full(teams.shape, -1, jnp.int32),
        encore=jnp.zeros(teams.shape, jnp.int32),
        encore_slot=jnp.zeros(teams.shape, jnp.int32),
        locked=jnp.zeros(teams.shape, jnp.int32),
        locked_turns=jnp.zeros(teams.shape, jnp.int32),
        locked_slot=jnp.zeros(teams.shape, jnp.int32),
        recharge=jnp.zeros(teams.shape, bool),
        charge=jnp.zeros(teams.shape, jnp.int32),
        charged=jnp.zeros(teams.shape, bool),
        charge_slot=jnp.zeros(teams.shape, jnp.int32),
        no_retreat=jnp.zeros(teams.shape, bool),
        shackled=jnp.zeros(teams.shape, bool),
        glaive=jnp.zeros(teams.shape, bool),
        move_failed=jnp.zeros(teams.shape, bool),
        move_failed_last=jnp.zeros(teams.shape, bool),
        salt_cure=jnp.zeros(teams.shape, bool),
        seeded=jnp.zeros(teams.shape, bool),
        yawn=jnp.zeros(teams.shape, jnp.int32),
        raised=jnp.zeros(teams.shape, bool),
        lowered=jnp.zeros(teams.shape, bool),
        volatile_order=jnp.zeros(teams.shape + (len(LISTED_VOLATILES),), jnp.int32),
        hazards=jnp.zeros(teams.shape + (len(HAZARDS),), jnp.int32),
        hazard_order=jnp.zeros(teams.shape + (len(HAZARDS),), jnp.int32),
        faint_speed=jnp.zeros(teams.shape, jnp.int32),
        screens=jnp.zeros(teams.shape + (len(SCREENS),), jnp.int32),
        wish_hp=jnp.zeros(teams.shape, jnp.int32),
        wish_turn=jnp.full(teams.shape, -1, jnp.int32),
        queued=jnp.full(teams.shape, -1, jnp.int32),
        weather=jnp.zeros(b, jnp.int32),
        weather_turns=jnp.zeros(b, jnp.int32),
        mid_turn=jnp.zeros(b, bool),
        rng=seed,
        turn=jnp.zeros(b, jnp.int32),
        request=jnp.full(b, REQUEST_START, jnp.int32),
        winner=jnp.full(b, WINNER_NONE, jnp.int32),
    )
