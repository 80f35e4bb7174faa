"""Hands collected per second with 0, 1 and 2 distributed workers, and updates per minute.

    python benchmarks/bench_distributed.py [--workers 0 1 2] [--updates 8] [--num-envs 64]

Runs ``train.py`` with the same small PPO config once per worker count (``distributed.workers``;
0 = collection in the training process), reads each run's TensorBoard events and reports, over
the updates after the first (which includes starting Ray and the workers): hands collected per
second of the training loop, the learner's updates per minute, and the mean policy lag. Needs
the ``distributed`` extra (Ray). Prints a table and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]


def config(workers: int, updates: int, num_envs: int, root: str) -> dict:
    return {"run": {"name": f"w{workers}", "num_envs": num_envs, "total_updates": updates,
                    "checkpoint_every": updates, "run_root": root, "reward": "win"},
            "model": {"hidden": 128, "card_head": 16},
            "learner": {"name": "ppo", "learning_rate": 1e-4, "update_epochs": 2,
                        "minibatch_size": 2048, "pool_prob": 0.2, "pool_every": 2},
            "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1},
            "distributed": {"workers": workers}}


def measure(workers: int, updates: int, num_envs: int) -> dict:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.yaml"
        path.write_text(yaml.safe_dump(config(workers, updates, num_envs, tmp)))
        out = subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(path)],
                             env={**os.environ, "TQDM_DISABLE": "1"}, capture_output=True,
                             text=True, check=False)
        if out.returncode:
            sys.exit(f"train.py failed with {workers} workers:\n{out.stderr[-2000:]}")
        (run_dir,) = Path(tmp).glob(f"w{workers}__*")
        ea = EventAccumulator(str(run_dir))
        ea.Reload()

        def series(tag):
            return np.array([e.value for e in ea.Scalars(tag)]) if tag in ea.Tags()["scalars"] \
                else None

        hands = np.diff(series("charts/hands"), prepend=0)[1:]
        seconds = (series("perf/collect_s") + series("perf/update_s"))[1:]
        lag = series("perf/policy_lag")
        return {"workers": workers, "hands_per_s": float(hands.sum() / seconds.sum()),
                "updates_per_min": float(60 * len(seconds) / seconds.sum()),
                "policy_lag": None if lag is None else float(lag[1:].mean())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--updates", type=int, default=8)
    ap.add_argument("--num-envs", type=int, default=64)
    args = ap.parse_args(argv)
    rows = [measure(w, args.updates, args.num_envs) for w in args.workers]
    print(f"{'workers':>7} {'hands/s':>9} {'updates/min':>12} {'policy lag':>11}")
    for r in rows:
        lag = "-" if r["policy_lag"] is None else f"{r['policy_lag']:.2f}"
        print(f"{r['workers']:>7} {r['hands_per_s']:>9.1f} {r['updates_per_min']:>12.1f} {lag:>11}")
    print(json.dumps({"distributed_rollouts": rows, "num_envs": args.num_envs,
                      "updates": args.updates}))


if __name__ == "__main__":
    main()
