"""Learning curve: train a config for a wall-clock budget, write win rates over time.

    python benchmarks/bench_learning.py --config configs/ppo_selfplay.yaml --minutes 30
    python benchmarks/bench_learning.py --config configs/ppo_selfplay.yaml --minutes 120 --plot
    python benchmarks/bench_learning.py --run-dir runs/ppo_selfplay__0__1760000000   # no training

Runs ``train.py`` (its periodic evaluations against RandomAgent and HeuristicAgent on fixed
duplicate deals, plus the final one) and turns the run's ``eval.csv`` into
``<out>.csv`` (one row per evaluation and opponent) and ``<out>.json`` (the curve per opponent,
the first time each win-rate threshold was reached, the machine's load average while training),
and ``<out>.png`` with ``--plot`` (matplotlib). Times are wall-clock seconds of the run
(evaluation included) and the process's CPU seconds — on a machine shared with other work the
CPU time is the fairer clock. Without ``--minutes`` the config's own ``time_limit_minutes`` and
``total_updates`` apply (``configs/quickstart.yaml``, the default, takes about 4 minutes).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
THRESHOLDS = (0.6, 0.7, 0.8, 0.9, 0.95)


def read_curve(run_dir: Path) -> list[dict]:
    """Rows of ``run_dir/eval.csv`` with numbers parsed."""
    with open(run_dir / "eval.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    ints = ("update", "global_step", "hands", "eval_hands")
    floats = ("elapsed_s", "cpu_s", "train_s", "win_rate", "ci_low", "ci_high", "mean_reward")
    return [{**r, **{k: int(r[k]) for k in ints}, **{k: float(r[k]) for k in floats}}
            for r in rows]


def summarize(rows: list[dict], run_dir: Path, load: list[float], wall_s: float | None) -> dict:
    out = {"run_dir": str(run_dir), "wall_s": wall_s, "load_average_1min": load,
           "opponents": {}}
    for name in sorted({r["opponent"] for r in rows}):
        curve = [r for r in rows if r["opponent"] == name]
        periodic = [r for r in curve if r["kind"] == "periodic"]
        first = {}
        for t in THRESHOLDS:
            hit = next((r for r in periodic if r["win_rate"] >= t), None)
            first[f"{t:.2f}"] = None if hit is None else {
                "elapsed_min": round(hit["elapsed_s"] / 60, 2),
                "cpu_min": round(hit["cpu_s"] / 60, 2), "update": hit["update"],
                "hands": hit["hands"]}
        out["opponents"][name] = {
            "curve": [{k: r[k] for k in ("update", "global_step", "hands", "elapsed_s", "cpu_s",
                                         "win_rate", "ci_low", "ci_high", "mean_reward",
                                         "eval_hands", "kind")} for r in curve],
            "first_reached": first,
            "final": next((r for r in curve if r["kind"] == "final"), None)}
    return out


def train(config: str, minutes: float, sets: list[str], run_root: Path) -> tuple[Path, list, float]:
    """Run train.py to the budget; returns (run folder, load averages sampled, wall seconds)."""
    args = [sys.executable, str(ROOT / "train.py"), "--config", config,
            "--set", f"run.run_root={run_root}"]
    if minutes > 0:
        args += ["--set", f"run.time_limit_minutes={minutes}", "--set", "run.total_updates=1000000"]
    for s in sets:
        args += ["--set", s]
    load, stop = [], threading.Event()

    def sample():
        while not stop.wait(30):
            load.append(round(os.getloadavg()[0], 2))

    threading.Thread(target=sample, daemon=True).start()
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=ROOT, env={**os.environ, "TQDM_DISABLE": "1"},
                          capture_output=True, text=True, check=False)
    stop.set()
    print(proc.stdout)
    if proc.returncode:
        sys.exit(f"train.py failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    line = next(x for x in proc.stdout.splitlines() if x.startswith("run folder: "))
    return Path(line.removeprefix("run folder: ")), load, time.perf_counter() - start


def plot(summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, data in summary["opponents"].items():
        c = [r for r in data["curve"] if r["kind"] == "periodic"]
        x = [r["elapsed_s"] / 60 for r in c]
        ax.plot(x, [r["win_rate"] for r in c], marker="o", ms=3, label=f"vs {name}")
        ax.fill_between(x, [r["ci_low"] for r in c], [r["ci_high"] for r in c], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls=":")
    ax.axhline(0.9, color="grey", lw=0.8, ls="--")
    ax.set(xlabel="wall-clock minutes (2 CPU cores)", ylabel="hand win rate (duplicate deals)",
           ylim=(0, 1), title=Path(summary["run_dir"]).name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/quickstart.yaml")
    p.add_argument("--minutes", type=float, default=0.0,
                   help="wall-clock budget (default: the config's own limits)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="config override passed to train.py (repeatable)")
    p.add_argument("--run-root", default="runs", help="where train.py creates the run folder")
    p.add_argument("--run-dir", help="summarise an existing run folder instead of training")
    p.add_argument("--out", help="output path without extension (default: "
                   "benchmarks/results/learning_<run name>)")
    p.add_argument("--plot", action="store_true", help="also write <out>.png (matplotlib)")
    args = p.parse_args(argv)

    if args.run_dir:
        run_dir, load, wall = Path(args.run_dir), [], None
    else:
        run_dir, load, wall = train(args.config, args.minutes, args.set, Path(args.run_root))
    rows = read_curve(run_dir)
    summary = summarize(rows, run_dir, load, wall)
    out = Path(args.out) if args.out else \
        ROOT / "benchmarks" / "results" / f"learning_{run_dir.name.split('__')[0]}"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    out.with_suffix(".json").write_text(json.dumps(summary, indent=2))
    if args.plot:
        plot(summary, out.with_suffix(".png"))
    print(f"{'opponent':<10}{'min':>7}{'cpu min':>9}{'update':>8}{'hands':>9}{'win rate':>10}"
          f"  95% CI")
    for r in rows:
        final = "  final" if r["kind"] == "final" else ""
        print(f"{r['opponent']:<10}{r['elapsed_s'] / 60:7.1f}{r['cpu_s'] / 60:9.1f}"
              f"{r['update']:8d}{r['hands']:9d}{100 * r['win_rate']:9.1f}%"
              f"  [{100 * r['ci_low']:.1f}, {100 * r['ci_high']:.1f}]{final}")
    for name, data in summary["opponents"].items():
        reached = {k: v["elapsed_min"] for k, v in data["first_reached"].items() if v}
        print(f"first reached vs {name} (minutes): {reached or 'none'}")
    print(f"wrote {out.with_suffix('.csv')} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
