"""find_checkpoint / trained_steps: how evaluation-only tools (L4) locate a trained policy."""

import json

import pytest

from paritygym.train.ppo import find_checkpoint, trained_steps


def test_missing_checkpoint_names_the_example_and_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("PG_TEST_POLICY", raising=False)
    with pytest.raises(FileNotFoundError, match=r"L4 for X.*examples/ppo_x\.py.*PG_TEST_POLICY"):
        find_checkpoint("PG_TEST_POLICY", str(tmp_path / "none.msgpack"), "examples/ppo_x.py", "L4 for X")


def test_variable_overrides_default_and_steps_come_from_metrics(tmp_path, monkeypatch):
    ckpt = tmp_path / "run" / "checkpoint.msgpack"
    ckpt.parent.mkdir()
    ckpt.write_bytes(b"")
    monkeypatch.setenv("PG_TEST_POLICY", str(ckpt))
    assert find_checkpoint("PG_TEST_POLICY", str(tmp_path / "none.msgpack"), "e.py", "t") == ckpt
    assert trained_steps(ckpt) is None  # no metrics.json beside it
    (ckpt.parent / "metrics.json").write_text(json.dumps({"steps": 917504}))
    assert trained_steps(ckpt) == 917504
    (ckpt.parent / "metrics.json").write_text("{not json")
    assert trained_steps(ckpt) is None
