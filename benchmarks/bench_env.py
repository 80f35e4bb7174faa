"""Random-play decisions per second: the PettingZoo AEC loop, and VecEnv vs the raw engine.

    python benchmarks/bench_env.py [--seconds 3] [--batch 1024] [--json out.json]

Each figure is the median of 3 repeats. Random play: uniform over the legal mask.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from shengji_env.aec import env
from shengji_env.core.engine import Engine
from shengji_env.rules.config import Rules
from shengji_env.vector import VecEnv


def aec_rate(seconds: float, **kw) -> float:
    e = env(**kw)
    rng = np.random.default_rng(0)
    n, t0, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        e.reset(seed=seed)
        seed += 1
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            n += 1
    return n / (time.perf_counter() - t0)


def pick(mask: np.ndarray, rng) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(1)


def vec_rate(seconds: float, batch: int, **kw) -> float:
    venv = VecEnv(batch, seed=0, auto_forced=False, **kw)
    rng = np.random.default_rng(0)
    _, mask, _, _ = venv.reset()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _obs, mask, _to_act, _rewards, _done, _info = venv.step(pick(mask, rng))
        n += batch
    return n / (time.perf_counter() - t0)


def engine_rate(seconds: float, batch: int, **kw) -> float:
    """The raw engine with the same work: observe + mask + step, manual reset of done games."""
    eng = Engine(Rules(**kw), batch, 0)
    rng = np.random.default_rng(0)
    s = eng.reset()
    out = np.zeros((batch, eng.obs_size), dtype=np.float32)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        eng.observe(s, out=out)
        s, _rewards, done = eng.step(s, pick(eng.legal_mask(s), rng))
        if done.any():
            eng.reset_games(s, np.flatnonzero(done))
        n += batch
    return n / (time.perf_counter() - t0)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--json", default=None, help="also write the results to this file")
    args = p.parse_args(argv)
    rows = []
    for decks in (2, 1):
        kw = {"decks": decks}
        for name, fn in (("aec", lambda kw=kw: aec_rate(args.seconds, **kw)),
                         (f"vecenv B={args.batch}",
                          lambda kw=kw: vec_rate(args.seconds, args.batch, **kw)),
                         (f"engine B={args.batch}",
                          lambda kw=kw: engine_rate(args.seconds, args.batch, **kw))):
            rows.append({"benchmark": name, "decks": decks,
                         "decisions_per_s": statistics.median(fn() for _ in range(3))})
    print(f"{'benchmark':<20} {'decks':>5} {'decisions/s':>12}")
    for r in rows:
        print(f"{r['benchmark']:<20} {r['decks']:>5} {r['decisions_per_s']:>12,.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
