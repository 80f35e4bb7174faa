"""Side-by-side engine timing against a git revision, for ``bench_engine.py --baseline REV``.

The revision is exported with ``git archive`` into a temporary directory beside the working tree
(nothing is registered in the repository, so an aborted run leaves at most that directory, and the
normal exit, an error, Ctrl-C and SIGTERM all remove it). Every measurement runs in its own
subprocess: ``bench_engine.py --worker CHECKOUT`` from the working tree, with ``PYTHONPATH`` and the
working directory set to the checkout, so ``shengji_env`` is imported from there. The worker prints
one JSON line with its figures and the ``shengji_env.__file__`` it imported, and both sides check
that file lies inside the intended checkout.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

import numpy as np

KEYS = ("decisions_per_s", "hands_per_s")


class BaselineError(Exception):
    """A problem to report in one line (no traceback), with the exit status to use."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


def git(root: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise BaselineError("--baseline needs git, and no git executable was found") from None
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, proc.args, proc.stdout, proc.stderr)
    return proc.stdout.strip()


def repo_root(start: Path) -> Path:
    try:
        return Path(git(start, "rev-parse", "--show-toplevel"))
    except subprocess.CalledProcessError:
        raise BaselineError(f"--baseline needs a git checkout, and {start} is not inside one") from None


def resolve(root: Path, rev: str) -> str:
    try:
        return git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        raise BaselineError(f"unknown revision {rev!r}: not a commit in {root}") from None


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through the ``finally`` that removes the checkout


@contextlib.contextmanager
def extracted(root: Path, sha: str):
    """A temporary export of commit ``sha`` beside ``root``; removed on exit, error, Ctrl-C, SIGTERM."""
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f"{root.name}.baseline-{sha[:10]}-", dir=root.parent))
    except OSError:
        tmp = Path(tempfile.mkdtemp(prefix=f"{root.name}.baseline-{sha[:10]}-"))
    main_thread = threading.current_thread() is threading.main_thread()
    old_term = signal.signal(signal.SIGTERM, _exit_on_signal) if main_thread else None
    proc = None
    try:
        proc = subprocess.Popen(["git", "-C", str(root), "archive", "--format=tar", sha],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
            kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(tmp, **kw)
        if proc.wait():
            raise BaselineError(f"git archive {sha} failed: {proc.stderr.read().decode().strip()}", 1)
        yield tmp
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        if main_thread:
            signal.signal(signal.SIGTERM, old_term)


def measure(script: Path, checkout: Path, size: int, seed: int, opts: list[str], label: str) -> dict:
    """One worker subprocess: ``script`` importing ``shengji_env`` from ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, str(script), "--worker", str(checkout), "--sizes", str(size),
           "--seed", str(seed), *opts]
    proc = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True)
    where = f"{label} run at B={size} (seed {seed})"
    if proc.returncode:
        tail = "\n".join("    " + line for line in proc.stderr.strip().splitlines()[-6:])
        raise BaselineError(f"{where} failed with exit status {proc.returncode}:\n{tail}", 1)
    try:
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise BaselineError(f"{where} printed no JSON result: {proc.stdout[-200:]!r}", 1) from None
    imported = Path(result["shengji_env"]).resolve()
    if not imported.is_relative_to(checkout.resolve()):
        raise BaselineError(f"{where} imported {imported}, which is not inside {checkout}", 1)
    return result


def _median(runs: list[dict]) -> dict:
    return {k: float(np.median([r[k] for r in runs])) for k in KEYS}


def _ratio(new: float, old: float) -> float | None:
    return new / old if old > 0 else None


def compare(script: Path, rev: str, sizes: list[int], repeats: int, opts: list[str]) -> dict:
    """Interleaved runs of revision ``rev`` and the working tree that holds ``script``.

    For each repeat and each size: baseline then working tree, the other way round on odd repeats
    (drift cancels); repeat ``r`` uses seed ``r`` on both sides. Returns a JSON-ready dict.
    """
    root = repo_root(script.resolve().parent)
    sha = resolve(root, rev)
    head = git(root, "rev-parse", "HEAD")
    dirty = bool(git(root, "status", "--porcelain", "--untracked-files=no"))
    runs = {b: {"baseline": [], "working_tree": []} for b in sizes}
    imported = {}
    with extracted(root, sha) as checkout:
        sides = {"baseline": checkout, "working_tree": root}
        for r in range(repeats):
            order = ["baseline", "working_tree"][:: 1 if r % 2 == 0 else -1]
            print(f"repeat {r + 1}/{repeats}: B = {' '.join(map(str, sizes))}", file=sys.stderr, flush=True)
            for b in sizes:
                for side in order:
                    res = measure(script, sides[side], b, r, opts, side.replace("_", " "))
                    imported[side] = str(Path(res["shengji_env"]).relative_to(sides[side].resolve()))
                    runs[b][side].append({k: res[k] for k in KEYS})
        checkout_path = str(checkout)
    table = {}
    for b in sizes:
        old, new = _median(runs[b]["baseline"]), _median(runs[b]["working_tree"])
        pair = [n["decisions_per_s"] / o["decisions_per_s"]
                for o, n in zip(runs[b]["baseline"], runs[b]["working_tree"])]
        table[b] = {"baseline": old, "working_tree": new,
                    "ratio_decisions_per_s": _ratio(new["decisions_per_s"], old["decisions_per_s"]),
                    "ratio_hands_per_s": _ratio(new["hands_per_s"], old["hands_per_s"]),
                    "ratio_decisions_per_s_range": [min(pair), max(pair)],
                    "runs": runs[b]}
    return {"engine_random_play_vs_baseline": table, "repeats": repeats,
            "baseline": {"rev": rev, "commit": sha, "checkout": checkout_path,
                         "shengji_env": imported["baseline"]},
            "working_tree": {"root": str(root), "head": head, "uncommitted_changes": dirty,
                             "shengji_env": str(root / imported["working_tree"])}}


def compare_or_exit(script: Path, rev: str, sizes: list[int], repeats: int, opts: list[str]) -> dict:
    """``compare`` for a benchmark's command line: an error or Ctrl-C ends the process with one
    line naming the script (status ``BaselineError.status`` or 130), never a traceback."""
    try:
        return compare(script, rev, sizes, repeats, opts)
    except BaselineError as err:
        print(f"{script.name}: {err}", file=sys.stderr)
        sys.exit(err.status)
    except KeyboardInterrupt:
        print(f"{script.name}: interrupted", file=sys.stderr)
        sys.exit(130)


def format_table(res: dict) -> str:
    base, wt = res["baseline"], res["working_tree"]
    lines = [f"baseline     {base['rev']} = {base['commit'][:12]}  (temporary checkout, removed)",
             f"working tree {wt['head'][:12]}{' + uncommitted changes' if wt['uncommitted_changes'] else ''}"
             f"  {wt['shengji_env']}",
             f"medians of {res['repeats']} interleaved runs; new/old = working tree / baseline",
             f"{'B':>6} {'base dec/s':>12} {'new dec/s':>12} {'new/old':>8} {'range':>11}"
             f" {'base hands/s':>13} {'new hands/s':>12}"]
    for b, row in res["engine_random_play_vs_baseline"].items():
        old, new = row["baseline"], row["working_tree"]
        ratio = row["ratio_decisions_per_s"]
        lo, hi = row["ratio_decisions_per_s_range"]
        rng = f"{lo:.2f}-{hi:.2f}"
        lines.append(f"{b:>6} {old['decisions_per_s']:>12,.0f} {new['decisions_per_s']:>12,.0f}"
                     f" {(f'{ratio:.3f}' if ratio is not None else '-'):>8} {rng:>11}"
                     f" {old['hands_per_s']:>13,.1f} {new['hands_per_s']:>12,.1f}")
    return "\n".join(lines)


if __name__ == "__main__":
    print("benchmarks/baseline.py is a helper; run: python benchmarks/bench_engine.py --baseline REV")
