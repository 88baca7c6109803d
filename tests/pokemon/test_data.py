"""The committed data tables are exactly what the generator makes from the installed Showdown."""

from __future__ import annotations

from pokejax.data import generate


def test_committed_tables_match_regeneration():
    assert generate.OUTPUT.read_text() == generate.generate(), (
        "pokejax/data/gen1.json is stale: run `python -m pokejax.data.generate`")
