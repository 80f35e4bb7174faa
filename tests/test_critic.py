"""PPO with a perfect-information critic (``learner.ppo.critic: perfect_info``): the critic sees
the hidden hands and the kitty; the policy network is only ever given observations."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.learners.base import TrainContext
from agents.learners.critic import HIDDEN_SIZE, hidden_cards
from agents.learners.nets import PolicyValueNet
from agents.learners.ppo import PPOLearner, PPOOptions
from shengji_env import Rules
from shengji_env.core import Engine
from shengji_env.vector import VecEnv

ROOT = Path(__file__).resolve().parents[1]
RULES = Rules(decks=1)


def test_hidden_cards_are_the_other_hands_and_the_kitty():
    eng = Engine(RULES, 3, seed=4)
    s = eng.reset()
    for _ in range(40):  # into the play, past the bury
        mask = eng.legal_mask(s)
        s, _, _ = eng.step(s, mask.argmax(1))
    seats = s.to_act.astype(np.int64)
    got = hidden_cards(s, np.arange(3), seats, RULES.decks)
    assert got.shape == (3, HIDDEN_SIZE)
    for g in range(3):
        want = [s.hands[g, (seats[g] + r) % 4] for r in (1, 2, 3)] + [s.kitty[g]]
        assert np.array_equal(got[g], np.concatenate(want).astype(np.float32))


def learner(critic="perfect_info"):
    torch.manual_seed(0)
    net = PolicyValueNet(RULES, hidden=16)
    ctx = TrainContext(RULES, VecEnv(4, RULES, seed=0), net, lambda: PolicyValueNet(RULES, hidden=16),
                       torch.optim.Adam(net.parameters(), lr=1e-3), np.random.default_rng(0),
                       torch.Generator().manual_seed(0), 0, 1, 10)
    return PPOLearner(PPOOptions(critic=critic, critic_hidden=32, minibatch_size=128,
                                 update_epochs=1, pool_prob=0.0), ctx)


def test_the_policy_is_given_observations_only_and_the_critic_learns():
    ppo = learner()
    seen = []
    ppo.ctx.net.register_forward_pre_hook(lambda mod, args: seen.append(args[0].detach().clone()))
    batch, _ = ppo.collect(1)
    assert batch.hidden.shape == (len(batch), HIDDEN_SIZE)
    collected = [x.numpy() for x in seen]
    seen.clear()
    before = {k: v.clone() for k, v in ppo.critic.state_dict().items()}
    ppo.update(batch, 1)
    obs_rows = {hashlib.sha1(r.tobytes()).hexdigest() for r in batch.obs}
    for x in collected + [x.numpy() for x in seen]:
        assert x.shape[1] == ppo.ctx.net.obs_size  # an observation, nothing appended
        assert {hashlib.sha1(r.tobytes()).hexdigest() for r in x} <= obs_rows
    assert any(not torch.equal(before[k], v) for k, v in ppo.critic.state_dict().items())


def test_critic_state_round_trips():
    a, b = learner(), learner()
    batch, _ = a.collect(1)
    a.update(batch, 1)
    b.load_state_dict(a.state_dict())
    for k, v in a.critic.state_dict().items():
        assert torch.equal(v, b.critic.state_dict()[k])


def test_the_shared_critic_records_no_hidden_cards():
    batch, _ = learner("shared").collect(1)
    assert batch.hidden is None


@pytest.mark.slow
def test_perfect_info_critic_trains_through_train_py_and_resumes_exactly(tmp_path):
    cfg = {"run": {"name": "pi", "num_envs": 4, "total_updates": 2, "checkpoint_every": 1,
                   "run_root": str(tmp_path)},
           "rules": {"decks": 1}, "model": {"hidden": 16},
           "learner": {"name": "ppo", "critic": "perfect_info", "critic_hidden": 32,
                       "minibatch_size": 128, "update_epochs": 1},
           "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "TQDM_DISABLE": "1"}

    def run(*args):
        out = subprocess.run([sys.executable, str(ROOT / "train.py"), *args], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=300, check=False)
        assert out.returncode == 0, out.stderr[-2000:]

    run("--config", str(path), "--set", "run.name=full")
    run("--config", str(path), "--set", "run.name=half", "--set", "run.total_updates=1")
    (half,) = tmp_path.glob("half__*")
    run("--resume", str(half), "--set", "run.total_updates=2")
    (full,) = tmp_path.glob("full__*")
    a = torch.load(full / "checkpoints" / "update_0000002.pt", weights_only=True)
    b = torch.load(half / "checkpoints" / "update_0000002.pt", weights_only=True)
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    for k, v in a["learners"]["ppo"]["critic"].items():
        assert torch.equal(v, b["learners"]["ppo"]["critic"][k]), k


def test_cuda_without_a_gpu_is_refused_clearly():
    from agents.config import ConfigError
    from agents.learners import config as train_config

    cfg = train_config.resolve({"device": {"device": "cuda"}})
    if torch.cuda.is_available():
        assert train_config.torch_device(cfg.device) == "cuda"
    else:
        with pytest.raises(ConfigError, match="device.device=cuda.*no CUDA GPU"):
            train_config.torch_device(cfg.device)
    assert train_config.torch_device(train_config.resolve({"device": {"device": "auto"}}).device) \
        in ("cpu", "cuda")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_learning_on_the_gpu_keeps_rollouts_on_the_cpu():
    ppo = learner()
    ppo.ctx.learn_net = PolicyValueNet(RULES, hidden=16).cuda()
    ppo.ctx.learn_net.load_state_dict(ppo.ctx.net.state_dict())
    ppo.ctx.optimizer = torch.optim.Adam(ppo.ctx.learn_net.parameters(), lr=1e-3)
    ppo.critic = ppo.critic.cuda()
    ppo.critic_optimizer = torch.optim.Adam(ppo.critic.parameters(), lr=1e-3)
    batch, _ = ppo.collect(1)
    losses = ppo.update(batch, 1)
    assert np.isfinite(losses["policy_loss"])
    assert next(ppo.ctx.net.parameters()).device.type == "cpu"
