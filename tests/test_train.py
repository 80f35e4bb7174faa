"""train.py end to end with a tiny budget (events, checkpoint, bit-exact resume), clear config
errors, GAE over each seat's own decisions, and a checkpoint as a Policy."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.base import Policy
from agents.checkpoint import latest_checkpoint, load_checkpoint, load_policy
from agents.learners import config as train_config
from agents.learners.ppo import gae_by_seat
from shengji_env import Rules
from shengji_env.vector import VecEnv

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")  # a script, not a module
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)
TINY = {"run": {"name": "tiny", "num_envs": 6, "total_updates": 2, "checkpoint_every": 1,
                "reward": "win"},
        "model": {"hidden": 16, "card_head": 8},
        "learner": [{"name": "imitation", "updates": 1, "shaping": 2.5},  # update 1 imitates,
                    {"name": "ppo", "minibatch_size": 256, "update_epochs": 2,  # update 2 is PPO
                     "pool_every": 1, "pool_prob": 0.5, "pool_size": 2, "shaping": 2.5,
                     "sparring_prob": 0.3}],
        "eval": {"every": 1, "opponents": {"random": 1, "heuristic": 1}, "final_deals": 1}}


def run_train(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args], cwd=cwd, env=env,
                          check=False, capture_output=True, text=True, timeout=120)


def run_dirs(root: Path, name: str) -> list[Path]:
    return sorted(root.glob(f"{name}__*"))


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory):
    """An uninterrupted 2-update run, and a 1-update run resumed for one more update (across the
    switch from imitation to PPO)."""
    tmp = tmp_path_factory.mktemp("train")
    cfg = tmp / "tiny.yaml"
    cfg.write_text(yaml.safe_dump({**TINY, "run": {**TINY["run"], "run_root": str(tmp / "runs")}}))
    full = run_train("--config", str(cfg), "--set", "run.name=full", cwd=tmp)
    assert full.returncode == 0, full.stderr
    half = run_train("--config", str(cfg), "--set", "run.name=half", "--set",
                     "run.total_updates=1", cwd=tmp)
    assert half.returncode == 0, half.stderr
    (half_dir,) = run_dirs(tmp / "runs", "half")
    resumed = run_train("--resume", str(half_dir), "--set", "run.total_updates=2", cwd=tmp)
    assert resumed.returncode == 0, resumed.stderr
    (full_dir,) = run_dirs(tmp / "runs", "full")
    return full_dir, half_dir, full.stdout + resumed.stdout


def test_tiny_run_writes_config_events_eval_and_checkpoints(tiny_runs):
    full_dir, _, stdout = tiny_runs
    assert yaml.safe_load((full_dir / "config.yaml").read_text())["run"]["num_envs"] == 6
    assert list(full_dir.glob("events.out.tfevents.*"))
    rows = (full_dir / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("update,global_step") and any("heuristic" in r for r in rows)
    ckpt = torch.load(latest_checkpoint(full_dir), weights_only=True)  # plain types only
    assert ckpt["format"] == "shengji-rl/ppo" and ckpt["version"] == 2
    assert ckpt["update"] == 2 and ckpt["global_step"] > 0
    assert len(ckpt["learners"]["ppo"]["pool"]["members"]) == 2
    assert "final evaluation" in stdout and "random" in stdout and "heuristic" in stdout


def test_tensorboard_scalars_are_named_by_section(tiny_runs):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    full_dir, _, _ = tiny_runs
    ea = EventAccumulator(str(full_dir))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    for tag in ("charts/episodic_length", "charts/attacker_points", "losses/policy_loss",
                "losses/value_loss", "losses/entropy", "losses/approx_kl", "losses/clipfrac",
                "selfplay/pool_size", "selfplay/pool_fraction", "eval/win_rate_vs_random",
                "eval/win_rate_vs_heuristic_ci_low", "perf/SPS", "losses/imitation_loss",
                "losses/accuracy", "imitation/student_fraction", "eval_final/win_rate_vs_random"):
        assert tag in tags, tag
    assert "hyperparameters/text_summary" in ea.Tags()["tensors"]


def test_resume_is_bit_exact_for_the_next_update(tiny_runs):
    full_dir, half_dir, _ = tiny_runs
    a = load_checkpoint(full_dir / "checkpoints" / "update_0000002.pt")
    b = load_checkpoint(half_dir / "checkpoints" / "update_0000002.pt")
    assert a["model"].keys() == b["model"].keys()
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert a["global_step"] == b["global_step"]
    assert a["rng"]["numpy"] == b["rng"]["numpy"]
    assert torch.equal(a["rng"]["sample"], b["rng"]["sample"])
    state_a, state_b = a["optimizer"]["state"], b["optimizer"]["state"]
    assert all(torch.equal(state_a[i]["exp_avg_sq"], state_b[i]["exp_avg_sq"]) for i in state_a)


def test_checkpoint_is_a_policy_for_the_evaluator(tiny_runs):
    from agents.specs import resolve

    full_dir, _, _ = tiny_runs
    path = latest_checkpoint(full_dir)
    policy = load_policy(path)
    assert isinstance(policy, Policy)
    venv = VecEnv(4, Rules(), seed=0)
    obs, mask, _, _ = venv.reset()
    actions = policy.act_batch(obs, mask, np.random.default_rng(0))
    assert mask[np.arange(4), actions].all()
    assert isinstance(resolve(str(path), Rules()), Policy)  # shengji-eval's agent specs
    assert isinstance(resolve(str(full_dir), Rules()), Policy)  # a run folder
    assert resolve(f"{full_dir}?sample=true", Rules()).sample is True


# ------------------------------------------------------------------------------ config errors

def write(tmp_path: Path, data: dict) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


def test_unknown_key_is_named_with_the_allowed_keys(tmp_path):
    with pytest.raises(train.ConfigError, match="unknown config key 'num_env'.*num_envs"):
        train_config.load(write(tmp_path, {"run": {"num_env": 8}}))
    with pytest.raises(train.ConfigError, match="unknown config key 'lr'.*learning_rate"):
        train_config.load(write(tmp_path, {}), ["learner.lr=0.1"])
    with pytest.raises(train.ConfigError, match="unknown section 'runs'"):
        train_config.load(write(tmp_path, {}), ["runs.seed=1"])
    with pytest.raises(train.ConfigError, match="unknown config key 'num_env'.*sections"):
        train_config.load(write(tmp_path, {"num_env": 8}))  # flat: the old keys are listed


def test_wrong_type_is_named(tmp_path):
    with pytest.raises(train.ConfigError, match="'num_envs'.*must be int.*'many'"):
        train_config.load(write(tmp_path, {"run": {"num_envs": "many"}}))
    with pytest.raises(train.ConfigError, match="'anneal_lr'.*must be bool"):
        train_config.load(write(tmp_path, {"learner": {"name": "ppo", "anneal_lr": 1}}))
    with pytest.raises(train.ConfigError, match="num_envs.*must be int"):
        train_config.load(write(tmp_path, {}), ["run.num_envs=1.5"])
    with pytest.raises(train.ConfigError, match="pool_prob.*<= 1"):
        train_config.load(write(tmp_path, {"learner": {"name": "ppo", "pool_prob": 1.5}}))
    with pytest.raises(train.ConfigError, match="rules: unknown rules option"):
        train_config.load(write(tmp_path, {"rules": {"deck": 1}}))
    with pytest.raises(train.ConfigError, match="unknown learner 'dqn'"):
        train_config.load(write(tmp_path, {"learner": "dqn"}))
    with pytest.raises(train.ConfigError, match="learning_rate.*finite"):
        train_config.load(write(tmp_path, {}), ["learner.learning_rate=nan"])


def test_overrides_are_parsed_by_field_type(tmp_path):
    cfg = train_config.load(write(tmp_path, {"learner": {"name": "ppo", "learning_rate": "1e-3"},
                                             "run": {"num_envs": 4}}),
                            ["learner.anneal_lr=true", "learner.gamma=0.99", "run.name=x",
                             "rules.decks=1", "rules.kitty_multiplier=POWER"])
    ppo = cfg.learner[0].options
    assert ppo.learning_rate == 1e-3 and ppo.anneal_lr is True and ppo.gamma == 0.99
    assert cfg.rules == {"decks": 1, "kitty_multiplier": "POWER"} and cfg.run.num_envs == 4
    assert cfg.run.name == "x"


def test_a_schedule_takes_keys_by_stage(tmp_path):
    path = write(tmp_path, {"learner": [{"name": "imitation", "updates": 3}, {"name": "ppo"}],
                            "run": {"total_updates": 10}})
    cfg = train_config.load(path, ["learner.ppo.learning_rate=2e-4", "learner.epochs=3"])
    assert [s.name for s in cfg.learner] == ["imitation", "ppo"]
    assert cfg.learner[1].options.learning_rate == 2e-4 and cfg.learner[0].options.epochs == 3
    assert [cfg.stage_at(u)[0] for u in (1, 3, 4, 10)] == [0, 0, 1, 1]
    with pytest.raises(train.ConfigError, match="learning_rate.*2 stages"):
        train_config.load(path, ["learner.learning_rate=1e-4"])


def test_old_flat_configs_still_load(tmp_path, capsys):
    flat = {"num_envs": 8, "imitation_updates": 2, "imitation_learning_rate": 0.002,
            "learning_rate": 1e-4, "eval_deals_heuristic": 0, "hidden": 32, "shaping": 2.0}
    cfg = train_config.load(write(tmp_path, flat), ["total_updates=5"])
    assert cfg.run.num_envs == 8 and cfg.run.total_updates == 5 and cfg.model.hidden == 32
    imitation, ppo = cfg.learner
    assert (imitation.name, imitation.updates, imitation.options.learning_rate) == ("imitation", 2, 0.002)
    assert ppo.options.learning_rate == 1e-4 and ppo.options.shaping == imitation.options.shaping == 2.0
    assert cfg.eval.opponents == {"random": 50, "heuristic": 0}
    err = capsys.readouterr().err
    assert "num_envs → run.num_envs" in err and "total_updates=… is the old flat key" in err


def test_config_error_exits_2_with_a_message(tmp_path):
    out = run_train("--config", str(write(tmp_path, {"model": {"hidden_size": 8}})), cwd=tmp_path)
    assert out.returncode == 2
    assert "hidden_size" in out.stderr and "allowed keys" in out.stderr


def test_shipped_configs_are_valid():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        train_config.load(path)
    assert train_config.load(ROOT / "configs" / "ppo_3decks.yaml").rules == {"decks": 3}
    assert train_config.load(ROOT / "configs" / "quickstart.yaml", ["rules.decks=4"]).rules == {"decks": 4}


@pytest.mark.slow
@pytest.mark.parametrize("decks", [3, 4])
def test_tiny_run_with_more_decks(tmp_path, decks):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(yaml.safe_dump(TINY))
    out = run_train("--config", str(cfg), "--set", f"rules.decks={decks}", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "final evaluation" in out.stdout


# ------------------------------------------------------------------------------------ GAE

def test_gae_runs_along_each_seats_own_decisions():
    # game 0, hand 0: seat 1 decides at steps 0, 2, 4 and seat 2 at steps 1, 3 (interleaved,
    # given in shuffled order); seat 1's team gets +1 at the end, seat 2's team -1
    env = np.array([0, 0, 0, 0, 0])
    hand = np.zeros(5, dtype=np.int64)
    seat = np.array([1, 2, 1, 2, 1])
    step = np.array([0, 1, 2, 3, 4])
    values = np.array([0.5, 0.0, 0.2, 0.3, -0.1], dtype=np.float32)
    final = np.zeros((1, 1, 4), dtype=np.float32)
    final[0, 0] = [-1, 1, -1, 1]
    perm = np.array([3, 0, 4, 1, 2])
    adv, ret = gae_by_seat(env[perm], hand[perm], seat[perm], step[perm], values[perm], final,
                           gamma=1.0, lam=0.5)
    got = dict(zip(step[perm].tolist(), adv.tolist(), strict=True))
    # seat 1: deltas -0.3, -0.3, 1.1 → A = -0.175, 0.25, 1.1
    assert got[4] == pytest.approx(1.1) and got[2] == pytest.approx(0.25)
    assert got[0] == pytest.approx(-0.175)
    # seat 2: deltas 0.3, -1.3 → A = 0.3 + 0.5·(-1.3) = -0.35, -1.3
    assert got[3] == pytest.approx(-1.3) and got[1] == pytest.approx(-0.35)
    assert ret == pytest.approx(adv + values[perm])


def test_shaping_moves_credit_but_keeps_each_chains_return():
    rng = np.random.default_rng(0)
    M = 40
    env, hand = rng.integers(0, 3, M), np.zeros(M, dtype=np.int64)
    seat, step = rng.integers(0, 4, M), rng.permutation(M)
    values = rng.normal(size=M).astype(np.float32)
    final = rng.normal(size=(3, 1, 4)).astype(np.float32)
    phi = rng.normal(size=M).astype(np.float32)
    plain = gae_by_seat(env, hand, seat, step, values, final, gamma=1.0, lam=1.0)
    shaped = gae_by_seat(env, hand, seat, step, values, final, gamma=1.0, lam=1.0, potential=phi)
    # with λ = 1 a decision's return is the sum of its chain's later rewards; the shaping terms
    # γ·Φ(next) − Φ(this) telescope to −Φ(this decision), whatever happens in between
    assert shaped[1] == pytest.approx(plain[1] - phi, abs=1e-5)


def test_progress_bar_total_follows_the_time_limit():
    from types import SimpleNamespace

    from tqdm import tqdm

    from agents.learners.runs import fit_bar_to_time_limit as _fit_bar_to_time_limit

    run = SimpleNamespace(time_limit_minutes=1.0, total_updates=1000)
    bar = tqdm(total=run.total_updates, disable=True)
    _fit_bar_to_time_limit(bar, run, update=10, elapsed_s=6.0)  # 0.6 s/update, 54 s left
    assert bar.total == 100
    _fit_bar_to_time_limit(bar, run, update=100, elapsed_s=60.0)  # out of time: ends full
    assert bar.total == 100
    run.time_limit_minutes = 0.0
    bar2 = tqdm(total=7, disable=True)
    _fit_bar_to_time_limit(bar2, run, update=3, elapsed_s=1.0)
    assert bar2.total == 7


def test_help_columns_never_run_together():
    from agents.config import HELP_WIDTH
    from agents.learners.config import help_text
    text = help_text()
    # a default wider than its column ends its line; the meaning starts on the next, aligned
    assert "{'random': 50, 'heuristic': 20}\n" + " " * 53 + "agent spec" in text
    for line in text.splitlines():
        if len(line) > HELP_WIDTH:  # only a key/type/default line may be long, and holds no meaning
            assert line.rstrip().endswith(("}", "]", ")", "'")), line
