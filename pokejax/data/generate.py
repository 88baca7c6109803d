"""Regenerate ``gen1.json`` from the installed Pokémon Showdown package.

    python -m pokejax.data.generate            # rewrite pokejax/data/gen1.json
    python -m pokejax.data.generate --check    # exit 1 if the committed file is stale

Everything the engine reads about species, moves, types and random-battle sets comes from here;
behaviour that Showdown implements in callbacks (Counter, Haze, ...) is classified by hand in
``pokejax/data/tables.py``.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

from pokejax.reference import SHOWDOWN_DIR, ensure_showdown

OUTPUT = pathlib.Path(__file__).resolve().parent / "gen1.json"

# Runs inside node with the package installed; prints one JSON document.
_NODE_PROGRAM = r"""
const {Dex} = require('pokemon-showdown');
const dex = Dex.mod('gen1');
const pick = (obj, keys) => { const o = {}; for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) o[k] = obj[k]; return o; };

const types = dex.types.names();
const typeChart = {};          // attacking type -> defending type -> 0 neutral, 1 super, 2 resisted, 3 immune
const statusImmunity = {};     // defending type -> statuses it is immune to
for (const defending of types) {
  const taken = dex.types.get(defending).damageTaken;
  for (const attacking of types) {
    typeChart[attacking] = typeChart[attacking] || {};
    typeChart[attacking][defending] = taken[attacking] || 0;
  }
  statusImmunity[defending] = Object.keys(taken).filter(k => !types.includes(k) && taken[k] === 3).sort();
}

const species = dex.species.all().filter(s => s.num >= 1 && s.num <= 151 && !s.forme)
  .sort((a, b) => a.num - b.num)
  .map(s => ({id: s.id, name: s.name, num: s.num, types: s.types, baseStats: s.baseStats}));

const MOVE_FIELDS = ['id', 'name', 'num', 'type', 'category', 'basePower', 'accuracy', 'pp', 'priority', 'target',
  'critRatio', 'willCrit', 'multihit', 'secondaries', 'self', 'boosts', 'status', 'volatileStatus', 'recoil',
  'drain', 'heal', 'damage', 'ohko', 'selfdestruct', 'ignoreImmunity', 'noPPBoosts', 'flags'];
// Gen 1's 164 moves plus Struggle (number 165 in Showdown's dex)
const moves = dex.moves.all().filter(m => m.num >= 1 && m.num <= 165 && m.gen <= 1)
  .sort((a, b) => a.num - b.num)
  .map(m => {
    const o = pick(m, MOVE_FIELDS);
    o.maxpp = dex.moves.get(m.id).noPPBoosts ? m.pp : m.pp * 8 / 5 - (m.pp === 40 ? 3 : 0);
    o.hasCallback = ['damageCallback', 'onHit', 'onTryHit', 'onTry', 'onTryMove', 'beforeMoveCallback',
      'onMoveFail', 'onTryImmunity', 'basePowerCallback'].filter(k => typeof m[k] === 'function');
    return o;
  });

const metronome = dex.moves.all()
  .filter(m => (!m.isNonstandard || m.isNonstandard === 'Unobtainable') && m.flags['metronome'])
  .sort((a, b) => a.num - b.num).map(m => m.id);

const randomSets = require('pokemon-showdown/dist/data/random-battles/gen1/data.json');
const format = Dex.formats.get('gen1randombattle');
const version = require('pokemon-showdown/package.json').version;

process.stdout.write(JSON.stringify({
  source: `pokemon-showdown ${version}, Dex.mod('gen1')`,
  format: {id: format.id, ruleset: format.ruleset},
  types, typeChart, statusImmunity, species, moves, metronome, randomSets,
  randomTypeNames: ['Bug', 'Fire', 'Ghost', 'Ice', 'Poison', 'Psychic', 'Electric', 'Grass', 'Dragon',
    'Fighting', 'Flying', 'Ground', 'Normal', 'Rock', 'Water'],
}));
"""


def generate() -> str:
    """Return the text of gen1.json as generated from the installed Showdown package."""
    ensure_showdown()
    result = subprocess.run(["node", "-"], input=_NODE_PROGRAM, cwd=SHOWDOWN_DIR,
                            capture_output=True, text=True, check=True)
    data = json.loads(result.stdout)
    # One top-level entry per line group: diffable, yet small.
    parts = []
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            body = ",\n".join("    " + json.dumps(v, sort_keys=True) for v in value)
            parts.append(f'  "{key}": [\n{body}\n  ]')
        elif isinstance(value, dict) and key in ("randomSets", "typeChart", "statusImmunity"):
            body = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in value.items())
            parts.append(f'  "{key}": {{\n{body}\n  }}')
        else:
            parts.append(f'  "{key}": {json.dumps(value, sort_keys=True)}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT} is stale: run python -m pokejax.data.generate", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
