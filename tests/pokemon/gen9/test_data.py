"""The committed Gen 9 data is exactly what Showdown gives: the generated tables, the team pool, and the
stats the pool loader computes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokejax.gen9 import pool
from pokejax.gen9.data import generate, tables


def test_committed_tables_match_regeneration():
    for path, text in generate.generate().items():
        assert path.read_text() == text, f"{path} is stale: run `python -m pokejax.gen9.data.generate`"


def test_the_tables_hold_every_name_of_the_sets_and_the_type_chart_of_19_types():
    t = tables.load()
    sets = tables.load_sets()
    assert len(t.type_names) == 19 and "Stellar" in t.type_names
    assert t.type_chart.shape == (20, 20)
    for species, entry in sets.items():
        assert species in t.species_index
        for s in entry["sets"]:
            assert {generate_id(m) for m in s["movepool"]} <= set(t.move_index), species
            assert {generate_id(a) for a in s["abilities"]} <= set(t.ability_index), species
            assert set(s["teraTypes"]) <= set(t.type_index), species


def generate_id(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def test_the_pool_is_showdowns_teams_with_showdowns_stats(showdown9):
    committed = json.loads(pool.POOL_FILE.read_text())
    count = len(committed["teams"])
    assert count == pool.DEFAULT_TEAMS and committed["command"] == f"python -m pokejax.gen9.pool --teams {count}"
    assert pool.POOL_FILE.stat().st_size < 2_000_000
    reference = []
    for start in range(0, count, 250):
        reference += showdown9.teams([pool.team_seed(n) for n in range(start, min(count, start + 250))])
    assert committed["teams"] == [[pool._compact(m) for m in r["sets"]] for r in reference], (
        "pool.json differs from Showdown's teams: run `python -m pokejax.gen9.pool`")
    loaded = pool.load_pool()
    want = np.asarray([[[s[k] for k in ("maxhp",) + tables.STATS[1:]] for s in r["stats"]] for r in reference])
    np.testing.assert_array_equal(loaded.stats, want)
    t = tables.load()
    assert loaded.moves.shape == (count, 6, 4) and loaded.types.shape == (count, 6, 2)
    assert [t.species_ids[i] for i in loaded.species[0]] == [m[0] for m in committed["teams"][0]]
    assert [t.item_ids[i] for i in loaded.item[0]] == [m[3] for m in committed["teams"][0]]


def test_team_seeds_and_bad_pools_are_refused_clearly():
    assert pool.team_seed(70000) == pool.SEED_PREFIX + [1, 4464]
    with pytest.raises(ValueError, match="team number"):
        pool.team_seed(-1)
    document = json.loads(pool.POOL_FILE.read_text())
    bad = dict(document, teams=[document["teams"][0][:5]])
    with pytest.raises(ValueError, match="5 Pokémon, expected 6"):
        pool.pack(bad)
    team = [list(m) for m in document["teams"][0]]
    team[2][0] = "missingno"
    with pytest.raises(ValueError, match="unknown species 'missingno'"):
        pool.pack(dict(document, teams=[team]))
    with pytest.raises(ValueError, match="no team"):
        pool.pack(dict(document, teams=[]))
