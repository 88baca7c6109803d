"""Numeric tables for the engine, built from the generated ``gen1.json``.

Data fields (type, power, accuracy, PP, secondaries, boosts, ...) come from Showdown's dex.
What Showdown implements in callbacks is classified here by hand into ``Effect`` codes, one per
move; the engine dispatches on those codes with masks, not one branch per move.

Indices: species 1…151 by Pokédex number (0 = none); moves 1…164 by move number, 165 Struggle,
then engine-only pseudo moves; types 0…14 in Showdown's gen-1 order, 15 = typeless (``???``).
"""

from __future__ import annotations

import enum
import functools
import json
import pathlib
from dataclasses import dataclass

import numpy as np

DATA_FILE = pathlib.Path(__file__).resolve().parent / "gen1.json"

NUM_TYPES = 15
TYPE_NONE = 15                  # "???" moves and a missing second type

# Status codes (0 = healthy).
STATUS_NONE, SLP, PSN, BRN, FRZ, PAR, TOX = range(7)
STATUS_NAMES = ["", "slp", "psn", "brn", "frz", "par", "tox"]

# Stat order used everywhere: boosts have 7 entries, stats the first 5.
STATS = ["atk", "def", "spa", "spd", "spe"]
BOOSTS = STATS + ["accuracy", "evasion"]
ATK, DEF, SPA, SPD, SPE, ACC, EVA = range(7)

# Move ids beyond the dex: Showdown's placeholder moves.
STRUGGLE = 165
NOMOVE = 166        # a Pokémon thawed before it ever selected a move ("???", 102 BP Special)
CANNOTMOVE = 167    # choice of a partially trapped Pokémon: no move, only AfterMoveSelf
NUM_MOVES = 168


class Effect(enum.IntEnum):
    """What a move does beyond the generic damage/status/boost/secondary columns."""
    NONE = 0
    COUNTER = 1
    SUPER_FANG = 2
    PSYWAVE = 3
    HAZE = 4
    REST = 5
    RECOVER = 6          # Recover, Soft-Boiled
    TRANSFORM = 7
    MIMIC = 8
    METRONOME = 9
    MIRROR_MOVE = 10
    BIDE = 11
    SUBSTITUTE = 12
    DISABLE = 13
    CONVERSION = 14
    LEECH_SEED = 15
    DREAM_EATER = 16
    CHARGE = 17          # Razor Wind, Skull Bash, Sky Attack, Solar Beam
    CHARGE_INVULNERABLE = 18  # Dig, Fly
    CRASH = 19           # Jump Kick, Hi Jump Kick: 1 HP on failure
    SCREEN = 20          # Reflect, Light Screen (volatile on the user; fail if present)
    TRAP = 21            # Wrap, Bind, Clamp, Fire Spin
    THRASH = 22          # Thrash, Petal Dance (lockedmove)
    RAGE = 23
    HYPER_BEAM = 24
    FOCUS_ENERGY = 25
    MIST = 26
    NOTHING = 27         # Splash, Teleport, Roar, Whirlwind, Pay Day: no effect (Splash says so)
    OHKO = 28
    STRUGGLE = 29
    SELF_VOLATILE_NOOP = 30  # Minimize, Defense Curl: a boost plus a volatile with no gen-1 effect


_EFFECT_BY_ID = {
    "counter": Effect.COUNTER, "superfang": Effect.SUPER_FANG, "psywave": Effect.PSYWAVE,
    "haze": Effect.HAZE, "rest": Effect.REST, "recover": Effect.RECOVER, "softboiled": Effect.RECOVER,
    "transform": Effect.TRANSFORM, "mimic": Effect.MIMIC, "metronome": Effect.METRONOME,
    "mirrormove": Effect.MIRROR_MOVE, "bide": Effect.BIDE, "substitute": Effect.SUBSTITUTE,
    "disable": Effect.DISABLE, "conversion": Effect.CONVERSION, "leechseed": Effect.LEECH_SEED,
    "dreameater": Effect.DREAM_EATER,
    "razorwind": Effect.CHARGE, "skullbash": Effect.CHARGE, "skyattack": Effect.CHARGE, "solarbeam": Effect.CHARGE,
    "dig": Effect.CHARGE_INVULNERABLE, "fly": Effect.CHARGE_INVULNERABLE,
    "jumpkick": Effect.CRASH, "highjumpkick": Effect.CRASH,
    "reflect": Effect.SCREEN, "lightscreen": Effect.SCREEN,
    "wrap": Effect.TRAP, "bind": Effect.TRAP, "clamp": Effect.TRAP, "firespin": Effect.TRAP,
    "thrash": Effect.THRASH, "petaldance": Effect.THRASH, "rage": Effect.RAGE, "hyperbeam": Effect.HYPER_BEAM,
    "focusenergy": Effect.FOCUS_ENERGY, "mist": Effect.MIST,
    "splash": Effect.NOTHING, "teleport": Effect.NOTHING, "roar": Effect.NOTHING, "whirlwind": Effect.NOTHING,
    "payday": Effect.NOTHING,
    "guillotine": Effect.OHKO, "horndrill": Effect.OHKO, "fissure": Effect.OHKO,
    "struggle": Effect.STRUGGLE,
    "minimize": Effect.SELF_VOLATILE_NOOP, "defensecurl": Effect.SELF_VOLATILE_NOOP,
}

# Volatile statuses a move's *primary* effect adds to its target.
PRIMARY_VOLATILE_NONE, PRIMARY_VOLATILE_CONFUSION = 0, 1

SECONDARY_NONE, SECONDARY_STATUS, SECONDARY_FLINCH, SECONDARY_CONFUSION, SECONDARY_BOOST = range(5)

CATEGORY_PHYSICAL, CATEGORY_SPECIAL, CATEGORY_STATUS = range(3)


@dataclass(frozen=True)
class Tables:
    """All numeric tables, as numpy arrays (turned into JAX constants where used)."""
    type_names: tuple[str, ...]
    type_chart: np.ndarray        # [16, 16] int: 0 neutral, 1 super, 2 resisted, 3 immune (attacking, defending)
    species_ids: tuple[str, ...]  # index -> Showdown id ("" for 0)
    species_base: np.ndarray      # [152, 6] hp atk def spa spd spe
    species_types: np.ndarray     # [152, 2]
    move_ids: tuple[str, ...]     # index -> Showdown id
    move_type: np.ndarray
    move_category: np.ndarray
    move_power: np.ndarray
    move_accuracy: np.ndarray     # 0-255 byte (floor(acc*255/100)); -1 = never misses (accuracy true)
    move_pp: np.ndarray
    move_maxpp: np.ndarray
    move_priority: np.ndarray
    move_high_crit: np.ndarray    # critRatio 2
    move_targets_self: np.ndarray
    move_ignore_immunity: np.ndarray
    move_multihit: np.ndarray     # 0 single, 2 exactly two, 5 two-to-five
    move_recoil_num: np.ndarray
    move_recoil_den: np.ndarray
    move_drain: np.ndarray        # heals half the damage dealt
    move_fixed_damage: np.ndarray  # 0 none, -1 user's level, n > 0 exactly n
    move_selfdestruct: np.ndarray
    move_status: np.ndarray       # primary status inflicted on the target
    move_primary_volatile: np.ndarray
    move_boosts: np.ndarray       # [M, 7] primary stage changes (to the target; to the user when it targets itself)
    move_secondary_chance: np.ndarray  # out of 256 (0: no secondary)
    move_secondary_kind: np.ndarray
    move_secondary_status: np.ndarray
    move_secondary_boosts: np.ndarray  # [M, 7]
    move_effect: np.ndarray
    move_counterable: np.ndarray  # Normal/Fighting with basePower > 0 (Counter's test)
    move_metronome_callable: np.ndarray
    metronome_list: np.ndarray    # move indices Metronome samples from, in Showdown's order
    species_by_id: dict
    move_by_id: dict
    raw: dict


def _accuracy_byte(acc) -> int:
    if acc is True:
        return -1
    return int(acc * 255 // 100)


@functools.lru_cache(maxsize=1)
def load() -> Tables:
    raw = json.loads(DATA_FILE.read_text())
    type_names = tuple(raw["types"])
    tindex = {t: i for i, t in enumerate(type_names)}
    tindex["???"] = TYPE_NONE

    chart = np.zeros((NUM_TYPES + 1, NUM_TYPES + 1), np.int32)
    for a, row in raw["typeChart"].items():
        for d, v in row.items():
            chart[tindex[a], tindex[d]] = v

    species = raw["species"]
    n_species = 152
    species_ids = [""] * n_species
    base = np.zeros((n_species, 6), np.int32)
    stypes = np.full((n_species, 2), TYPE_NONE, np.int32)
    for s in species:
        i = s["num"]
        species_ids[i] = s["id"]
        bs = s["baseStats"]
        base[i] = [bs["hp"], bs["atk"], bs["def"], bs["spa"], bs["spd"], bs["spe"]]
        for k, t in enumerate(s["types"]):
            stypes[i, k] = tindex[t]

    n = NUM_MOVES
    move_ids = [""] * n
    cols = {name: np.zeros(n, np.int32) for name in (
        "type", "category", "power", "accuracy", "pp", "maxpp", "priority", "high_crit", "targets_self",
        "ignore_immunity", "multihit", "recoil_num", "recoil_den", "drain", "fixed_damage", "selfdestruct",
        "status", "primary_volatile", "secondary_chance", "secondary_kind", "secondary_status", "effect",
        "counterable", "metronome_callable")}
    boosts = np.zeros((n, 7), np.int32)
    sec_boosts = np.zeros((n, 7), np.int32)
    cols["recoil_den"][:] = 1
    status_index = {s: i for i, s in enumerate(STATUS_NAMES)}

    for m in raw["moves"]:
        i = m["num"]
        move_ids[i] = m["id"]
        cols["type"][i] = tindex[m["type"]]
        cols["category"][i] = {"Physical": 0, "Special": 1, "Status": 2}[m["category"]]
        cols["power"][i] = m["basePower"]
        cols["accuracy"][i] = _accuracy_byte(m["accuracy"])
        cols["pp"][i] = m["pp"]
        cols["maxpp"][i] = m["maxpp"]
        cols["priority"][i] = m["priority"]
        cols["high_crit"][i] = int(m.get("critRatio", 1) == 2)
        cols["targets_self"][i] = int(m["target"] == "self")
        cols["ignore_immunity"][i] = int(bool(m.get("ignoreImmunity", m["category"] == "Status")))
        mh = m.get("multihit")
        cols["multihit"][i] = 0 if mh is None else (mh if isinstance(mh, int) else mh[1])
        if isinstance(mh, list) and mh != [2, 5]:
            raise ValueError(f"unexpected multihit {mh} for {m['id']}")
        if "recoil" in m:
            cols["recoil_num"][i], cols["recoil_den"][i] = m["recoil"]
        cols["drain"][i] = int("drain" in m)
        dmg = m.get("damage")
        cols["fixed_damage"][i] = -1 if dmg == "level" else (int(dmg) if dmg else 0)
        cols["selfdestruct"][i] = int(bool(m.get("selfdestruct")))
        cols["status"][i] = status_index[m.get("status", "")]
        if m.get("volatileStatus") == "confusion":
            cols["primary_volatile"][i] = PRIMARY_VOLATILE_CONFUSION
        for stat, v in (m.get("boosts") or {}).items():
            boosts[i, BOOSTS.index(stat)] = v
        secs = m.get("secondaries") or []
        if len(secs) > 1:
            raise ValueError(f"{m['id']} has several secondaries")
        if secs:
            sec = secs[0]
            chance = -(-sec["chance"] * 256 // 100)
            if sec.get("volatileStatus") == "confusion":
                chance -= 1
                cols["secondary_kind"][i] = SECONDARY_CONFUSION
            elif sec.get("volatileStatus") == "flinch":
                cols["secondary_kind"][i] = SECONDARY_FLINCH
            elif "status" in sec:
                cols["secondary_kind"][i] = SECONDARY_STATUS
                cols["secondary_status"][i] = status_index[sec["status"]]
            elif "boosts" in sec:
                cols["secondary_kind"][i] = SECONDARY_BOOST
                for stat, v in sec["boosts"].items():
                    sec_boosts[i, BOOSTS.index(stat)] = v
            else:
                raise ValueError(f"unhandled secondary {sec} of {m['id']}")
            cols["secondary_chance"][i] = chance
        cols["effect"][i] = int(_EFFECT_BY_ID.get(m["id"], Effect.NONE))
        cols["counterable"][i] = int(m["type"] in ("Normal", "Fighting") and m["basePower"] > 0)

    # Placeholder moves.
    move_ids[NOMOVE] = "nomove"
    cols["type"][NOMOVE] = TYPE_NONE
    cols["category"][NOMOVE] = CATEGORY_SPECIAL
    cols["power"][NOMOVE] = 102
    cols["accuracy"][NOMOVE] = int((100 * 81 / 256) * 255 // 100)
    cols["pp"][NOMOVE] = cols["maxpp"][NOMOVE] = 10
    move_ids[CANNOTMOVE] = "cannotmove"
    cols["category"][CANNOTMOVE] = CATEGORY_STATUS

    metronome_list = np.array([raw["moves"][[m["id"] for m in raw["moves"]].index(mid)]["num"]
                               for mid in raw["metronome"]], np.int32)
    cols["metronome_callable"][metronome_list] = 1

    return Tables(
        type_names=type_names, type_chart=chart,
        species_ids=tuple(species_ids), species_base=base, species_types=stypes,
        move_ids=tuple(move_ids),
        move_type=cols["type"], move_category=cols["category"], move_power=cols["power"],
        move_accuracy=cols["accuracy"], move_pp=cols["pp"], move_maxpp=cols["maxpp"],
        move_priority=cols["priority"], move_high_crit=cols["high_crit"],
        move_targets_self=cols["targets_self"], move_ignore_immunity=cols["ignore_immunity"],
        move_multihit=cols["multihit"], move_recoil_num=cols["recoil_num"], move_recoil_den=cols["recoil_den"],
        move_drain=cols["drain"], move_fixed_damage=cols["fixed_damage"], move_selfdestruct=cols["selfdestruct"],
        move_status=cols["status"], move_primary_volatile=cols["primary_volatile"], move_boosts=boosts,
        move_secondary_chance=cols["secondary_chance"], move_secondary_kind=cols["secondary_kind"],
        move_secondary_status=cols["secondary_status"], move_secondary_boosts=sec_boosts,
        move_effect=cols["effect"], move_counterable=cols["counterable"],
        move_metronome_callable=cols["metronome_callable"], metronome_list=metronome_list,
        species_by_id={s: i for i, s in enumerate(species_ids) if s},
        move_by_id={m: i for i, m in enumerate(move_ids) if m},
        raw=raw,
    )
