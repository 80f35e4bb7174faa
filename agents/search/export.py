"""Export a trained network as the search agent's rollout weights (a slim checkpoint).

    python -m agents.search.export RUN_DIR [OUT]      # OUT default: agents/search/weights/rollout.pt

Keeps what ``agents.checkpoint.load_checkpoint`` / ``net_from_checkpoint`` need (format,
version, network spec, rules, weights) and drops the optimizer, pool and random states, so the
file stays small enough to commit. It is still a trainer checkpoint: ``shengji-eval
agents/search/weights/rollout.pt heuristic`` evaluates the rollout policy on its own.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from agents.checkpoint import load_checkpoint

from .rollout import DEFAULT_WEIGHTS

KEEP = ("format", "version", "net", "rules", "model", "update", "global_step", "hands")


def export(run: str | Path, out: str | Path = DEFAULT_WEIGHTS) -> Path:
    """Write the slim copy of ``run``'s latest checkpoint (or of a checkpoint file) to ``out``."""
    ckpt = load_checkpoint(run)
    slim = {k: ckpt[k] for k in KEEP if k in ckpt}
    slim["model"] = {k: v.float().clone() for k, v in slim["model"].items()}
    slim["config"] = {k: ckpt["config"][k] for k in ("name", "seed", "hidden", "blocks", "card_head",
                                                   "imitation_updates", "num_envs")
                      if k in ckpt.get("config", {})}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(slim, out)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = export(*args)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
