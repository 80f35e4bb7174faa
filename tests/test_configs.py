"""Every shipped training config resolves (known keys, valid values) and names files that exist."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.learners.config import load

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def test_there_are_configs():
    assert len(CONFIGS) >= 5


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_config_resolves_and_its_warm_start_exists(path, monkeypatch):
    monkeypatch.chdir(ROOT)  # relative paths in configs are relative to the project root
    cfg = load(path)
    assert cfg.learner, f"{path.name}: no learner stage"
    if cfg.model.init:
        assert Path(cfg.model.init).exists(), f"{path.name}: model.init={cfg.model.init!r} is missing"
