"""Imitation warm start: learn a teacher's play (behaviour cloning with DAgger) before PPO.

PPO from random weights needs many hours on two CPU cores to discover what a rule-based player
knows from the start (draw trump, give points to a winning partner, keep the kitty safe).
``train.py`` can therefore spend its first ``imitation_updates`` updates learning from a
teacher — ``HeuristicAgent`` — and only then improve on it by PPO.

**Collection** (``collect_demonstrations``, on the shared rollout ``agents.learners.rollout``):
every update plays ``hands_per_env`` fresh hands in each game of the ``VecEnv``. In each (game, hand) one
team is played by the *student* (the network, sampling) with probability ``student_prob``; the
other seats are played by the teacher. Every decision of every seat is labelled with the action
the teacher would take there — or rather with every action that makes the same play, when the
teacher offers them (``HeuristicAgent.act_with_options``: the cards of a multi-card play in any
order). Labelling the student's own states is DAgger (Ross et al. 2011):
the student also learns how to recover from positions the teacher would never reach.

**Update** (``imitation_update``). Cross-entropy of the masked action distribution against the
teacher's choice — ``−log`` of the probability of the set of actions that make the teacher's
play — plus ``vf_coef`` × the squared error of the value head against the return the
seat actually got — the same target PPO's value head learns (the team's final reward, minus the
``shaping`` potential of the position: see ``agents.learners.ppo.gae_by_seat``), so PPO starts from a
critic that already knows what a position is worth and does not unlearn the policy while the
critic catches up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from shengji_env.core.observe import layout
from shengji_env.rules import seats
from shengji_env.vector import VecEnv

from ..base import Policy
from ..config import option
from .base import Learner, option_agent
from .nets import MASKED_LOGIT, masked_distribution
from .ppo import potential
from .rollout import play_hands

__all__ = ["Demonstrations", "ImitationLearner", "collect_demonstrations", "imitation_update",
           "teacher_targets"]


@dataclass
class Demonstrations:
    """M labelled decisions: ``obs`` float32[M, N]; ``mask`` bool[M, A]; ``actions`` int64[M]
    (the teacher's action); ``targets`` bool[M, A] (every action that makes the teacher's play,
    ``actions`` included); ``returns`` float32[M] (value target)."""

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    targets: np.ndarray
    returns: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.size)


def collect_demonstrations(venv: VecEnv, teacher: Policy, net: nn.Module, *, seed: int,
                           update: int, hands_per_env: int, student_prob: float,
                           np_rng: np.random.Generator, gen: torch.Generator,
                           shaping: float = 0.0) -> tuple[Demonstrations, dict]:
    """Play ``hands_per_env`` hands in every game of ``venv`` with the teacher (and, in a
    ``student_prob`` share of (game, hand)s, the student ``net`` running one team); label every
    decision with the teacher's play (``teacher_targets``). Returns the demonstrations and
    statistics."""
    B, k = venv.num_envs, hands_per_env
    at = layout(venv.cfg)
    student_hand = np_rng.random((B, k)) < student_prob
    student_team = np_rng.integers(0, 2, size=(B, k))
    counts = {"agree": 0, "played": 0}  # student decisions that make the teacher's play

    def act(obs, mask, to_act, active, h, step):
        rows = np.flatnonzero(active)
        o, m = obs[rows], mask[rows]  # copies: the VecEnv overwrites its buffers
        labels, targets = teacher_targets(teacher, o, m, np_rng)
        actions = mask.argmax(1).astype(np.int64)  # finished games: any legal action
        actions[rows] = labels
        student = np.flatnonzero(student_hand[rows, h[rows]]
                                 & (seats.team(to_act[rows]) == student_team[rows, h[rows]]))
        if student.size:
            with torch.no_grad():
                logits, _ = net(torch.from_numpy(o[student]))
                dist = masked_distribution(logits, torch.from_numpy(m[student]))
                chosen = torch.multinomial(dist.probs, 1, generator=gen).squeeze(1).numpy()
            actions[rows[student]] = chosen
            counts["agree"] += int(targets[student, chosen].sum())
            counts["played"] += student.size
        return actions, rows, {"obs": o, "mask": m, "actions": labels, "targets": targets}

    chains = play_hands(venv, seed=seed, update=update, hands_per_env=k, act=act)
    cat = chains.data
    returns = chains.final_reward_of_rows()
    if shaping:  # the value PPO learns is the shaped return: R − Φ(position)
        returns = returns - shaping * potential(cat["obs"], at)
    final_rewards = chains.final_rewards
    agree, played_by_student = counts["agree"], counts["played"]
    demos = Demonstrations(cat["obs"], cat["mask"], cat["actions"].astype(np.int64),
                           cat["targets"], returns.astype(np.float32))
    student_reward = np.take_along_axis(final_rewards, student_team[..., None], axis=2)[..., 0]
    stats = {
        "hands": B * k, "decisions": len(demos),
        "student_fraction": float(student_hand.mean()),
        "student_agreement": agree / played_by_student if played_by_student else None,
        "win_rate_vs_teacher": (float((student_reward[student_hand] > 0).mean())
                                if student_hand.any() else None),
    }
    return demos, stats


def teacher_targets(teacher: Policy, obs: np.ndarray, mask: np.ndarray,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The teacher's actions int64[b] and target sets bool[b, A] for ``obs`` / ``mask``: its
    ``act_with_options`` if it has one, else the one action it plays."""
    if hasattr(teacher, "act_with_options"):
        return teacher.act_with_options(obs, mask)
    actions = teacher.act_batch(obs, mask, rng)
    targets = np.zeros(mask.shape, dtype=bool)
    targets[np.arange(len(actions)), actions] = True
    return actions, targets


def target_log_prob(logp: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``float[B]`` — log π of the target set per row (``logp`` normalised log-probabilities,
    ``targets`` bool[B, A]: every action that makes the teacher's play)."""
    return torch.logsumexp(logp.masked_fill(~targets, MASKED_LOGIT), dim=1)


def choice_hits(logp: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``bool[C]`` — does the argmax make the teacher's play, over the C rows with more than
    one legal action (forced moves would flatter the accuracy)."""
    hit = targets.gather(1, logp.argmax(1, keepdim=True))[:, 0]
    return hit[mask.sum(1) > 1]


def imitation_update(net: nn.Module, optimizer: torch.optim.Optimizer, demos: Demonstrations, *,
                     epochs: int, minibatch_size: int, vf_coef: float, max_grad_norm: float,
                     np_rng: np.random.Generator) -> dict:
    """``epochs`` passes of cross-entropy (teacher's plays) + value regression over ``demos``;
    returns the last epoch's mean ``imitation_loss``, ``accuracy`` (the argmax makes the
    teacher's play, over the decisions with more than one legal action) and ``value_loss``."""
    device = next(net.parameters()).device  # learning may run on a GPU; batches come from CPU
    obs, mask = torch.from_numpy(demos.obs).to(device), torch.from_numpy(demos.mask).to(device)
    targets = torch.from_numpy(demos.targets).to(device)
    ret = torch.from_numpy(demos.returns).to(device)
    M = len(demos)
    chunks = max(1, round(M / minibatch_size))
    for _ in range(epochs):
        log = {"imitation_loss": [], "accuracy": [], "value_loss": []}
        for idx in np.array_split(np_rng.permutation(M), chunks):
            mb = torch.from_numpy(idx).to(device)
            logits, value = net(obs[mb])
            dist = masked_distribution(logits, mask[mb])
            logp = dist.logits  # normalised log-probabilities
            ce = -target_log_prob(logp, targets[mb]).mean()
            v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
            loss = ce + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                hit = choice_hits(logp, targets[mb], mask[mb])
            log["imitation_loss"].append(ce.item())
            if hit.numel():
                log["accuracy"].append(hit.float().mean().item())
            log["value_loss"].append(v_loss.item())
    return {k: float(np.mean(v)) if v else float("nan") for k, v in log.items()}


@dataclass
class ImitationOptions:
    learning_rate: float = option(1.0e-3, "Adam step size during imitation", minimum=0,
                                  exclusive_min=True)
    epochs: int = option(2, "passes over each update's fresh demonstrations", minimum=1)
    minibatch_size: int = option(1024, "decisions per gradient step", minimum=1)
    student_prob: float = option(0.5, "share of hands in which the network runs one team (its "
                                 "states are labelled by the teacher too: DAgger); ramps up "
                                 "linearly from 0 over the stage", minimum=0, maximum=1)
    teacher: str = option("heuristic", "agent spec of the teacher (agents.specs)")
    shaping: float = option(0.0, "potential-based shaping of the value target (as PPO's)",
                            minimum=0)
    vf_coef: float = option(0.5, "value loss coefficient", minimum=0)
    max_grad_norm: float = option(0.5, "gradient norm clipping", minimum=0, exclusive_min=True)


class ImitationLearner(Learner):
    """Behaviour cloning of a teacher with DAgger (module docstring): a warm start."""

    name = "imitation"
    Options = ImitationOptions

    def __init__(self, options: ImitationOptions, ctx):
        super().__init__(options, ctx)
        self.teacher = option_agent(options, "teacher", ctx.rules)

    @classmethod
    def check_runnable(cls, options: ImitationOptions, rules) -> None:
        """Build the teacher for ``rules`` (called before a run folder is made: a bad spec is a
        config error)."""
        option_agent(options, "teacher", rules)

    def collect(self, update: int):
        o, c = self.options, self.ctx
        length = c.stage_updates or (c.total_updates - c.stage_start + 1)
        student_prob = o.student_prob * (update - c.stage_start) / length
        return collect_demonstrations(c.venv, self.teacher, c.net, seed=c.seed, update=update,
                                      hands_per_env=c.hands_per_env, student_prob=student_prob,
                                      np_rng=c.np_rng, gen=c.gen, shaping=o.shaping)

    def update(self, batch: Demonstrations, update: int) -> dict:
        o, c = self.options, self.ctx
        return imitation_update(c.learn_net, c.optimizer, batch, epochs=o.epochs,
                                minibatch_size=o.minibatch_size, vf_coef=o.vf_coef,
                                max_grad_norm=o.max_grad_norm, np_rng=c.np_rng)

    def log(self, writer, stats: dict, losses: dict, global_step: int) -> None:
        super().log(writer, stats, losses, global_step)
        writer.add_scalar("imitation/student_fraction", stats["student_fraction"], global_step)
        for key in ("student_agreement", "win_rate_vs_teacher"):
            if stats[key] is not None:
                writer.add_scalar(f"imitation/{key}", stats[key], global_step)

    def progress(self, stats: dict, losses: dict) -> dict:
        return {"acc": f"{losses['accuracy']:.3f}"}
