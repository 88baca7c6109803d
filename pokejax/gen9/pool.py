"""A pool of ``gen9randombattle`` teams drawn from Showdown's own team generator, and its loader.

Until pokejax has its own copy of Showdown's Gen 9 team generator, battles get their teams from this
pool: team ``n`` is exactly what Showdown's ``Teams.generate('gen9randombattle', {seed})`` returns for
the PRNG seed ``team_seed(n)``. The committed file ``data/pool.json`` is regenerated (or checked) by

    python -m pokejax.gen9.pool --teams 1000            # rewrite pokejax/gen9/data/pool.json
    python -m pokejax.gen9.pool --teams 1000 --check    # exit 1 if the committed file differs

Each Pokémon is stored as ``[species, level, gender, item, ability, [moves], teraType, [evs], [ivs]]``
(Showdown ids; EVs and IVs in the order hp atk def spa spd spe). ``load_pool()`` packs the pool into
fixed-shape integer arrays over the Gen 9 tables, with the stats computed as Showdown computes them
(``Battle.statModify``; random-battle sets have no nature).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import pathlib
import sys

import numpy as np

POOL_FILE = pathlib.Path(__file__).resolve().parent / "data" / "pool.json"
FORMAT = "gen9randombattle"
# Showdown's Gen 5 PRNG takes four 16-bit words; the pool's seeds are SEED_PREFIX + the team number's two words.
SEED_PREFIX = [9, 0x5EED]
TEAM_SIZE = 6
MAX_MOVES = 4
STATS = ("hp", "atk", "def", "spa", "spd", "spe")
GENDERS = ("", "M", "F", "N")
DEFAULT_TEAMS = 1000


def team_seed(n: int) -> list[int]:
    """The Showdown PRNG seed of pool team ``n``."""
    if not 0 <= n < 1 << 32:
        raise ValueError(f"team number must be in [0, 2**32), got {n}")
    return SEED_PREFIX + [n >> 16, n & 0xFFFF]


def _to_id(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _compact(mon: dict) -> list:
    return [_to_id(mon["species"]), mon["level"], mon.get("gender", ""), _to_id(mon.get("item", "")),
            _to_id(mon["ability"]), [_to_id(m) for m in mon["moves"]], mon["teraType"],
            [mon["evs"][k] for k in STATS], [mon["ivs"][k] for k in STATS]]


def draw(count: int, bridge=None) -> dict:
    """The pool document for teams ``0 … count-1``, drawn from Showdown."""
    from pokejax.gen9.reference import Gen9Bridge
    from pokejax.reference import SHOWDOWN_VERSION
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    own = bridge is None
    bridge = bridge or Gen9Bridge()
    try:
        teams = []
        for start in range(0, count, 100):
            seeds = [team_seed(n) for n in range(start, min(count, start + 100))]
            teams += [[_compact(m) for m in t["sets"]] for t in bridge.teams(seeds, FORMAT)]
    finally:
        if own:
            bridge.close()
    return {"source": f"pokemon-showdown {SHOWDOWN_VERSION}, Teams.generate('{FORMAT}', {{seed}})",
            "seeds": f"team n: {SEED_PREFIX} + [n >> 16, n & 0xffff]",
            "command": f"python -m pokejax.gen9.pool --teams {count}",
            "fields": ["species", "level", "gender", "item", "ability", "moves", "teraType", "evs", "ivs"],
            "teams": teams}


def showdown_sets(team: list) -> list[dict]:
    """A pool document's team (its compact rows) as Showdown ``PokemonSet`` objects, for building a
    battle of exactly these Pokémon in Showdown."""
    sets = []
    for species, level, gender, item, ability, moves, tera, evs, ivs in team:
        sets.append({"species": species, "level": level, "gender": gender, "item": item, "ability": ability,
                     "moves": list(moves), "teraType": tera, "evs": dict(zip(STATS, evs)),
                     "ivs": dict(zip(STATS, ivs))})
    return sets


def dumps(document: dict) -> str:
    head = {k: v for k, v in document.items() if k != "teams"}
    lines = [f'  {json.dumps(k)}: {json.dumps(v)}' for k, v in head.items()]
    body = ",\n".join("    " + json.dumps(t, separators=(",", ":")) for t in document["teams"])
    return "{\n" + ",\n".join(lines) + ',\n  "teams": [\n' + body + "\n  ]\n}\n"


@dataclasses.dataclass(frozen=True)
class Pool:
    """Teams as arrays, ``[N, 6]`` per Pokémon (index 0 of each table means none)."""
    species: np.ndarray      # [N, 6] species index
    level: np.ndarray        # [N, 6]
    gender: np.ndarray       # [N, 6] index into GENDERS
    item: np.ndarray         # [N, 6] item index (0: no item)
    ability: np.ndarray      # [N, 6]
    moves: np.ndarray        # [N, 6, 4] move index (0: empty slot)
    tera_type: np.ndarray    # [N, 6] type index
    types: np.ndarray        # [N, 6, 2] the species' types (second = tables.TYPE_NONE if one type)
    evs: np.ndarray          # [N, 6, 6] hp atk def spa spd spe
    ivs: np.ndarray          # [N, 6, 6]
    stats: np.ndarray        # [N, 6, 6] max HP then the stored stats, as Showdown computes them
    seeds: np.ndarray        # [N, 4] Showdown PRNG seed of each team

    def __len__(self) -> int:
        return int(self.species.shape[0])


def compute_stats(base: np.ndarray, level: np.ndarray, evs: np.ndarray, ivs: np.ndarray) -> np.ndarray:
    """Showdown's ``statModify`` without a nature: ``base``, ``evs``, ``ivs`` ``[..., 6]``, ``level`` ``[...]``."""
    base, evs, ivs = (np.asarray(x, np.int64) for x in (base, evs, ivs))
    level = np.asarray(level, np.int64)[..., None]
    core = 2 * base + ivs + evs // 4
    hp = (core + 100) * level // 100 + 10
    other = core * level // 100 + 5
    return np.where(np.arange(6) == 0, hp, other).astype(np.int32)


def pack(document: dict) -> Pool:
    """The arrays of a pool document (``draw`` or the committed file); unknown names raise ValueError."""
    from pokejax.gen9.data import tables
    t = tables.load()
    teams = document["teams"]
    n = len(teams)
    if n == 0:
        raise ValueError("the pool holds no team")
    arrays = {k: np.zeros(s, np.int32) for k, s in (
        ("species", (n, 6)), ("level", (n, 6)), ("gender", (n, 6)), ("item", (n, 6)), ("ability", (n, 6)),
        ("moves", (n, 6, 4)), ("tera_type", (n, 6)), ("evs", (n, 6, 6)), ("ivs", (n, 6, 6)))}

    def index(table: dict, name: str, what: str, team: int) -> int:
        if name not in table:
            raise ValueError(f"pool team {team}: unknown {what} {name!r} (regenerate the tables: "
                             "python -m pokejax.gen9.data.generate)")
        return table[name]

    for i, team in enumerate(teams):
        if len(team) != TEAM_SIZE:
            raise ValueError(f"pool team {i} has {len(team)} Pokémon, expected {TEAM_SIZE}")
        for j, (species, level, gender, item, ability, moves, tera, evs, ivs) in enumerate(team):
            if not 1 <= len(moves) <= MAX_MOVES:
                raise ValueError(f"pool team {i} slot {j}: {len(moves)} moves")
            arrays["species"][i, j] = index(t.species_index, species, "species", i)
            arrays["level"][i, j] = level
            arrays["gender"][i, j] = GENDERS.index(gender)
            arrays["item"][i, j] = index(t.item_index, item, "item", i) if item else 0
            # "noability": Showdown's No Ability (the restricted battles of pokejax.gen9.turn), index 0
            arrays["ability"][i, j] = index(t.ability_index, ability, "ability", i) if ability != "noability" else 0
            for k, move in enumerate(moves):
                arrays["moves"][i, j, k] = index(t.move_index, move, "move", i)
            arrays["tera_type"][i, j] = index(t.type_index, tera, "type", i)
            arrays["evs"][i, j] = evs
            arrays["ivs"][i, j] = ivs
    species = arrays["species"]
    stats = compute_stats(t.base_stats[species], arrays["level"], arrays["evs"], arrays["ivs"])
    seeds = np.asarray([team_seed(k) for k in range(n)], np.int32)
    return Pool(types=t.species_types[species], stats=stats, seeds=seeds, **arrays)


@functools.lru_cache(maxsize=1)
def load_pool() -> Pool:
    """The committed pool as arrays."""
    return pack(json.loads(POOL_FILE.read_text()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=DEFAULT_TEAMS, help="how many teams (default %(default)s)")
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args(argv)
    text = dumps(draw(args.teams))
    if args.check:
        if not POOL_FILE.exists() or POOL_FILE.read_text() != text:
            print(f"{POOL_FILE} differs from Showdown's teams: run python -m pokejax.gen9.pool --teams {args.teams}",
                  file=sys.stderr)
            return 1
        return 0
    POOL_FILE.write_text(text)
    print(f"wrote {POOL_FILE} ({len(text)} bytes, {args.teams} teams)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
