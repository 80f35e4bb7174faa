"""Random legal play through the engine for ``STEPS`` steps at batch size ``B``: a fixed workload
whose CPU instructions, counted by valgrind, compare two revisions independently of the load on
a shared machine (timings there are noisy; instruction counts repeat exactly).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/engine_instructions.py B STEPS

Run it for STEPS = 1 and STEPS = N+1 and subtract (imports dominate the first number); with
``PYTHONPATH`` pointing at another checkout it measures that revision's engine.
"""

from __future__ import annotations

import sys

import numpy as np

from shengji_env import Rules
from shengji_env.core import Engine


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    args = args or ["64", "50"]  # `make bench` runs every benchmark without arguments
    if len(args) != 2 or not all(a.isdigit() and int(a) > 0 for a in args):
        sys.exit("usage: engine_instructions.py B STEPS (two positive integers)")
    B, steps = int(args[0]), int(args[1])
    eng = Engine(Rules(), B, 0)
    s = eng.reset()
    rng = np.random.default_rng(0)
    obs = np.zeros((B, eng.obs_size), np.float32)
    for _ in range(steps):
        mask = eng.legal_mask(s)
        eng.observe(s, out=obs)
        s, _, done = eng.step(s, np.where(mask, rng.random(mask.shape), -1).argmax(1))
        finished = np.flatnonzero(done)
        if finished.size:
            eng.reset_games(s, finished)


if __name__ == "__main__":
    main()
