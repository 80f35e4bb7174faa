"""In-process interleaved A/B of the engine: the benchmark loop of ``bench_engine.run`` for several
revisions in one process, alternating short blocks of steps between them.

    python benchmarks/inproc_ab.py f438bb7 HEAD --sizes 16 1024 4096 [--rounds 40] [--block 10]

Each revision's ``shengji_env`` is exported with ``git archive`` into a temporary directory under
its own package name (``sj_0``, ``sj_1``, ...; the working tree is ``WT``, imported through a
symlink), so all of them load side by side (the package imports itself relatively). Each runs
its own engine, state and random stream with the benchmark's pick (``random_legal``), its
observation into a kept buffer and its restarts; after a warm-up, rounds alternate blocks of
``--block`` steps between the revisions (the order rotates every round). Printed per size: ms
per step (median of the blocks), the first revision's time over each one's (ratio of the sums
over all rounds, and the median of the per-round ratios) and the per-phase split.

Why: on a shared machine separate processes see different slow periods (runs of the same
revision differ by up to 25%, and ``bench_engine.py --baseline`` pairs runs only per repeat); in
one process a slow period slows every revision alike (``benchmarks/PROFILE.md``, seventh pass).
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_engine import random_legal  # noqa: E402  (the benchmark's own pick)

PHASES = ("mask", "obs", "pick", "step", "reset")


def export(rev: str, dest: Path, name: str) -> None:
    """``shengji_env`` of ``rev`` as package ``name`` under ``dest`` (``WT``: the working tree)."""
    if rev == "WT":
        (dest / name).symlink_to(ROOT / "shengji_env", target_is_directory=True)
        return
    tar = dest / f"{name}.tar"
    with open(tar, "wb") as f:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev, "shengji_env"], stdout=f, check=True)
    with tarfile.open(tar) as t:
        t.extractall(dest / name, filter="data")
    (dest / name / "shengji_env").rename(dest / f"{name}.pkg")
    shutil.rmtree(dest / name)
    (dest / f"{name}.pkg").rename(dest / name)


def compare(packages: list[str], B: int, rounds: int, block: int, warmup: int) -> None:
    runs = {}
    for p in packages:
        core = importlib.import_module(p + ".core")
        rules = importlib.import_module(p + ".rules")
        eng = core.Engine(rules.Rules(), B, 0)
        runs[p] = {"eng": eng, "s": eng.reset(), "rng": np.random.default_rng(0),
                   "obs": np.zeros((B, eng.obs_size), np.float32), "t": [], "ph": np.zeros(5)}
    pc = time.perf_counter

    def loop(r, n):
        eng, s, rng, obs, ph = r["eng"], r["s"], r["rng"], r["obs"], r["ph"]
        for _ in range(n):
            t0 = pc()
            mask = eng.legal_mask(s)
            t1 = pc()
            eng.observe(s, out=obs)
            t2 = pc()
            a = random_legal(mask, rng)
            t3 = pc()
            s, _, done = eng.step(s, a)
            t4 = pc()
            eng.reset_games(s, np.flatnonzero(done))
            ph += (t1 - t0, t2 - t1, t3 - t2, t4 - t3, pc() - t4)
        r["s"] = s

    for p in packages:
        loop(runs[p], warmup)
        runs[p]["ph"][:] = 0
    for i in range(rounds):
        k = i % len(packages)
        for p in packages[k:] + packages[:k]:
            t0 = pc()
            loop(runs[p], block)
            runs[p]["t"].append((pc() - t0) / block * 1e3)
    first = runs[packages[0]]["t"]
    for p in packages:
        t = runs[p]["t"]
        per_round = statistics.median(a / b for a, b in zip(first, t))
        split = " ".join(f"{k} {v / (rounds * block) * 1e3:.3f}" for k, v in zip(PHASES, runs[p]["ph"]))
        print(f"B={B:<5} {p:5s} {statistics.median(t):8.4f} ms/step  first/this {sum(first) / sum(t):.3f} "
              f"(per round {per_round:.3f})  [{split}]")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("revs", nargs="+", help="git revisions; WT = the working tree")
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 1024])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--block", type=int, default=0, help="steps per block (default: by size)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="inproc_ab-") as tmp:
        names = []
        for i, rev in enumerate(args.revs):
            name = "sj_wt" if rev == "WT" else f"sj_{i}"
            export(rev, Path(tmp), name)
            names.append(name)
            print(f"{name} = {rev}")
        sys.path.insert(0, tmp)
        for B in args.sizes:
            block = args.block or max(1, 10240 // max(B, 1)) if B >= 1024 else (args.block or 50)
            warm = 300 if B <= 1024 else 150
            compare(names, B, args.rounds if B <= 1024 else max(args.rounds // 2, 1), block, warm)


if __name__ == "__main__":
    main()
