"""Make a trained checkpoint the shipped bot: write ``agents/bot/weights/bot.pt``.

    python -m agents.bot.export RUN_OR_CHECKPOINT [--out PATH] [--recipe TEXT] [--half]

A slim, weights-only copy (``agents.export``) with a ``provenance`` dict: the source checkpoint
and its run, the recipe (``--recipe``: the command or config that trained it), seed, wall and
CPU seconds, and the rows of the run's ``eval.csv`` for exactly these weights (when the
checkpoint sits in its run folder, ``RUN/checkpoints/update_*.pt``). ``agents.bot.metadata()``
reads it back. Update ``agents/bot/README.md`` and the README's "Shipped bot" table with the
new numbers.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from agents import export as slim
from agents.checkpoint import load_checkpoint

from . import DEFAULT_WEIGHTS

#: the eval.csv columns kept in the provenance
EVAL_COLUMNS = ("opponent", "eval_hands", "win_rate", "ci_low", "ci_high", "mean_reward", "kind",
                "elapsed_s", "cpu_s")


def provenance(run: str | Path, recipe: str = "") -> dict:
    """Where the checkpoint ``run`` (a run folder: its newest checkpoint) came from, as plain
    data: source path, run name, recipe, seed, counters and its own evaluation rows."""
    ckpt = load_checkpoint(run)
    rows = slim.eval_rows(run, ckpt["update"])
    cfg = ckpt.get("config", {})
    run_cfg = cfg.get("run", {}) if isinstance(cfg.get("run"), dict) else cfg
    learners = [s.get("name") for s in cfg.get("learner", []) if isinstance(s, dict)]
    return {
        "source": str(Path(run).resolve()),
        "run": run_cfg.get("name", ""),
        "seed": run_cfg.get("seed"),
        "learners": learners,
        "recipe": recipe,
        "update": ckpt.get("update"),
        "hands": ckpt.get("hands"),
        "wall_s": ckpt.get("elapsed_s"),
        "cpu_s": ckpt.get("cpu_s"),
        "eval": [{k: r[k] for k in EVAL_COLUMNS if k in r} for r in rows],
        "exported": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.bot.export",
                                description=__doc__.split("\n")[0])
    p.add_argument("run", help="a run folder (its newest checkpoint) or a checkpoint file")
    p.add_argument("--out", default=str(DEFAULT_WEIGHTS), help="default: %(default)s")
    p.add_argument("--recipe", default="", help="how the checkpoint was trained (a command)")
    p.add_argument("--half", action="store_true", help="store the weights as float16")
    args = p.parse_args(argv)
    out = slim.export(args.run, args.out, half=args.half,
                      provenance=provenance(args.run, args.recipe))
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
