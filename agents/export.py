"""Export a trained network as a slim, committable checkpoint (weights only, no optimizer).

    python -m agents.export RUN_OR_CHECKPOINT OUT [--half]

Keeps what ``agents.checkpoint.load_checkpoint`` / ``net_from_checkpoint`` need to rebuild the
network and check the rules (format, version, network spec, rules, weights), the training
config and counters (update, hands, wall and CPU seconds), and a ``provenance`` dict; drops the
optimizer, the learners' state (the PPO opponent pool: most of a trainer checkpoint's size) and
the random states. The result is still a trainer checkpoint for every reader (``shengji-eval
OUT heuristic`` plays it) but cannot be resumed. ``--half`` stores the weights as float16
(half the bytes); ``load_state_dict`` casts them back to the float32 network on load.

Used by ``agents.search.export`` (the search's rollout network) and ``agents.bot.export`` (the
shipped bot).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import torch

from agents.checkpoint import latest_checkpoint, load_checkpoint

__all__ = ["KEEP", "eval_rows", "export", "slim_checkpoint"]

#: the keys of a trainer checkpoint that a policy needs, or that say where it came from
KEEP = ("format", "version", "net", "rules", "model", "config", "update", "global_step", "hands",
        "elapsed_s", "cpu_s", "train_s")


def _checkpoint_file(run: str | Path) -> Path:
    run = Path(run)
    return latest_checkpoint(run) if run.is_dir() else run


def eval_rows(checkpoint: str | Path, update: int | None = None) -> list[dict]:
    """The rows of the run's ``eval.csv`` for ``update`` (the checkpoint's own update by
    default): the evaluation ``train.py`` made of exactly these weights, as ``{column: text}``.
    ``[]`` when the checkpoint is not inside a run folder (``RUN/checkpoints/update_*.pt``)."""
    path = _checkpoint_file(checkpoint)
    csv_path = path.parent.parent / "eval.csv"
    if path.parent.name != "checkpoints" or not csv_path.exists():
        return []
    if update is None:
        update = load_checkpoint(path)["update"]
    with open(csv_path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("update") == str(update)]


def slim_checkpoint(run: str | Path, half: bool = False, provenance: dict | None = None) -> dict:
    """The slim copy of ``run``'s latest checkpoint (or of a checkpoint file) as a dict of
    tensors and plain data: ``KEEP``'s keys, the weights (float16 with ``half``, else float32)
    and ``provenance`` (plain data: where the weights came from, how they were evaluated)."""
    ckpt = load_checkpoint(run)
    slim = {k: ckpt[k] for k in KEEP if k in ckpt}
    dtype = torch.float16 if half else torch.float32
    slim["model"] = {k: (v.to(dtype) if v.is_floating_point() else v).clone()
                     for k, v in slim["model"].items()}
    if provenance:
        slim["provenance"] = dict(provenance)
    return slim


def export(run: str | Path, out: str | Path, half: bool = False,
           provenance: dict | None = None) -> Path:
    """Write ``slim_checkpoint(run, half, provenance)`` to ``out`` (folders created)."""
    slim = slim_checkpoint(run, half=half, provenance=provenance)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(slim, out)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.export", description=__doc__.split("\n")[0])
    p.add_argument("run", help="a run folder (its newest checkpoint) or a checkpoint file")
    p.add_argument("out", help="the slim checkpoint to write")
    p.add_argument("--half", action="store_true", help="store the weights as float16")
    args = p.parse_args(argv)
    out = export(args.run, args.out, half=args.half)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
