"""Numeric tables of the Gen 9 engine, built from the generated ``gen9.json``.

Indices: every table keeps index 0 for "none" (no species, empty move slot, no item, no ability) and
lists the rest in the generated file's order (by number, then id). Types: Showdown's 19 type names
(the 18 types and Stellar) in its order, then ``TYPE_NONE`` for a missing second type.

Move columns are plain data (power, accuracy, priority, ...); what Showdown implements in code is
named by the move's ``callbacks`` in the JSON, which the engine's stages classify as they cover them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib

import numpy as np

from paritygym.lookup import take_rows  # noqa: F401  (the Gen 9 modules read it as tables.take_rows)
from pokejax.rows import MoveRow, MoveTable, small_lookup  # noqa: F401  (the Gen 9 modules read them as tables.*)

DATA_FILE = pathlib.Path(__file__).resolve().parent / "gen9.json"
SETS_FILE = pathlib.Path(__file__).resolve().parent / "sets.json"

STATS = ("hp", "atk", "def", "spa", "spd", "spe")
BOOSTS = ("atk", "def", "spa", "spd", "spe", "accuracy", "evasion")
PHYSICAL, SPECIAL, STATUS = 0, 1, 2
CATEGORIES = ("Physical", "Special", "Status")


@dataclasses.dataclass(frozen=True)
class Tables:
    data: dict                    # the generated document itself
    type_names: tuple[str, ...]   # 19 names; TYPE_NONE = len(type_names)
    type_index: dict[str, int]
    type_chart: np.ndarray        # [T+1, T+1] int: Showdown's damageTaken code (0, 1 super, 2 resist, 3 immune)
    species_ids: tuple[str, ...]  # index 0 = ""
    species_index: dict[str, int]
    base_stats: np.ndarray        # [S, 6] hp atk def spa spd spe
    species_types: np.ndarray     # [S, 2]
    weight_hg: np.ndarray         # [S] weight in hectograms (Showdown's weighthg)
    move_ids: tuple[str, ...]
    move_index: dict[str, int]
    move_power: np.ndarray        # [M] base power
    move_accuracy: np.ndarray     # [M] percent; 0 = never misses (Showdown's `true`)
    move_type: np.ndarray         # [M]
    move_category: np.ndarray     # [M] PHYSICAL / SPECIAL / STATUS
    move_priority: np.ndarray     # [M]
    move_pp: np.ndarray           # [M] max PP with three PP Ups
    move_crit_ratio: np.ndarray   # [M]
    move_multihit: np.ndarray     # [M] bool: a multi-hit move (excluded from the Tera 60-BP floor)
    move_will_crit: np.ndarray    # [M] bool: always a critical hit (Showdown's willCrit; no crit draw)
    move_ignore_offensive: np.ndarray   # [M] bool
    move_ignore_defensive: np.ndarray   # [M] bool
    move_ignore_immunity: np.ndarray    # [M] bool: Showdown's resolved ignoreImmunity === true (status moves by default)
    move_offense_stat: np.ndarray       # [M] index into BOOSTS of the attacking stat (Body Press: def)
    move_defense_stat: np.ndarray       # [M] index into BOOSTS of the defending stat (Psyshock: def)
    move_offense_target: np.ndarray     # [M] bool: the target's stat attacks (Foul Play)
    move_fixed_damage: np.ndarray       # [M] 0 none, -1 the user's level (Seismic Toss), n > 0 that much
    move_ignore_evasion: np.ndarray     # [M] bool: the target's evasion stage does not count (Sacred Sword)
    move_self_status: np.ndarray        # [M] bool: a status move targeting its user (never misses)
    move_callbacks: tuple[tuple[str, ...], ...]
    ability_ids: tuple[str, ...]
    ability_index: dict[str, int]
    item_ids: tuple[str, ...]
    item_index: dict[str, int]

    @property
    def type_none(self) -> int:
        return len(self.type_names)


TYPE_NONE = 19


@functools.lru_cache(maxsize=1)
def load() -> Tables:
    data = json.loads(DATA_FILE.read_text())
    types = tuple(data["types"])
    if len(types) != TYPE_NONE:
        raise ValueError(f"gen9.json lists {len(types)} types, the tables expect {TYPE_NONE}")
    type_index = {name: i for i, name in enumerate(types)}
    chart = np.zeros((TYPE_NONE + 1, TYPE_NONE + 1), np.int32)
    for attacking, row in data["typeChart"].items():
        for defending, code in row.items():
            chart[type_index[attacking], type_index[defending]] = code

    species = [{"id": "", "baseStats": dict.fromkeys(STATS, 0), "types": [], "weightkg": 0}] + data["species"]
    moves = [{"id": "", "basePower": 0, "accuracy": True, "type": "Normal", "category": "Status", "priority": 0,
              "maxpp": 0, "critRatio": 0, "callbacks": []}] + data["moves"]

    def type_pair(names: list[str]) -> list[int]:
        return [type_index[n] for n in names] + [TYPE_NONE] * (2 - len(names))

    return Tables(
        data=data, type_names=types, type_index=type_index, type_chart=chart,
        species_ids=tuple(s["id"] for s in species),
        species_index={s["id"]: i for i, s in enumerate(species) if i},
        base_stats=np.asarray([[s["baseStats"][k] for k in STATS] for s in species], np.int32),
        species_types=np.asarray([type_pair(s["types"]) for s in species], np.int32),
        weight_hg=np.asarray([round(s["weightkg"] * 10) for s in species], np.int32),
        move_ids=tuple(m["id"] for m in moves),
        move_index={m["id"]: i for i, m in enumerate(moves) if i},
        move_power=np.asarray([m["basePower"] for m in moves], np.int32),
        move_accuracy=np.asarray([0 if m["accuracy"] is True else m["accuracy"] for m in moves], np.int32),
        move_type=np.asarray([type_index[m["type"]] for m in moves], np.int32),
        move_category=np.asarray([CATEGORIES.index(m["category"]) for m in moves], np.int32),
        move_priority=np.asarray([m["priority"] for m in moves], np.int32),
        move_pp=np.asarray([m["maxpp"] for m in moves], np.int32),
        move_crit_ratio=np.asarray([m.get("critRatio", 0) for m in moves], np.int32),
        move_multihit=np.asarray([bool(m.get("multihit")) for m in moves]),
        move_will_crit=np.asarray([m.get("willCrit") is True for m in moves]),
        move_ignore_offensive=np.asarray([bool(m.get("ignoreOffensive")) for m in moves]),
        move_ignore_defensive=np.asarray([bool(m.get("ignoreDefensive")) for m in moves]),
        move_ignore_immunity=np.asarray([m.get("ignoreImmunity") is True for m in moves]),
        move_offense_stat=np.asarray([BOOSTS.index(m.get("overrideOffensiveStat") or
                                                   ("atk" if m["category"] == "Physical" else "spa")) for m in moves], np.int32),
        move_defense_stat=np.asarray([BOOSTS.index(m.get("overrideDefensiveStat") or
                                                   ("def" if m["category"] == "Physical" else "spd")) for m in moves], np.int32),
        move_offense_target=np.asarray([m.get("overrideOffensivePokemon") == "target" for m in moves]),
        move_fixed_damage=np.asarray([-1 if m.get("damage") == "level" else int(m.get("damage") or 0) for m in moves],
                                     np.int32),
        move_ignore_evasion=np.asarray([bool(m.get("ignoreEvasion")) for m in moves]),
        # a status move aimed at its user; Curse's non-Ghost target (``nonGhostTarget``: the restricted teams give
        # Curse to no Pokémon that is or Terastallizes into a Ghost, ``turn.restricted_team``)
        move_self_status=np.asarray([(m.get("nonGhostTarget") or m.get("target")) == "self" and m["category"] == "Status"
                                     for m in moves]),
        move_callbacks=tuple(tuple(m["callbacks"]) for m in moves),
        ability_ids=("",) + tuple(a["id"] for a in data["abilities"]),
        ability_index={a["id"]: i + 1 for i, a in enumerate(data["abilities"])},
        item_ids=("",) + tuple(i["id"] for i in data["items"]),
        item_index={it["id"]: i + 1 for i, it in enumerate(data["items"])},
    )


@functools.lru_cache(maxsize=1)
def move_table() -> MoveTable:
    """Every per-move column of ``load()`` (the ``move_*`` arrays, without the prefix: ``power``,
    ``type``, ``accuracy``...) as one ``MoveTable``."""
    t = load()
    return MoveTable({f.name[len("move_"):]: getattr(t, f.name) for f in dataclasses.fields(Tables)
                      if f.name.startswith("move_") and isinstance(getattr(t, f.name), np.ndarray)})


def load_sets() -> dict:
    """The format's random-battle sets: species id -> {"level", "sets": [{role, movepool, abilities, teraTypes}]}."""
    return json.loads(SETS_FILE.read_text())["sets"]
