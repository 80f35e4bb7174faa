"""kill -9 during a run, then ``--resume``: TensorBoard events and ``eval.csv`` hold every update
exactly once (the resumed checkpoint's update too), ``elapsed_s`` stays monotonic, and resuming
the finished run appends nothing."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = {"run": {"name": "kill", "num_envs": 2, "total_updates": 4, "checkpoint_every": 1,
                  "reward": "win", "run_root": "runs"},
          "model": {"hidden": 8},
          "learner": {"name": "ppo", "minibatch_size": 64, "update_epochs": 1},
          "eval": {"every": 1, "opponents": {"random": 1}, "final_deals": 1}}

# train.py, killed with SIGKILL just before it writes the checkpoint of update 3: update 3's
# scalars and eval row exist, its checkpoint does not
KILLED = textwrap.dedent("""
    import os, signal, sys
    import agents.checkpoint as ck
    real = ck.save_checkpoint
    def save(state, run_dir, update, **kw):
        if update == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(state, run_dir, update, **kw)
    ck.save_checkpoint = save
    import runpy
    sys.argv = [{train!r}, "--config", "kill.yaml"]
    runpy.run_path({train!r}, run_name="__main__")
""")


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TQDM_DISABLE": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=180, check=False)


@pytest.mark.slow  # three train.py runs, ~30 s
def test_kill_and_resume_keep_every_update_exactly_once(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (tmp_path / "kill.yaml").write_text(yaml.safe_dump(CONFIG))
    killed = run(["-c", KILLED.format(train=str(ROOT / "train.py"))], tmp_path)
    assert killed.returncode == -9, killed.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert sorted(p.name for p in (run_dir / "checkpoints").glob("*.pt"))[-1] == "update_0000002.pt"
    with open(run_dir / "eval.csv", "a") as f:
        f.write("3,999,6,1.0,1.0")  # a row cut short by the kill

    resumed = run([str(ROOT / "train.py"), "--resume", str(run_dir)], tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming at update 2 of 4" in resumed.stdout

    with open(run_dir / "eval.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(int(r["update"]), r["kind"]) for r in rows] == \
        [(1, "periodic"), (2, "periodic"), (3, "periodic"), (4, "final")]
    elapsed = [float(r["elapsed_s"]) for r in rows]
    assert elapsed == sorted(elapsed)
    steps = [int(r["global_step"]) for r in rows]

    ea = EventAccumulator(str(run_dir))
    ea.Reload()
    for tag in ("charts/hands", "perf/SPS", "losses/policy_loss"):
        assert [e.step for e in ea.Scalars(tag)] == steps, tag  # update 2 survived the resume
    # periodic evaluations under eval/, the final table under its own tag eval_final/
    assert [e.step for e in ea.Scalars("eval/win_rate_vs_random")] == steps[:-1]
    assert [e.step for e in ea.Scalars("eval_final/win_rate_vs_random")] == steps[-1:]
    wins = {e.step: e.value for e in ea.Scalars("eval/win_rate_vs_random")}
    wins.update({e.step: e.value for e in ea.Scalars("eval_final/win_rate_vs_random")})
    assert all(abs(wins[int(r["global_step"])] - float(r["win_rate"])) < 1e-4 for r in rows)

    again = run([str(ROOT / "train.py"), "--resume", str(run_dir)], tmp_path)
    assert again.returncode == 0 and "finished at update 4" in again.stdout, again.stderr
    with open(run_dir / "eval.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 4
