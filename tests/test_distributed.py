"""Distributed rollouts on Ray (``agents.learners.distributed``): a tiny run with two workers
finishes, logs the lag and per-worker rates, checkpoints and resumes; a worker killed mid-run
is replaced and the run goes on. Without Ray, or with a learner that cannot collect in
workers, the trainer refuses clearly before it starts."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from agents.config import ConfigError
from agents.learners import config as train_config
from agents.learners.distributed import check_supported

ROOT = Path(__file__).resolve().parents[1]
TINY = {"run": {"name": "dist", "num_envs": 4, "total_updates": 3, "checkpoint_every": 1},
        "rules": {"decks": 1}, "model": {"hidden": 16},
        "learner": {"name": "ppo", "minibatch_size": 256, "update_epochs": 1, "pool_every": 1,
                    "pool_prob": 0.5, "sparring_prob": 0.2},
        "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1},
        "distributed": {"workers": 2, "kill_worker_at_update": 2, "timeout_s": 120}}


def test_learners_that_cannot_collect_in_workers_are_refused():
    cfg = train_config.resolve({**TINY, "learner": [{"name": "imitation", "updates": 2}, "ppo"]})
    with pytest.raises(ConfigError, match="'imitation' cannot collect in distributed workers"):
        check_supported(cfg, 1)
    check_supported(cfg, 3)  # resumed after the warm start: only PPO is left


def test_without_ray_the_error_says_how_to_install(monkeypatch):
    from agents.learners import distributed

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[distributed\]"'):
        distributed.require_ray()


def run_train(*args, cwd):
    env = {**os.environ, "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
def test_two_workers_on_local_ray_train_checkpoint_resume_and_survive_a_kill(tmp_path):
    if importlib.util.find_spec("ray") is None:
        pytest.fail("Ray is not installed: CI installs the distributed extra "
                    '(pip install -e ".[distributed]")')
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump({**TINY, "run": {**TINY["run"], "run_root": str(tmp_path)}}))
    out = run_train("--config", str(path), cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    (run_dir,) = tmp_path.glob("dist__*")
    ea = EventAccumulator(str(run_dir))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    assert {"perf/policy_lag", "losses/policy_loss"} <= tags
    # an update takes the first batches that arrive, so on a slow machine one worker may supply
    # them all (the other still starting up): each logged rate is a worker's, at least one is
    rates = {t for t in tags if t.startswith("perf/hands_per_s/")}
    assert rates and rates <= {"perf/hands_per_s/worker_0", "perf/hands_per_s/worker_1"}
    assert [e.value for e in ea.Scalars("perf/replaced_workers")][-1] == 1  # killed after update 2
    assert max(e.value for e in ea.Scalars("perf/policy_lag")) <= 1  # max_policy_lag
    resumed = run_train("--resume", str(run_dir), "--set", "run.total_updates=4",
                        "--set", "distributed.kill_worker_at_update=0", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    ckpt = torch.load(sorted(run_dir.glob("checkpoints/*.pt"))[-1], weights_only=True)
    assert ckpt["update"] == 4 and ckpt["config"]["distributed"]["workers"] == 2
