"""PPO's ``declare_teacher``: the learner's declarations are the teacher's, recorded as such and
learned by behaviour cloning, while the rest of its play stays PPO's."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.baselines.heuristic import HeuristicAgent
from agents.learners.base import TrainContext
from agents.learners.nets import PolicyValueNet, masked_distribution
from agents.learners.ppo import PPOLearner, PPOOptions, ppo_update
from shengji_env import Rules
from shengji_env.core.observe import layout
from shengji_env.rules.actions import Phase
from shengji_env.vector import VecEnv

RULES = Rules()
DECLARING = layout(RULES)["phase"].start + int(Phase.DECLARE)


def learner(**options):
    torch.manual_seed(0)
    net = PolicyValueNet(RULES, hidden=16)
    ctx = TrainContext(RULES, VecEnv(4, RULES, seed=0), net, lambda: PolicyValueNet(RULES, hidden=16),
                       torch.optim.Adam(net.parameters(), lr=1e-2), np.random.default_rng(0),
                       torch.Generator().manual_seed(0), 0, 1, 10)
    return PPOLearner(PPOOptions(minibatch_size=256, update_epochs=1, pool_prob=0.0, **options),
                      ctx)


def declare_log_prob(net, batch) -> float:
    rows = batch.imitate
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(batch.obs[rows]))
        dist = masked_distribution(logits, torch.from_numpy(batch.mask[rows]))
        return float(dist.log_prob(torch.from_numpy(batch.actions[rows])).mean())


def test_the_learner_declares_as_the_teacher_and_learns_it():
    ppo = learner(declare_teacher="heuristic")
    batch, _ = ppo.collect(1)
    declaring = batch.obs[:, DECLARING] == 1
    assert np.array_equal(batch.imitate, declaring) and declaring.any()
    teacher = HeuristicAgent(RULES)
    want = teacher.act_batch(batch.obs[declaring], batch.mask[declaring], None)
    assert np.array_equal(batch.actions[declaring], want)
    before = declare_log_prob(ppo.ctx.net, batch)
    # the recorded log-probability is the network's, of the teacher's action
    assert np.isclose(batch.logp[declaring].mean(), before, atol=1e-5)
    losses = ppo.update(batch, 1)
    assert np.isfinite(losses["imitation_loss"])
    assert declare_log_prob(ppo.ctx.net, batch) > before  # cloning raised the teacher's choices
    # the other decisions are the network's own samples
    assert not np.array_equal(batch.actions[~declaring],
                              teacher.act_batch(batch.obs[~declaring], batch.mask[~declaring],
                                                None))


def test_without_a_teacher_nothing_is_imitated():
    batch, _ = learner().collect(1)
    assert batch.imitate is None
    assert (batch.obs[:, DECLARING] == 1).any()  # the network made its declarations itself


def test_taught_rows_leave_the_surrogate():
    """A batch of taught rows only: the surrogate contributes nothing, cloning everything."""
    ppo = learner(declare_teacher="heuristic")
    batch, _ = ppo.collect(1)
    rows = batch.imitate
    from dataclasses import replace

    taught = replace(batch, **{f: getattr(batch, f)[rows] for f in
                               ("obs", "mask", "actions", "logp", "values", "advantages",
                                "returns", "imitate")})
    out = ppo_update(ppo.ctx.net, ppo.ctx.optimizer, taught, epochs=1, minibatch_size=4096,
                     clip_coef=0.2, ent_coef=0.0, vf_coef=0.0, max_grad_norm=0.5,
                     np_rng=np.random.default_rng(0), imitate_coef=1.0)
    assert out["policy_loss"] == 0.0 and out["imitation_loss"] > 0


def test_a_bad_teacher_is_refused_clearly():
    with pytest.raises(ValueError, match="nobody"):
        learner(declare_teacher="nobody")
