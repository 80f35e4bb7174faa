"""Export a trained network as the search agent's rollout weights (a slim checkpoint).

    python -m agents.search.export RUN_DIR [OUT]      # OUT default: agents/search/weights/rollout.pt

A weights-only copy (``agents.export``: network spec, rules, weights, training config; no
optimizer, pool or random states), small enough to commit. It is still a trainer checkpoint:
``shengji-eval agents/search/weights/rollout.pt heuristic`` evaluates the rollout policy on its
own.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agents import export as slim

from .rollout import DEFAULT_WEIGHTS


def export(run: str | Path, out: str | Path = DEFAULT_WEIGHTS) -> Path:
    """Write the slim copy of ``run``'s latest checkpoint (or of a checkpoint file) to ``out``."""
    return slim.export(run, out)


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
