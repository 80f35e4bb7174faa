"""The engine benchmark's random pick (``benchmarks/bench_engine.py::random_legal``): always a
legal action, uniform over each game's legal actions, 0 for a game with none, and the one-game
path the same kind of pick."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
from scipy import stats

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_engine.py"


def _random_legal():
    spec = importlib.util.spec_from_file_location("bench_engine_pick", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.random_legal


def test_pick_is_legal_and_uniform_per_game():
    random_legal = _random_legal()
    rng = np.random.default_rng(0)
    mask = rng.random((6, 40)) < 0.3
    mask[2] = False  # a game with no legal action
    mask[4] = False
    mask[4, 39] = True  # one legal action, the last column
    counts = np.zeros_like(mask, dtype=np.int64)
    for _ in range(3000):
        pick = random_legal(mask, rng)
        assert pick[2] == 0 and pick[4] == 39
        live = mask.any(1)
        assert mask[np.flatnonzero(live), pick[live]].all()
        counts[np.arange(6), pick] += 1
    for g in (0, 1, 3, 5):
        observed = counts[g, mask[g]]
        assert stats.chisquare(observed).pvalue > 1e-4, g
    one = mask[:1]
    picks = {int(random_legal(one, rng)[0]) for _ in range(400)}
    assert picks == set(np.flatnonzero(one[0]).tolist())
