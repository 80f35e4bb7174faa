"""Random legal play through the engine for ``STEPS`` steps at batch size ``B``: a fixed workload
whose CPU instructions, counted by valgrind, compare two revisions independently of the load on
a shared machine (timings there are noisy; instruction counts repeat exactly).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/engine_instructions.py B STEPS

Run it for STEPS = 1 and STEPS = N+1 and subtract (imports dominate the first number); with
``PYTHONPATH`` pointing at another checkout it measures that revision's engine.

The first steps after ``reset`` are not the benchmark's workload: every game starts at once, so
steps 10-60 at B = 1,024 are the first hand's PLAY phase only. ``bench_engine.py`` times steps
after 300 warm-up steps, when the games have drifted apart and each step also holds deals,
burials, hand ends and restarts (B = 1,024: ~93% PLAY, ~5% BURY, ~2% DECLARE decisions, ~7
restarts per step); at B = 1,024 such a step costs ~1.7x the instructions of the early window.
Measure that window with a third argument, ``WARMUP`` steps run before the counted ones, and
the process marks both ends of the window with ``os.getpgrp()`` (a libc call nothing else
makes), which callgrind turns into dumps:

    valgrind --tool=callgrind --dump-before=getpgrp --callgrind-out-file=cg.out \\
        python benchmarks/engine_instructions.py 1024 50 300

``cg.out.2`` then holds exactly the 50 steps after the warm-up (``callgrind_annotate cg.out.2``
for the C functions; its ``summary:`` line for the total).
"""

from __future__ import annotations

import os
import sys

import numpy as np
from bench_engine import random_legal  # the benchmark's own pick (same directory)

from shengji_env import Rules
from shengji_env.core import Engine


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    args = args or ["64", "50"]  # `make bench` runs every benchmark without arguments
    if len(args) not in (2, 3) or not all(a.isdigit() for a in args) \
            or not all(int(a) > 0 for a in args[:2]):
        sys.exit("usage: engine_instructions.py B STEPS [WARMUP] (positive integers; WARMUP >= 0)")
    B, steps = int(args[0]), int(args[1])
    warmup = int(args[2]) if len(args) == 3 else None
    eng = Engine(Rules(), B, 0)
    s = eng.reset()
    rng = np.random.default_rng(0)
    obs = np.zeros((B, eng.obs_size), np.float32)
    for t in range(steps if warmup is None else warmup + steps):
        if t == warmup:
            os.getpgrp()  # callgrind --dump-before=getpgrp: the counted window starts here
        mask = eng.legal_mask(s)
        eng.observe(s, out=obs)
        s, _, done = eng.step(s, random_legal(mask, rng))
        finished = np.flatnonzero(done)
        if finished.size:
            eng.reset_games(s, finished)
    if warmup is not None:
        os.getpgrp()  # ... and ends here


if __name__ == "__main__":
    main()
