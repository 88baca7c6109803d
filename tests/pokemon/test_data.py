"""The committed data tables are exactly what the generator makes from the installed Showdown."""

from __future__ import annotations

from pokejax.data import generate


def test_committed_tables_match_regeneration():
    assert generate.OUTPUT.read_text() == generate.generate(), (
        "pokejax/data/gen1.json is stale: run `python -m pokejax.data.generate`")


def test_a_table_that_breaks_the_shared_effect_path_is_refused(monkeypatch):
    """The engine applies every move's foe effects through one path, which assumes facts of the
    Gen 1 table (e.g. no move has both drain and recoil); a table that breaks one is refused."""
    import dataclasses

    import numpy as np
    import pytest

    from pokejax.game import engine

    engine._check_shared_effect_paths()   # the committed table holds them
    drain = np.asarray(engine._TABLES.move_drain)
    recoil = np.asarray(engine._TABLES.move_recoil_num).copy()
    recoil[np.nonzero(drain)[0][0]] = 1
    monkeypatch.setattr(engine, "_TABLES", dataclasses.replace(engine._TABLES, move_recoil_num=recoil))
    with pytest.raises(RuntimeError, match="drain and recoil"):
        engine._check_shared_effect_paths()
