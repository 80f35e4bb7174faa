"""The learner plug-in shape: a REINFORCE learner written here — not in the project — trains
through ``train.py`` from one config file, with no edit to any project file."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import yaml

from agents.config import option
from agents.learners.base import Learner
from agents.learners.nets import masked_distribution
from agents.learners.rollout import play_hands

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ReinforceOptions:
    learning_rate: float = option(1e-3, "Adam step size", minimum=0, exclusive_min=True)


class Reinforce(Learner):
    """Monte-Carlo policy gradient: every decision of a seat is credited with its hand's reward."""

    name = "reinforce"
    Options = ReinforceOptions

    def collect(self, update):
        c = self.ctx

        def act(obs, mask, to_act, active, hand, step):
            rows = np.flatnonzero(active)
            with torch.no_grad():
                logits, _ = c.net(torch.from_numpy(obs[rows]))
                dist = masked_distribution(logits, torch.from_numpy(mask[rows]))
                chosen = torch.multinomial(dist.probs, 1, generator=c.gen).squeeze(1).numpy()
            actions = mask.argmax(1).astype(np.int64)
            actions[rows] = chosen
            return actions, rows, {"obs": obs[rows], "mask": mask[rows], "actions": chosen}

        chains = play_hands(c.venv, seed=c.seed, update=update, hands_per_env=c.hands_per_env,
                            act=act)
        return chains, {"decisions": chains.decisions, "hands": int(chains.lengths.size)}

    def update(self, chains, update):
        d = chains.data
        logits, _ = self.ctx.net(torch.from_numpy(d["obs"]))
        dist = masked_distribution(logits, torch.from_numpy(d["mask"]))
        ret = torch.from_numpy(chains.final_reward_of_rows())
        loss = -(dist.log_prob(torch.from_numpy(d["actions"])) * ret).mean()
        self.ctx.optimizer.zero_grad()
        loss.backward()
        self.ctx.optimizer.step()
        return {"reinforce_loss": loss.item()}


def test_a_learner_from_outside_trains_through_train_py(tmp_path):
    config = {"run": {"name": "toy", "num_envs": 4, "total_updates": 2, "run_root": str(tmp_path)},
              "rules": {"decks": 1}, "model": {"hidden": 16},
              "learner": {"name": "test_learner_plugin:Reinforce", "learning_rate": 0.01},
              "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(config))
    env = {**os.environ, "TQDM_DISABLE": "1",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, str(ROOT / "train.py"), "--config", str(path)], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    (run_dir,) = tmp_path.glob("toy__*")
    ckpt = torch.load(sorted(run_dir.glob("checkpoints/*.pt"))[-1], weights_only=True)
    assert ckpt["format"] == "shengji-rl/reinforce" and ckpt["update"] == 2
    assert "final evaluation" in out.stdout
