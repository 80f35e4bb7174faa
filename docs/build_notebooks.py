"""Execute ``notebooks/*.ipynb`` (committed without outputs) and write copies with their outputs to
``docs/notebooks/`` so a reader sees the tables and plots: ``make notebooks``.

Full budgets (no ``SMOKE``); notebook 02 uses the newest ``runs/quickstart__*`` (from ``make run``)
or trains a tiny demo run, never a full one unless ``SHENGJI_TRAIN_FULL=1``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def build(names: list[str] | None = None) -> list[Path]:
    out_dir = ROOT / "docs" / "notebooks"
    out_dir.mkdir(parents=True, exist_ok=True)
    env_backup = os.environ.pop("SMOKE", None)
    written = []
    try:
        for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
            if names and path.stem not in names:
                continue
            start = time.perf_counter()
            nb = nbformat.read(path, as_version=4)
            NotebookClient(nb, timeout=1800, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            target = out_dir / path.name
            nbformat.write(nb, target)
            written.append(target)
            print(f"{path.name}: {time.perf_counter() - start:.0f} s -> {target.relative_to(ROOT)}")
    finally:
        if env_backup is not None:
            os.environ["SMOKE"] = env_backup
    return written


if __name__ == "__main__":
    build(sys.argv[1:] or None)
