"""The coverage marker of the Gen 9 tests."""

from __future__ import annotations


def covers(*what: str):
    """Marks a test as the L1 check of these coverage items, read from the source by
    ``tests.pokemon.gen9.coverage``: ``move:<id>``, ``ability:<id>``, ``item:<id>``, or a group named
    in ``coverage.GROUPS`` (e.g. ``damage-kernel-moves``: every move ``pokejax.gen9.damage.kernel_moves()``
    lists, which the marked test must itself check that it exercised)."""
    def mark(fn):
        fn.covers = what
        return fn
    return mark
