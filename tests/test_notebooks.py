"""The notebooks run top to bottom in smoke mode (SMOKE=1 shrinks every budget)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
# The training notebook (~14 s in CI) runs in the slow suite: the default run keeps its budget
# (README: under ~5 minutes) and still trains end to end in tests/test_train.py's tiny run.
SLOW = {"02_train_and_evaluate"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW else p
                                  for p in NOTEBOOKS], ids=lambda p: p.stem)
def test_notebook_runs(path, monkeypatch, tmp_path):
    monkeypatch.setenv("SMOKE", "1")
    monkeypatch.setenv("SHENGJI_RUNS", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        f"{path.name} is committed with outputs; strip them"
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
