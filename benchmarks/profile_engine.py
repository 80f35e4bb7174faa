"""cProfile of random legal play through the engine: CPU ms per step of the functions that
``benchmarks/PROFILE.md`` tabulates, as one JSON line (cumulative times, callees included).

    python benchmarks/profile_engine.py [B] [STEPS]      # default 1024 300, after 300 warm-up steps

The loop is ``bench_engine.run``'s (mask, observation, random legal action, step, restarts).
Point ``PYTHONPATH`` at another checkout to profile that revision; names missing there are left
out.
"""

from __future__ import annotations

import cProfile
import json
import pstats
import sys
import time

import numpy as np
from bench_engine import random_legal  # the benchmark's own pick (same directory)

from shengji_env.core import Engine
from shengji_env.rules import Rules

FUNCTIONS = ("legal_mask", "mask_play", "_follow_cards", "_pairs_ok", "legal_next_cards",
             "observe_batch", "step", "step_play", "commit_leads", "_pairs_and_singles_throws",
             "validate_throw", "first_beater", "set_leads", "commit_follows", "end_tricks",
             "_winners", "step_declare", "plan_deal", "advance_deal", "declare_mask", "end_hands",
             "reset_games", "decompose")


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else argv
    B, steps = (int(args[0]), int(args[1])) if len(args) == 2 else (1024, 300)
    eng = Engine(Rules(), B, 0)
    state = eng.reset()
    rng = np.random.default_rng(0)
    obs = np.zeros((B, eng.obs_size), np.float32)

    def loop(n):
        nonlocal state
        for _ in range(n):
            mask = eng.legal_mask(state)
            eng.observe(state, out=obs)
            state, _, done = eng.step(state, random_legal(mask, rng))
            eng.reset_games(state, np.flatnonzero(done))

    loop(300)
    prof = cProfile.Profile()
    t0 = time.process_time()
    prof.enable()
    loop(steps)
    prof.disable()
    out = {"B": B, "steps": steps, "cpu_ms_per_step": (time.process_time() - t0) / steps * 1e3}
    for (path, _, name), row in pstats.Stats(prof).stats.items():
        if name in FUNCTIONS and "shengji_env" in path and (name != "step" or path.endswith("engine.py")):
            out[name] = out.get(name, 0.0) + row[3] / steps * 1e3
    print(json.dumps(out))


if __name__ == "__main__":
    main()
