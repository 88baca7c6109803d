"""Showdown's own Gen 9 speed, the reference figure of ``benchmarks.pokemon_gen9 --reference``: whole
random battles played to the end with only legal choices, the same battles for the same seed."""

from __future__ import annotations

import json

import pytest

from benchmarks import pokemon_gen9


def test_showdown_random_play_is_whole_legal_battles(showdown9):
    first = showdown9.speed(4, seed=(9, 8, 7, 6))
    again = showdown9.speed(4, seed=(9, 8, 7, 6))
    other = showdown9.speed(4, seed=(1, 2, 3, 5))
    assert first["battles"] == 4 and first["seconds"] > 0
    assert first["decisions"] >= 4 * 6          # a battle ends only after six faints on one side
    assert first["fallbacks"] == 0              # every choice taken from the request was accepted
    assert again["decisions"] == first["decisions"] and other["decisions"] != first["decisions"]


@pytest.mark.slow  # a benchmark's report (times Showdown and the engine)
def test_benchmark_reports_the_ratio_to_showdown(tmp_path, capsys):
    out = tmp_path / "gen9.json"
    assert pokemon_gen9.main(["--batch", "8", "--steps", "2", "--min-seconds", "0", "--reference",
                              "--reference-battles", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Showdown, 1 process:" in printed and "-> ours" in printed
    results = json.loads(out.read_text())
    references = [r for r in results if r.get("reference") == "showdown"]
    assert references and all(r["decisions"] >= 2 * 6 and r["decisions_per_s"] > 0 for r in references)
