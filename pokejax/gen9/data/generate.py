"""Regenerate the Gen 9 tables (``gen9.json``, ``sets.json``) from the installed Pokémon Showdown.

    python -m pokejax.gen9.data.generate            # rewrite pokejax/gen9/data/gen9.json and sets.json
    python -m pokejax.gen9.data.generate --check    # exit 1 if a committed file is stale

Everything comes from the pinned package (``pokejax.reference.SHOWDOWN_VERSION``) through its own
``Dex.forGen(9)`` under node; nothing is typed in by hand. What the tables hold:

* ``types`` and ``typeChart`` (attacking type -> defending type -> 0 neutral, 1 super effective,
  2 resisted, 3 immune): the 18 types and Stellar (Tera Blast's type when Terastallized to Stellar);
  ``typeImmunity``: per defending type, the non-type immunities Showdown lists there (``brn``,
  ``par``, ``sandstorm``, ``powder``, ``prankster``, ...).
* ``species``: every species of the format's sets, their cosmetic formes (Showdown's team generator
  may pick one: ``getForme``), every species seen in the sampled teams (other formes it picks), and
  the battle-only formes they can change into (Palafin-Hero, Mimikyu-Busted, Ogerpon's Tera formes...).
* ``moves``: every move of the sets' movepools plus Struggle, with their data fields as Showdown holds
  them (``secondaries``, ``self``, ``multihit``, ``drain``, ``recoil``, ``flags``, ``condition``...)
  and ``callbacks``: the names of the event handlers Showdown implements in code for that move
  (``onBasePower``, ``condition.onStart``, ...), which say where a table alone is not enough.
* ``abilities``: every ability of the sets (the team generator picks one of a set's ``abilities``),
  same shape; ``items``: every item held in the sampled teams (the team generator picks items by its
  own logic, not from the sets), same shape.

Sampled teams: ``ITEM_SAMPLE_TEAMS`` teams of ``gen9randombattle`` from Showdown's own generator at
the seeds of ``pokejax.gen9.pool.team_seed`` (the committed team pool is a prefix of them).
``sets.json`` is the format's random-battle sets file (level, roles, movepools, abilities,
teraTypes) as the package ships it, one species a line.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

from pokejax.reference import ensure_showdown

HERE = pathlib.Path(__file__).resolve().parent
OUTPUT = HERE / "gen9.json"
SETS_OUTPUT = HERE / "sets.json"
FORMAT = "gen9randombattle"
ITEM_SAMPLE_TEAMS = 5000

# Runs inside node with the package installed; reads the sampling plan from argv, prints one JSON document.
_NODE_PROGRAM = r"""
const {Dex, Teams} = require('pokemon-showdown');
const [formatId, sampleTeams, seedPrefixJson] = process.argv.slice(2);
const seedPrefix = JSON.parse(seedPrefixJson);
const dex = Dex.forGen(9);
const format = Dex.formats.get(formatId);
const version = require('pokemon-showdown/package.json').version;
const toID = s => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '');

// Data fields of an effect, with code replaced by the list of its handler names.
const DROP = new Set(['desc', 'shortDesc', 'contestType', 'zMove', 'maxMove', 'spritenum', 'color', 'eggGroups',
  'heightm', 'tier', 'doublesTier', 'natDexTier', 'isZ', 'isMax', 'megaStone', 'megaEvolves', 'zMoveFrom',
  'itemUser', 'zMoveType', 'zMoveUser', 'gmaxUnreleased', 'cannotDynamax', 'canGigantamax', 'prevo', 'evos',
  'evoType', 'evoLevel', 'evoCondition', 'evoItem', 'evoMove', 'evoRegion', 'gen', 'isNonstandard']);
function plain(value, path, callbacks) {
  if (typeof value === 'function') { callbacks.push(path); return undefined; }
  if (Array.isArray(value)) return value.map((v, i) => plain(v, `${path}[${i}]`, callbacks));
  if (value && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value).sort()) {
      if (DROP.has(key)) continue;
      const v = plain(value[key], path ? `${path}.${key}` : key, callbacks);
      if (v !== undefined && v !== null) out[key] = v;
    }
    return out;
  }
  return value;
}
function effectRecord(id, raw, extra) {
  const callbacks = [];
  const data = plain(raw, '', callbacks);
  return Object.assign({id}, data, extra, {callbacks});
}

// The format's sets, and teams from Showdown's own generator at fixed seeds.
const setsFile = require(`pokemon-showdown/dist/data/random-battles/gen9/sets.json`);
const teams = [];
for (let n = 0; n < Number(sampleTeams); n++) {
  teams.push(Teams.generate(format, {seed: seedPrefix.concat([n >> 16, n & 0xffff])}));
}
const pooled = teams.flat();

// Species: the sets', the formes the generator may pick, the sampled teams', and battle-only formes.
const speciesIds = new Set(Object.keys(setsFile));
for (const id of Object.keys(setsFile)) {
  const s = dex.species.get(id);
  for (const f of s.cosmeticFormes || []) speciesIds.add(dex.species.get(f).id);
}
for (const p of pooled) speciesIds.add(toID(p.species));
let grew = true;
while (grew) {
  grew = false;
  for (const s of dex.species.all()) {
    if (speciesIds.has(s.id) || !s.battleOnly || s.isNonstandard) continue;  // no Megas, Primals, G-Max
    const from = Array.isArray(s.battleOnly) ? s.battleOnly : [s.battleOnly];
    if (from.some(name => speciesIds.has(toID(name)))) { speciesIds.add(s.id); grew = true; }
  }
}
const SPECIES_FIELDS = ['name', 'num', 'types', 'baseStats', 'weightkg', 'abilities', 'baseSpecies', 'forme',
  'battleOnly', 'requiredItem', 'requiredItems', 'requiredAbility', 'requiredMove', 'requiredTeraType',
  'changesFrom', 'cosmeticFormes', 'otherFormes', 'gender', 'genderRatio', 'nfe'];
const species = [...speciesIds].map(id => dex.species.get(id)).filter(s => s.exists)
  .sort((a, b) => a.num - b.num || a.id.localeCompare(b.id))
  .map(s => { const o = {id: s.id}; for (const k of SPECIES_FIELDS) if (s[k] !== undefined && s[k] !== '') o[k] = s[k]; return o; });

// Moves of every movepool, and Struggle.
const moveIds = new Set(['struggle']);
for (const entry of Object.values(setsFile)) for (const set of entry.sets) for (const m of set.movepool) moveIds.add(toID(m));
for (const p of pooled) for (const m of p.moves) moveIds.add(toID(m));
const moves = [...moveIds].map(id => dex.moves.get(id)).sort((a, b) => a.num - b.num || a.id.localeCompare(b.id))
  .map(m => effectRecord(m.id, dex.data.Moves[m.id], {
    // the values Showdown's Move constructor resolves from defaults (status moves ignore type immunity)
    critRatio: m.critRatio, secondaries: plain(m.secondaries, '', []) || null, ignoreImmunity: m.ignoreImmunity,
    maxpp: m.noPPBoosts ? m.pp : Math.floor(m.pp * 8 / 5),
  }));

const abilityIds = new Set();
for (const entry of Object.values(setsFile)) for (const set of entry.sets) for (const a of set.abilities) abilityIds.add(toID(a));
for (const p of pooled) abilityIds.add(toID(p.ability));
const abilities = [...abilityIds].map(id => dex.abilities.get(id)).sort((a, b) => a.num - b.num || a.id.localeCompare(b.id))
  .map(a => effectRecord(a.id, dex.data.Abilities[a.id], {}));

const itemIds = new Set();
for (const p of pooled) if (p.item) itemIds.add(toID(p.item));
const items = [...itemIds].map(id => dex.items.get(id)).sort((a, b) => a.num - b.num || a.id.localeCompare(b.id))
  .map(i => effectRecord(i.id, dex.data.Items[i.id], {}));

// Type chart over the 18 types and Stellar.
const types = dex.types.names();
const typeChart = {}, typeImmunity = {};
for (const defending of types) {
  const taken = dex.types.get(defending).damageTaken;
  for (const attacking of types) {
    typeChart[attacking] = typeChart[attacking] || {};
    typeChart[attacking][defending] = taken[attacking] || 0;
  }
  typeImmunity[defending] = Object.keys(taken).filter(k => !types.includes(k) && taken[k] === 3).sort();
}
const teraTypes = new Set();
for (const entry of Object.values(setsFile)) for (const set of entry.sets) for (const t of set.teraTypes || []) teraTypes.add(t);

process.stdout.write(JSON.stringify({
  source: `pokemon-showdown ${version}, Dex.forGen(9)`,
  format: {id: format.id, mod: format.mod, ruleset: format.ruleset, gameType: format.gameType || 'singles'},
  sampledTeams: {count: Number(sampleTeams), seeds: `${JSON.stringify(seedPrefix)} + [n >> 16, n & 0xffff] for n < ${sampleTeams}`},
  types, typeChart, typeImmunity, teraTypes: [...teraTypes].sort(),
  species, moves, abilities, items,
  sets: setsFile,
}));
"""


def _node_dump() -> dict:
    from pokejax.gen9.pool import SEED_PREFIX
    package = ensure_showdown()
    result = subprocess.run(["node", "-", FORMAT, str(ITEM_SAMPLE_TEAMS), json.dumps(SEED_PREFIX)],
                            input=_NODE_PROGRAM, cwd=package.parent.parent, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"the Gen 9 table dump failed under node:\n{result.stderr}")
    return json.loads(result.stdout)


def _lines(data: dict, line_lists: tuple[str, ...], line_dicts: tuple[str, ...]) -> str:
    """JSON with one record a line for the big lists and maps: diffable, yet small."""
    parts = []
    for key, value in data.items():
        if key in line_lists:
            body = ",\n".join("    " + json.dumps(v, sort_keys=True, separators=(",", ":")) for v in value)
            parts.append(f'  "{key}": [\n{body}\n  ]')
        elif key in line_dicts:
            body = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                              for k, v in value.items())
            parts.append(f'  "{key}": {{\n{body}\n  }}')
        else:
            parts.append(f'  "{key}": {json.dumps(value, sort_keys=True)}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def generate() -> dict[pathlib.Path, str]:
    """The text of each generated file, keyed by its path."""
    data = _node_dump()
    sets = data.pop("sets")
    tables = _lines(data, ("species", "moves", "abilities", "items"), ("typeChart", "typeImmunity"))
    sets_text = _lines({"source": data["source"], "format": data["format"]["id"], "sets": sets}, (), ("sets",))
    return {OUTPUT: tables, SETS_OUTPUT: sets_text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = parser.parse_args(argv)
    stale = 0
    for path, text in generate().items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                print(f"{path} is stale: run python -m pokejax.gen9.data.generate", file=sys.stderr)
                stale = 1
        else:
            path.write_text(text)
            print(f"wrote {path} ({len(text)} bytes)")
    return stale


if __name__ == "__main__":
    sys.exit(main())
