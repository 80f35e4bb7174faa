"""Learners side by side: training throughput, and same-budget learning curves.

    python benchmarks/bench_learners.py                       # throughput table (a few minutes)
    python benchmarks/bench_learners.py --learners dmc --updates 3 --num-envs 32
    python benchmarks/bench_learners.py --compare --minutes 60          # the 1-hour comparison
    python benchmarks/bench_learners.py --compare --minutes 60 --learners ppo_pi
    python benchmarks/bench_learners.py --combine          # the table and plot from finished runs

**Throughput.** Each learner of ``LEARNERS`` is built as ``train.py`` builds it (its config's
stage, ``--num-envs`` games) and runs one warm-up update, then ``--updates`` timed ones. For each:
decisions played per second (all env decisions, both teams, as ``global_step`` counts them),
rows learned per second (what the update trains on: every recorded decision for PPO, one row
per whole play or other decision for DMC), and where the time goes — the engine (``venv.reset``
/ ``step``, ``rollout.Chains.engine_s``), network forward passes while playing, DMC's candidate
plays and action features, the rest of choosing (sampling, bookkeeping, a sparring partner),
and the update. The load average is printed: the machine is shared.

**Comparison** (``--compare``). Each learner trains for ``--minutes`` of wall time through
``benchmarks/bench_learning.py`` (which runs ``train.py``), evaluated every ``eval_every``
updates on the same fixed duplicate deals (``eval.seed`` fixed: 100 deals = 200 hands against
RandomAgent and 200 against HeuristicAgent); each run writes
``benchmarks/results/compare_<learner>.{csv,json,png}`` and the learners together
``benchmarks/results/compare_learners.{csv,png}``. One learner runs at a time; to share the
machine, start one process per learner (``--learners NAME``, e.g. each pinned to its own core
with ``taskset -c K``) and write the combined table afterwards with ``--combine``, which reads
every ``compare_<learner>.json`` in ``--results``. The plot has one column per opponent, the
win rate against wall-clock minutes (top) and the run's CPU minutes (bottom: the fairer clock
when the runs did not get the same share of the machine).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: name → (config, learner stage to take from it, --set overrides, periodic eval every N updates)
LEARNERS = {
    "ppo": ("configs/ppo_selfplay.yaml", None, [], 20),
    "ppo_pi": ("configs/ppo_selfplay.yaml", None, ["learner.ppo.critic=perfect_info"], 20),
    "dmc": ("configs/dmc_selfplay.yaml", None, [], 40),  # ~3 min of training, then ~1 min of eval
}
EVAL_SETS = ["eval.opponents={random: 100, heuristic: 100}", "eval.seed=12345"]


def build(name: str, num_envs: int):
    """The learner ``name`` (its config's last stage, the options it would train with) around a
    fresh network and ``num_envs`` games, as ``train.py`` builds it."""
    import numpy as np
    import torch
    import yaml

    from agents.learners import config as train_config
    from agents.learners import learner_class
    from agents.learners.base import TrainContext
    from agents.learners.nets import PolicyValueNet
    from shengji_env import Rules
    from shengji_env.vector import VecEnv

    path, _, sets, _ = LEARNERS[name]
    raw = yaml.safe_load((ROOT / path).read_text())
    stages = raw["learner"] if isinstance(raw["learner"], list) else [raw["learner"]]
    raw["learner"] = {k: v for k, v in stages[-1].items() if k != "updates"}  # the main stage
    cfg = train_config.resolve(raw, sets + [f"run.num_envs={num_envs}"], where=path)
    run, dev = cfg.run, cfg.device
    torch.set_num_threads(dev.torch_threads)
    torch.manual_seed(run.seed)
    rules = Rules(**cfg.rules)
    venv = VecEnv(run.num_envs, rules, seed=0, reward=run.reward)

    def make_net():
        return PolicyValueNet(rules, hidden=cfg.model.hidden, blocks=cfg.model.blocks,
                              card_head=cfg.model.card_head)

    net = make_net()
    stage = cfg.learner[0]
    optimizer = torch.optim.Adam(net.parameters(), lr=stage.options.learning_rate, eps=1e-5)
    ctx = TrainContext(rules, venv, net, make_net, optimizer, np.random.default_rng(run.seed),
                       torch.Generator().manual_seed(run.seed), run.seed, run.hands_per_env,
                       run.total_updates)
    return learner_class(stage.name)(stage.options, ctx), dev


def measure(name: str, num_envs: int, updates: int) -> dict:
    """Timings of ``updates`` updates of learner ``name`` after one warm-up update."""
    import torch

    learner, dev = build(name, num_envs)
    keys = ("engine_s", "forward_s", "candidates_s", "act_s")
    total = {k: 0.0 for k in ("collect_s", "update_s", "decisions", "rows", *keys)}
    for update in range(1, updates + 2):
        torch.set_num_threads(dev.collect_threads)
        t0 = time.perf_counter()
        batch, stats = learner.collect(update)
        t1 = time.perf_counter()
        torch.set_num_threads(dev.torch_threads)
        learner.update(batch, update)
        t2 = time.perf_counter()
        if update == 1:
            continue  # warm-up: lazy imports, caches
        total["collect_s"] += t1 - t0
        total["update_s"] += t2 - t1
        total["decisions"] += stats["decisions"]
        total["rows"] += len(batch)
        for k in keys:
            total[k] += stats.get(k) or 0.0
    return total


def throughput(names: list[str], num_envs: int, updates: int) -> list[dict]:
    rows = []
    for name in names:
        load0 = os.getloadavg()[0]
        t = measure(name, num_envs, updates)
        wall = t["collect_s"] + t["update_s"]
        other = t["act_s"] - t["forward_s"] - t["candidates_s"]
        collect_rest = t["collect_s"] - t["engine_s"] - t["act_s"]  # recording, reshaping
        rows.append({
            "learner": name, "num_envs": num_envs, "updates": updates,
            "decisions_per_s": t["decisions"] / wall,
            "collected_per_s": t["decisions"] / t["collect_s"],
            "rows_learned_per_s": t["rows"] / t["update_s"],
            "rows_per_update": t["rows"] / updates,
            "engine": t["engine_s"] / wall, "forward": t["forward_s"] / wall,
            "candidates": t["candidates_s"] / wall, "other": (other + collect_rest) / wall,
            "update": t["update_s"] / wall,
            "load_average_1min": [round(load0, 2), round(os.getloadavg()[0], 2)]})
    return rows


def print_throughput(rows: list[dict]) -> None:
    print("| learner | decisions/s (collect + learn) | decisions/s collected | rows learned/s "
          "| rows/update | engine | forward passes | candidate plays | other choosing | update "
          "| load avg |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['learner']} | {r['decisions_per_s']:.0f} | {r['collected_per_s']:.0f} | "
              f"{r['rows_learned_per_s']:.0f} | {r['rows_per_update']:.0f} | "
              f"{100 * r['engine']:.0f}% | {100 * r['forward']:.0f}% | "
              f"{100 * r['candidates']:.0f}% | {100 * r['other']:.0f}% | "
              f"{100 * r['update']:.0f}% | {r['load_average_1min'][0]}–"
              f"{r['load_average_1min'][1]} |")


def compare(names: list[str], minutes: float, run_root: str, sets: list[str],
            results: Path) -> None:
    """Train each learner for ``minutes`` through ``bench_learning.py``; combine the curves in
    ``results``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_learning

    results.mkdir(parents=True, exist_ok=True)
    summaries = {}
    for name in names:
        config, _, extra, every = LEARNERS[name]
        args = ["--config", config, "--minutes", str(minutes), "--run-root", run_root,
                "--out", str(results / f"compare_{name}"), "--plot",
                "--set", f"run.name=compare_{name}", "--set", f"eval.every={every}"]
        for s in extra + EVAL_SETS + sets:
            args += ["--set", s]
        if bench_learning.main(args):
            sys.exit(f"{name}: bench_learning.py failed")
        summaries[name] = json.loads((results / f"compare_{name}.json").read_text())
    write_comparison(summaries, results / "compare_learners")


def write_comparison(summaries: dict, out: Path) -> None:
    """``out.csv``: per learner and opponent, the last periodic and the final evaluation;
    ``out.png``: the periodic curves of every learner against each opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(out.with_suffix(".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["learner", "opponent", "kind", "elapsed_min", "cpu_min", "update",
                    "hands_trained",
                    "eval_hands", "win_rate", "ci_low", "ci_high"])
        for name, s in summaries.items():
            for opp, data in s["opponents"].items():
                periodic = [r for r in data["curve"] if r["kind"] == "periodic"]
                for r in ([periodic[-1]] if periodic else []) + \
                        ([data["final"]] if data["final"] else []):
                    w.writerow([name, opp, r["kind"], f"{float(r['elapsed_s']) / 60:.1f}",
                                f"{float(r['cpu_s']) / 60:.1f}", r["update"], r["hands"],
                                r.get("eval_hands", ""),
                                f"{float(r['win_rate']):.4f}", f"{float(r['ci_low']):.4f}",
                                f"{float(r['ci_high']):.4f}"])
    opponents = sorted({o for s in summaries.values() for o in s["opponents"]})
    fig, axes = plt.subplots(2, len(opponents), figsize=(6 * len(opponents), 8),
                             squeeze=False)
    for row, (clock, label) in enumerate((("elapsed_s", "wall-clock minutes"),
                                          ("cpu_s", "CPU minutes of the run"))):
        for ax, opp in zip(axes[row], opponents):
            for name, s in summaries.items():
                c = [r for r in s["opponents"].get(opp, {}).get("curve", [])
                     if r["kind"] == "periodic"]
                x = [r[clock] / 60 for r in c]
                ax.plot(x, [r["win_rate"] for r in c], marker="o", ms=3, label=name)
                ax.fill_between(x, [r["ci_low"] for r in c], [r["ci_high"] for r in c],
                                alpha=0.15)
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
            ax.set(xlabel=label, ylabel="hand win rate (duplicate deals)", ylim=(0, 1),
                   title=f"vs {opp}")
            ax.legend()
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=120)
    print(f"wrote {out.with_suffix('.csv')} and {out.with_suffix('.png')}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--learners", default=",".join(LEARNERS),
                   help=f"comma-separated, of {', '.join(LEARNERS)}")
    p.add_argument("--num-envs", type=int, default=64, help="games per update (throughput)")
    p.add_argument("--updates", type=int, default=2, help="timed updates per learner")
    p.add_argument("--compare", action="store_true", help="train each learner for --minutes "
                   "and write the learning curves instead")
    p.add_argument("--combine", action="store_true", help="write compare_learners.{csv,png} "
                   "from the compare_<learner>.json files already in --results")
    p.add_argument("--minutes", type=float, default=60.0, help="wall-clock budget per learner")
    p.add_argument("--run-root", default="runs", help="where train.py creates the run folders")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra config override for every learner's run (--compare)")
    p.add_argument("--results", default=str(ROOT / "benchmarks" / "results"),
                   help="folder of the comparison's files (--compare)")
    p.add_argument("--json", help="also write the throughput rows to this file")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.learners.split(",") if n.strip()]
    unknown = [n for n in names if n not in LEARNERS]
    if unknown:
        p.error(f"unknown learner(s) {unknown}; expected {', '.join(LEARNERS)}")
    if args.combine:
        results = Path(args.results)
        found = {n: results / f"compare_{n}.json" for n in names}
        summaries = {n: json.loads(f.read_text()) for n, f in found.items() if f.exists()}
        if not summaries:
            p.error(f"no compare_<learner>.json for {', '.join(names)} in {results}")
        write_comparison(summaries, results / "compare_learners")
        return 0
    if args.compare:
        compare(names, args.minutes, args.run_root, args.set, Path(args.results))
        return 0
    rows = throughput(names, args.num_envs, args.updates)
    print_throughput(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
