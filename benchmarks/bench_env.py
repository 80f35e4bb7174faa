"""Random-play decisions per second: the PettingZoo AEC loop, and VecEnv vs the raw engine.

    python benchmarks/bench_env.py [--seconds 3] [--batch 1024] [--json out.json]

Each figure is the median of 3 repeats. Random play: uniform over the legal mask.

``--baseline REV`` times git revision REV side by side with the working tree, as
``bench_engine.py --baseline`` does (``benchmarks/baseline.py``: a temporary export, one
subprocess per run importing ``shengji_env`` from one checkout or the other, interleaved, 5
repeats): ``--sizes 1`` is the AEC loop (default), a size B > 1 the ``VecEnv`` at batch B; hands/s
counts finished episodes (AEC) or finished games (VecEnv):

    python benchmarks/bench_env.py --baseline f438bb7 --seconds 3 [--sizes 1 1024]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# shengji_env is imported inside the functions: the parent process of --baseline never imports
# it (each of its runs does, from its own checkout).


def random_episode(e, rng, seed: int) -> int:
    """Play one episode of the AEC env ``e`` (reset with ``seed``) with uniformly random legal
    actions from ``rng``; returns the decisions made (the workload of ``aec_rate`` and
    ``aec_instructions.py``)."""
    e.reset(seed=seed)
    n = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        n += 1
    return n


def aec_rate(seconds: float, counts: dict | None = None, **kw) -> float:
    """Random AEC decisions per second; ``counts`` (a dict) also gets the finished ``hands``."""
    from shengji_env.aec import env

    e = env(**kw)
    rng = np.random.default_rng(0)
    n, t0, seed = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        n += random_episode(e, rng, seed)
        seed += 1
    if counts is not None:
        counts["hands"] = seed  # every episode started was played out
    return n / (time.perf_counter() - t0)


def pick(mask: np.ndarray, rng) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(1)


def vec_rate(seconds: float, batch: int, counts: dict | None = None, **kw) -> float:
    from shengji_env.vector import VecEnv

    venv = VecEnv(batch, seed=0, auto_forced=False, **kw)
    rng = np.random.default_rng(0)
    _, mask, _, _ = venv.reset()
    n, hands, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        _obs, mask, _to_act, _rewards, done, _info = venv.step(pick(mask, rng))
        n += batch
        hands += int(np.count_nonzero(done))
    if counts is not None:
        counts["hands"] = hands
    return n / (time.perf_counter() - t0)


def engine_rate(seconds: float, batch: int, **kw) -> float:
    """The raw engine with the same work: observe + mask + step, manual reset of done games."""
    from shengji_env.core.engine import Engine
    from shengji_env.rules.config import Rules

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


def worker(args) -> None:
    """One run in a subprocess of ``--baseline``: check where ``shengji_env`` came from, print JSON."""
    import shengji_env

    root, imported = Path(args.worker).resolve(), Path(shengji_env.__file__).resolve()
    if not imported.is_relative_to(root):
        sys.exit(f"bench_env.py --worker: imported {imported}, expected a shengji_env inside {root}")
    (b,) = args.sizes
    counts = {"hands": 0}
    t0 = time.perf_counter()
    rate = (aec_rate(args.seconds, counts, decks=args.decks) if b == 1
            else vec_rate(args.seconds, b, counts, decks=args.decks))
    elapsed = time.perf_counter() - t0
    print(json.dumps({"shengji_env": str(imported), "decisions_per_s": rate,
                      "hands_per_s": counts["hands"] / elapsed}))


def compare(args) -> dict:
    here = Path(__file__).resolve().parent
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    import baseline

    opts = ["--seconds", str(args.seconds), "--decks", str(args.decks)]
    res = baseline.compare_or_exit(Path(__file__), args.baseline, args.sizes, args.repeats, opts)
    print("size 1: the AEC loop; size B > 1: VecEnv at batch B")
    print(baseline.format_table(res))
    return {**res, "decks": args.decks, "seconds": args.seconds}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--json", default=None, help="also write the results to this file")
    p.add_argument("--baseline", metavar="REV", help="time git revision REV side by side")
    p.add_argument("--sizes", type=int, nargs="+", default=[1],
                   help="with --baseline: 1 = the AEC loop, B > 1 = VecEnv at batch B")
    p.add_argument("--repeats", type=int, default=5, help="with --baseline: interleaved runs")
    p.add_argument("--decks", type=int, default=2, choices=(1, 2, 3, 4),
                   help="with --baseline: the deck count")
    p.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker is not None:
        worker(args)
        return 0
    if args.baseline is not None:
        out = compare(args)
        print(json.dumps(out))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=2)
        return 0
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
