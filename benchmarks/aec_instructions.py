"""Random legal play through the PettingZoo AEC env for ``EPISODES`` episodes (seeds 0, 1, …):
a fixed workload whose CPU instructions, counted by valgrind, compare two revisions of the AEC
loop independently of the load on a shared machine (``bench_env.py``'s loop, without the clock).

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/aec_instructions.py EPISODES

Run it for EPISODES = 1 and 6 and subtract (imports dominate the first number); it prints the
decisions played, so the difference divided by the difference in decisions is instructions per
decision. With ``PYTHONPATH`` pointing at another checkout it measures that revision.
"""

from __future__ import annotations

import sys

import numpy as np
from bench_env import random_episode  # benchmarks/ is the script's folder

from shengji_env.aec import env


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    args = args or ["1"]  # `make bench` runs every benchmark without arguments
    if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
        sys.exit("usage: aec_instructions.py EPISODES (a positive integer)")
    e, rng = env(), np.random.default_rng(0)
    n = sum(random_episode(e, rng, seed) for seed in range(int(args[0])))
    print(f"decisions {n}")


if __name__ == "__main__":
    main()
