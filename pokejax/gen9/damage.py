"""Gen 9 damage as a batched pure function (stage 1 of the Gen 9 engine).

``damage(...)`` is elementwise over any batch shape: every argument is an array of shape ``[B]``
(``[B, 5]`` for stats and boosts), or the same without the leading ``B`` under ``jax.vmap``; there is
no Python control flow on values, only masks. The arithmetic follows the order of Showdown's
``BattleActions.getDamage`` and ``modifyDamage`` (read from the pinned package's
``sim/battle-actions.ts`` and ``sim/battle.ts``):

1. an immunity from the defender's current types (its Tera type alone once Terastallized, but its
   original types under a Stellar Tera) ends the
   hit (Showdown returns ``false``); a move with no base power deals nothing (``undefined``); a
   fixed-damage move (Seismic Toss, Night Shade) deals the user's level;
2. a Terastallized user's move of its Tera type (Stellar: of a type not boosted yet) with base power
   under 60, priority <= 0 and one hit gets base power 60;
3. the attacking and defending stats with their stages (a critical hit drops the attacker's negative
   stages and the defender's positive ones; Sacred Sword's ``ignoreDefensive`` drops the defender's
   stages), Body Press / Psyshock / Foul Play choosing the stat and the Pokémon as their data say; snow's 1.5 on an Ice
   type's Defense (``ice_def``);
4. ``floor(floor(floor(floor(2 L / 5 + 2) * P * A) / D) / 50) + 2``, then the weather's modifier (``modify``: rain
   1.5 on Water, 0.5 on Fire; sun the other way round), which the caller passes as ``weather_mod``;
5. critical hit ``floor(x * 1.5)``; damage roll ``floor(x * (100 - roll) / 100)`` for roll 0-15;
6. STAB through Showdown's ``modify`` (4096ths, ``(x * m + 2047) >> 12``): 1.5 for a move of an
   original type or of the Tera type, 2 when the Tera type is also an original type; a Stellar user's
   first hit of each type: 2 for an original type, 4915/4096 for another (then 1.5 or 1 again);
7. type effectiveness: doubling per super-effective type, halving (floored) per resistance;
8. burn halves a physical move's damage (``modify`` by 0.5); a screen on the defender's side halves a hit that is not
   critical (``modify`` by 0.5: ``screened``, the caller's); 0 becomes 1; 16-bit truncation.

Integer arithmetic is unsigned 32-bit, as Showdown's ``trunc`` (``x >>> 0``) wraps. Out of scope
until later stages (and so not in the L1 cases): abilities, items, terrain, screens, moves
whose power or damage Showdown computes in code (``basePowerCallback``, ``onBasePower``,
``damageCallback``...; Tera Blast, the one Stellar-type move, among them), Terapagos (whose Stellar
forme keeps its boosts), spread and Parental Bond modifiers.
"""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from pokejax.gen9.data import tables
from pokejax.gen9.state import select

# Showdown's crit chance by crit ratio from Gen 7 on: 1 in CRIT_DENOMINATOR[ratio] (ratio clamped to 0-4).
CRIT_DENOMINATOR = (0, 24, 8, 2, 1)
KIND_DAMAGE, KIND_IMMUNE, KIND_NONE = 0, 1, 2   # a number; Showdown's false; Showdown's undefined

_U = jnp.uint32


STELLAR = 17   # tables.load().type_index["Stellar"], checked below


class Damage(NamedTuple):
    damage: jnp.ndarray    # int32, 0 unless kind == KIND_DAMAGE
    kind: jnp.ndarray      # KIND_DAMAGE / KIND_IMMUNE / KIND_NONE
    type_mod: jnp.ndarray  # summed effectiveness (+1 per doubling, -1 per halving), clamped to [-6, 6]
    stellar: jnp.ndarray   # int32 bit mask of the types a Stellar user has had its one-time boost for, after the hit


def modify(value, modifier_4096):
    """Showdown's ``Battle.modify(value, m)`` with ``m`` given in 4096ths: ``trunc((trunc(value * m) + 2047) / 4096)``."""
    product = value.astype(_U) * jnp.asarray(modifier_4096).astype(_U)
    return (product >> 12) + (((product & 4095) + 2047) >> 12)


def boosted_stat(stat, boost):
    """``Pokemon.calculateStat`` without modifiers: stage -6…+6 as ``floor(stat * (2 + b) / 2)`` or
    ``floor(stat * 2 / (2 - b))``."""
    stat = stat.astype(_U)
    b = jnp.clip(boost, -6, 6)
    up = stat * (2 + jnp.maximum(b, 0)).astype(_U) // 2
    down = stat * 2 // (2 - jnp.minimum(b, 0)).astype(_U)
    return jnp.where(b >= 0, up, down)


def current_types(types, tera):
    """A Pokémon's types as Showdown's ``getTypes`` gives them: its Tera type alone once
    Terastallized (``tera``; ``tables.TYPE_NONE`` when not), else its two original ``types``
    ``[..., 2]`` (a Stellar Tera keeps them). Returns ``(first, second)``, ``TYPE_NONE`` second."""
    tera_on = (tera != tables.TYPE_NONE) & (tera != STELLAR)
    return (jnp.where(tera_on, tera, types[..., 0]), jnp.where(tera_on, tables.TYPE_NONE, types[..., 1]))


def effectiveness(move_type, def_types, def_tera):
    """(immune, type_mod) of a move type against a defender: its two original types, or its Tera type
    alone (a Stellar Tera keeps the original types defensively)."""
    chart = np.asarray(tables.load().type_chart)
    first, second = current_types(def_types, def_tera)
    lead = jnp.broadcast_shapes(jnp.shape(move_type), jnp.shape(first))
    row = jnp.broadcast_to(tables.take_rows(chart, move_type), lead + chart.shape[1:])   # one row read, then selects
    codes = jnp.stack([select(row, jnp.broadcast_to(first, lead)), select(row, jnp.broadcast_to(second, lead))], axis=-1)
    immune = jnp.any(codes == 3, axis=-1)
    type_mod = jnp.sum(jnp.where(codes == 1, 1, jnp.where(codes == 2, -1, 0)), axis=-1)
    return immune, jnp.clip(type_mod, -6, 6)


def damage(move, level, atk_stats, atk_boosts, atk_types, atk_tera, atk_burned,
           def_stats, def_boosts, def_types, def_tera, crit, roll, atk_stellar=0, typeless=False,
           power=None, move_type=None, physical=None, fixed=None, row=None, eff=None, weather_mod=4096,
           ice_def=False, screened=False, double_damage=False) -> Damage:
    """One hit's damage (see the module docstring for the order and the scope).

    move: move index (``tables.load().move_index``); level: the user's level; ``*_stats``: stored
    stats atk def spa spd spe ``[..., 5]``; ``*_boosts``: the same five stages ``[..., 5]``;
    ``*_types``: original types ``[..., 2]`` (``tables.TYPE_NONE`` second); ``*_tera``: the Tera type
    once Terastallized, else ``tables.TYPE_NONE``; atk_burned: the user is burned; crit: the hit is
    critical; roll: the damage roll 0-15 (Showdown's ``random(16)``); atk_stellar: for a user
    Terastallized to Stellar, the bit mask (bit = type index) of the types it has used its one-time
    boost for (Showdown's ``stellarBoostedTypes``; for the second and later hits of a multi-hit move,
    pass the mask from before the move, as Showdown's ``move.stellarBoosted`` keeps the boost);
    typeless: the move's type is Showdown's ``???`` (Struggle's ``onModifyMove``): no immunity, no
    effectiveness, no STAB and no Stellar boost, but a Stellar user's Tera floor of 60 base power
    (Showdown's floor asks whether ``???`` was boosted already, which it never is).

    The battle-dependent moves (``turn.power_moves()``) pass what their code computes: ``power``, the
    base power after ``basePowerCallback`` and ``BasePower`` (by default the move's; a move whose data
    base power is 0 or 150 gets no Tera floor: Showdown's check for variable-power moves); ``move_type``
    (``onModifyType``: Tera Blast); ``physical`` (Tera Blast's ``onModifyMove``: Atk and Def, burn
    counts); ``fixed`` (a ``damageCallback``'s damage, Super Fang's; > 0 where it applies).

    ``weather_mod``: the ``WeatherModifyDamage`` event's modifier in 4096ths (rain's 1.5 on a Water move: 6144), applied
    to the base damage before the critical hit; ``ice_def``: snow's ``onModifyDef`` (``modify`` by 1.5) on the
    defender's Defense where the move reads it (Body Press's own Defense runs ``ModifyAtk``: not modified);
    ``screened``: a screen on the defender's side halves a hit that is not critical, after the burn; ``double_damage``: the
    defender's Glaive Rush volatile doubles it (one ``ModifyDamage`` modifier, chained: ``modify`` once).

    ``row`` and ``eff``: the move's ``tables.move_table()`` row and ``effectiveness(move_type, def_types,
    def_tera)`` when the caller has them already (a multi-hit move's later hits: no second gather).
    """
    for name, value, width in (("atk_stats", atk_stats, 5), ("atk_boosts", atk_boosts, 5), ("def_stats", def_stats, 5),
                               ("def_boosts", def_boosts, 5), ("atk_types", atk_types, 2), ("def_types", def_types, 2)):
        if jnp.ndim(value) < 1 or jnp.shape(value)[-1] != width:
            raise ValueError(f"{name} must have a last axis of {width}, got shape {jnp.shape(value)}")
    if not jnp.issubdtype(jnp.asarray(move).dtype, jnp.integer):
        raise TypeError(f"move must hold integer move indices, got {jnp.asarray(move).dtype}")
    m = tables.move_table().at(move) if row is None else row   # one row gather for every column below
    # Showdown's exclusion of variable-power moves from the Tera floor: data base power 0 or 150 with a
    # basePowerCallback (without one, such a move never reaches the floor: no power, or 150)
    variable = (m.power == 0) | (m.power == 150)
    power = m.power if power is None else jnp.asarray(power)
    move_type = m.type if move_type is None else jnp.asarray(move_type)
    category = m.category
    move_type = jnp.where(jnp.asarray(typeless), tables.TYPE_NONE, move_type)
    off_stat, def_stat = m.offense_stat, m.defense_stat
    if physical is not None:
        category = jnp.where(physical, tables.PHYSICAL, category)
        off_stat, def_stat = jnp.where(physical, 0, off_stat), jnp.where(physical, 1, def_stat)
    level = jnp.asarray(level)
    atk_tera, def_tera = jnp.asarray(atk_tera), jnp.asarray(def_tera)

    immune, type_mod = effectiveness(move_type, jnp.asarray(def_types), def_tera) if eff is None else eff
    immune = immune & ~m.ignore_immunity

    fixed = m.fixed_damage if fixed is None else jnp.where(jnp.asarray(fixed) > 0, fixed, m.fixed_damage)
    no_power = (fixed == 0) & (power == 0)   # Showdown returns undefined before any modifier

    # 2. the Tera floor of 60 base power (Showdown: the user "hasType" its Tera type only; Stellar: any
    # type not boosted yet)
    stellar = atk_tera == STELLAR
    mask = jnp.asarray(atk_stellar).astype(_U)
    fresh = ((mask >> move_type.astype(_U)) & 1) == 0
    tera_floor = ((atk_tera != tables.TYPE_NONE) & jnp.where(stellar, fresh, move_type == atk_tera) & (power < 60)
                  & (m.priority <= 0) & ~m.multihit & ~variable)
    power = jnp.where(tera_floor, 60, power)

    # 3. stats and stages
    from_target = m.offense_target
    a_stat = jnp.where(from_target, select(def_stats, off_stat), select(atk_stats, off_stat))
    a_boost = jnp.where(from_target, select(def_boosts, off_stat), select(atk_boosts, off_stat))
    d_stat, d_boost = select(def_stats, def_stat), select(def_boosts, def_stat)
    crit = jnp.asarray(crit)
    a_boost = jnp.where((crit & (a_boost < 0)) | m.ignore_offensive, 0, a_boost)
    d_boost = jnp.where((crit & (d_boost > 0)) | m.ignore_defensive, 0, d_boost)
    attack, defense = boosted_stat(a_stat, a_boost), boosted_stat(d_stat, d_boost)
    defense = jnp.where(jnp.asarray(ice_def) & (def_stat == 1), modify(defense, 6144), defense)

    # 4. base damage
    lvl = (2 * level // 5 + 2).astype(_U)
    base = lvl * power.astype(_U) * attack // jnp.maximum(defense, 1) // 50 + 2
    base = modify(base, weather_mod)

    # 5. critical hit, damage roll
    base = jnp.where(crit, base + (base >> 1), base)
    base = base * (100 - jnp.asarray(roll)).astype(_U) // 100

    # 6. STAB; Stellar: a one-time 2x (original type) or 4915/4096 (other types) per type
    atk_types = jnp.asarray(atk_types)
    original = ((move_type == atk_types[..., 0]) | (move_type == atk_types[..., 1])) & (move_type != tables.TYPE_NONE)
    tera_match = (atk_tera != tables.TYPE_NONE) & (move_type == atk_tera)
    stab = jnp.where(tera_match & original, 8192, jnp.where(original | tera_match, 6144, 4096))
    stab = jnp.where(stellar & fresh, jnp.where(original, 8192, 4915), jnp.where(stellar, jnp.where(original, 6144, 4096), stab))
    stab = jnp.where(move_type == tables.TYPE_NONE, 4096, stab)   # Showdown skips STAB for "???"
    base = modify(base, stab)

    # 7. type effectiveness
    doubled = base << jnp.maximum(type_mod, 0).astype(_U)
    halved = base >> jnp.maximum(-type_mod, 0).astype(_U)
    base = jnp.where(type_mod > 0, doubled, halved)

    # 8. burn, the floor of 1, 16 bits
    burned = jnp.asarray(atk_burned) & (category == tables.PHYSICAL)
    base = jnp.where(burned, modify(base, 2048), base)
    final = jnp.where(jnp.asarray(double_damage), 8192, 4096)
    final = jnp.where(jnp.asarray(screened) & ~crit, (final * 2048 + 2048) >> 12, final)    # chainModify
    base = modify(base, final)
    base = jnp.where(base == 0, 1, base & 0xFFFF)

    out = jnp.where(fixed == -1, level, jnp.where(fixed > 0, fixed, base.astype(jnp.int32)))
    kind = jnp.where(immune, KIND_IMMUNE, jnp.where(no_power, KIND_NONE, KIND_DAMAGE))
    boosted = stellar & fresh & (kind == KIND_DAMAGE) & (fixed == 0) & (move_type != tables.TYPE_NONE)
    mask = jnp.where(boosted, mask | (jnp.asarray(1, _U) << move_type.astype(_U)), mask)
    return Damage(jnp.where(kind == KIND_DAMAGE, out, 0).astype(jnp.int32), kind.astype(jnp.int32),
                  type_mod.astype(jnp.int32), mask.astype(jnp.int32))


def hit(rng, move, level, atk_stats, atk_boosts, atk_types, atk_tera, atk_burned,
        def_stats, def_boosts, def_types, def_tera, atk_stellar=0, typeless=False,
        power=None, move_type=None, physical=None, fixed=None, eff=None, fickle=False, weather_mod=4096,
        ice_def=False, screened=False, sort_draws=0, double_damage=False):
    """``damage`` with Showdown's own draws on its PRNG (``pokejax.prng`` state ``uint32[..., 2]``):
    where the hit reaches the formula (no immunity, base power, not fixed damage), first the critical
    hit, ``randomChance(1, CRIT_DENOMINATOR[crit ratio])`` unless the move always crits (``willCrit``),
    then, where ``fickle`` (Fickle Beam's ``onBasePower``), ``randomChance(3, 10)`` doubling the base power, then the
    damage roll ``random(16)``; elsewhere no draw. Returns ``(rng, Damage, crit)``. The crit
    ratio is the move's (Focus Energy, Scope Lens and the like come with volatiles and items).
    ``power``, ``move_type``, ``physical``, ``fixed``, ``eff``, ``weather_mod``, ``ice_def``, ``screened``,
    ``double_damage``: as ``damage``'s. ``sort_draws`` (0-5): the draws of the ``ModifyDamage`` event's speed sort after the roll (the
    screens on the field are its handlers, all tied: k of them shuffled with k - 1 draws)."""
    from pokejax import prng
    m = tables.move_table().at(move)   # one row gather for every column below
    move_type = jnp.where(jnp.asarray(typeless), tables.TYPE_NONE, m.type if move_type is None else move_type)
    immune, _ = effectiveness(move_type, jnp.asarray(def_types), jnp.asarray(def_tera)) if eff is None else eff
    immune = immune & ~m.ignore_immunity
    no_fixed = (m.fixed_damage == 0) if fixed is None else (m.fixed_damage == 0) & ~(jnp.asarray(fixed) > 0)
    reaches = ~immune & no_fixed & ((m.power if power is None else jnp.asarray(power)) > 0)
    will_crit = m.will_crit
    ratio = jnp.clip(m.crit_ratio, 0, 4)
    rng, drawn = prng.random_chance(rng, 1, crit_denominator(ratio), when=reaches & ~will_crit & (ratio > 0))
    crit = reaches & (will_crit | ((ratio > 0) & drawn))
    # the BasePower event's chainModify(2): exactly double
    rng, doubled = prng.random_chance(rng, 3, 10, when=reaches & fickle)
    base = m.power if power is None else jnp.asarray(power)
    power = jnp.where(reaches & fickle & doubled, 2 * base, base)
    rng, roll = prng.random_int(rng, 16, when=reaches)
    rng = prng.skip(rng, jnp.where(reaches, sort_draws, 0), MAX_SORT_DRAWS)
    out = damage(move, level, atk_stats, atk_boosts, atk_types, atk_tera, atk_burned,
                 def_stats, def_boosts, def_types, def_tera, crit, roll, atk_stellar, typeless,
                 power, move_type, physical, fixed, row=m, eff=eff, weather_mod=weather_mod, ice_def=ice_def,
                 screened=screened, double_damage=double_damage)
    return rng, out, crit


# the most draws of the ModifyDamage event's sort: six screens on the field (three a side)
MAX_SORT_DRAWS = 5


def crit_denominator(crit_ratio):
    """1 in how many hits is critical at a crit ratio (0 = never), as in Showdown from Gen 7 on."""
    return tables.small_lookup(CRIT_DENOMINATOR, jnp.clip(jnp.asarray(crit_ratio), 0, 4))


def kernel_moves() -> list[str]:
    """The moves of the format whose damage ``damage`` computes as Showdown does in a battle with no
    abilities, items, weather or screens: damaging moves (base power or fixed damage) for which
    Showdown runs no code of the move's own (no ``callbacks``), so the data columns say everything.
    Their other effects (secondaries, recoil, drain, switching...) belong to later stages."""
    t = tables.load()
    return [t.move_ids[i] for i in range(1, len(t.move_ids))
            if t.move_category[i] != tables.STATUS and not t.move_callbacks[i]
            and (t.move_power[i] > 0 or t.move_fixed_damage[i] != 0)]


if tables.load().type_index["Stellar"] != STELLAR:
    raise RuntimeError("gen9.json moved the Stellar type: update pokejax.gen9.damage.STELLAR")
