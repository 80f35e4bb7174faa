"""benchmarks/bench_engine.py --baseline: HEAD against the working tree with tiny settings (both
figures, the ratio, each side importing its own shengji_env, the temporary checkout removed), and
one-line errors for an unknown revision and for a script outside a git checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_engine.py"

in_git = shutil.which("git") is not None and subprocess.run(
    ["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True).returncode == 0
pytestmark = pytest.mark.skipif(not in_git, reason="needs git and a git checkout of the project")


def bench(*args: str, script: Path = SCRIPT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *args], cwd=script.parent, env=env,
                          check=False, capture_output=True, text=True, timeout=60)


def leftovers() -> set[Path]:
    return set(ROOT.parent.glob(f"{ROOT.name}.baseline-*"))


def test_baseline_head_side_by_side(tmp_path):
    before = leftovers()
    out = tmp_path / "bench.json"
    proc = bench("--baseline", "HEAD", "--sizes", "1", "8", "--steps", "20", "--warmup", "5",
                 "--repeats", "1", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == res
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert res["baseline"]["commit"] == head.stdout.strip()
    assert res["working_tree"]["shengji_env"] == str(ROOT / "shengji_env" / "__init__.py")
    assert res["baseline"]["shengji_env"] == "shengji_env/__init__.py"  # inside the temporary checkout
    assert not Path(res["baseline"]["checkout"]).exists() and leftovers() == before
    table = [line.split() for line in proc.stdout.splitlines()]
    rows = {cells[0]: cells for cells in table if cells[:1] in (["1"], ["8"])}
    for b in ("1", "8"):
        row = res["engine_random_play_vs_baseline"][b]
        old, new = row["baseline"]["decisions_per_s"], row["working_tree"]["decisions_per_s"]
        assert old > 0 and new > 0 and row["ratio_decisions_per_s"] == pytest.approx(new / old)
        assert len(row["runs"]["baseline"]) == len(row["runs"]["working_tree"]) == 1
        assert rows[b][1:4] == [f"{old:,.0f}", f"{new:,.0f}", f"{new / old:.3f}"]


def test_unknown_revision_exits_2_naming_it():
    proc = bench("--baseline", "no-such-rev-7f3a", "--sizes", "1")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no-such-rev-7f3a" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_outside_a_git_checkout(tmp_path):
    for name in ("bench_engine.py", "baseline.py"):
        shutil.copy(SCRIPT.parent / name, tmp_path / name)
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    proc = bench("--baseline", "HEAD", "--sizes", "1", script=tmp_path / "bench_engine.py", env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "not inside" in proc.stderr and str(tmp_path) in proc.stderr


def test_rule_options_reach_the_run(tmp_path):
    out = tmp_path / "bench.json"
    proc = bench("--rule", "follow_partial_tractor=true", "--rule", "kitty_multiplier=LINEAR",
                 "--sizes", "4", "--steps", "10", "--warmup", "2", "--repeats", "1",
                 "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["rules"] == {"follow_partial_tractor": True, "kitty_multiplier": "LINEAR"}
    assert res["engine_random_play"]["4"]["decisions_per_s"] > 0


@pytest.mark.parametrize("rule, named", [("kitty_multiplier=BAD", "'BAD' is not allowed"),
                                         ("follow_partial_tractor=yes", "is true or false"),
                                         ("no_such_option=1", "a Rules option"),
                                         ("decks=3", "with --decks")])
def test_bad_rule_is_refused_naming_it(rule, named):
    proc = bench("--rule", rule, "--sizes", "1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert rule.split("=")[0] in proc.stderr and named in proc.stderr
