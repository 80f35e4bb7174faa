"""Random legal play through the batched engine: decisions/s and hands/s.

Every step computes ``legal_mask`` and ``observe`` for all games, picks a uniformly random
legal action per game and steps; finished games restart at once. Reports the median of
``--repeats`` runs per batch size as a table and as JSON.

    python benchmarks/bench_engine.py [--sizes 1 64 1024 4096] [--steps 200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from shengji_env.core import Engine
from shengji_env.rules import Rules


def run(num_games: int, steps: int, seed: int = 0, rules: Rules | None = None,
        warmup: int = 300) -> dict:
    """Time ``steps`` steps after ``warmup`` untimed ones (games desynchronise: steady state)."""
    eng = Engine(rules or Rules(), num_games, seed)
    state = eng.reset()
    rng = np.random.default_rng(seed)
    obs_buf = np.zeros((num_games, eng.obs_size), dtype=np.float32)
    decisions = hands = 0
    start = time.perf_counter()
    for t in range(warmup + steps):
        if t == warmup:
            decisions = hands = 0
            start = time.perf_counter()
        mask = eng.legal_mask(state)
        eng.observe(state, out=obs_buf)
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(1)
        state, _, done = eng.step(state, actions)
        decisions += num_games
        finished = np.flatnonzero(done)
        hands += finished.size
        eng.reset_games(state, finished)
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "hands_per_s": hands / elapsed}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--steps", type=int, default=300, help="timed steps per run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--decks", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=300, help="untimed steps before timing")
    args = ap.parse_args(argv)
    rules = Rules(decks=args.decks)
    results = {}
    print(f"{'B':>6} {'decisions/s':>14} {'hands/s':>10}")
    for b in args.sizes:
        warm = args.warmup if b <= 1024 else args.warmup // 2
        runs = [run(b, args.steps, seed=r, rules=rules, warmup=warm) for r in range(args.repeats)]
        med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
        results[b] = med
        print(f"{b:>6} {med['decisions_per_s']:>14,.0f} {med['hands_per_s']:>10,.1f}")
    print(json.dumps({"engine_random_play": results, "decks": args.decks}))


if __name__ == "__main__":
    main()
