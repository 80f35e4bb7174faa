"""Deep Monte-Carlo (DouZero's recipe): Q(observation, whole play), fit to Monte-Carlo returns.

**Acting** (``collect_plays``, on the shared rollout ``agents.learners.rollout``). All four seats
share the network. At the first card of a play the seat scores every candidate whole play
(``agents.plays.seat_plays``: the units of its hand and its safe throws when it leads, its legal
follows otherwise) by the Q head (``agents.learners.play_q``), takes the best — or, with
probability ``epsilon``, a uniformly random candidate — and emits the play's cards on the
following steps; only the choosing step is recorded, so each seat's chain is one entry per play.
Every other decision (declarations, the eight bury cards, naming trump or the friend card,
choosing a failed throw's unit) is scored the same way, each legal action id alone: one Q
decides everything, so the agent is learned end to end (no heuristic sub-decision).

**Targets** (``mc_returns``). Rewards come at the hand's end; the target of every recorded
decision is its seat's Monte-Carlo return along its chain, ``γ^(plays after it) · reward`` —
GAE with λ = 1 and no value to bootstrap from (``ppo.gae_by_seat``: one credit code for both).

**Update** (``dmc_update``): mean squared error of Q at the chosen actions, on this update's
decisions only, in shuffled minibatches, gradient-norm clipping, Adam. Like DouZero's actors,
no replay buffer: the data are on-policy (epsilon-greedy) and a batch of a few hundred hands is
already tens of thousands of plays; old data would only lag behind the policy.

**Network.** The trainer's ``PolicyValueNet`` with a play head added (``add_play_head``): Q
reads the shared trunk; the head's weights join the optimizer as a second parameter group and
the checkpoint (format ``shengji-rl/dmc``; ``net`` records ``play_head``), so the checkpoint or
the run folder is an agent spec that plays the greedy Q policy (``PolicyValueNet.forward``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from shengji_env.core.observe import layout

from ..config import option
from .base import Learner
from .play_q import PLAY, decision_candidates, q_values
from .ppo import gae_by_seat
from .rollout import play_hands

__all__ = ["DMCLearner", "DMCBatch", "collect_plays", "dmc_update", "mc_returns"]

END = 55


@dataclass
class DMCBatch:
    """M recorded decisions: ``obs`` float32[M, N] (when chosen), ``feats`` float32[M, F] (the
    chosen action's features), ``returns`` float32[M] (Monte-Carlo targets), ``is_play``
    bool[M] (a whole play, not a single action)."""

    obs: np.ndarray
    feats: np.ndarray
    returns: np.ndarray
    is_play: np.ndarray

    def __len__(self) -> int:
        return int(self.returns.size)


def mc_returns(env, hand, seat, step, final_rewards, gamma: float) -> np.ndarray:
    """``float32[M]`` — Monte-Carlo return of each recorded decision (ids int[M] as in
    ``rollout.Chains``; ``final_rewards`` float32[B, hands, 4]): its seat's reward at the hand's
    end, discounted by ``gamma`` per later decision of the same chain."""
    zeros = np.zeros(len(env), dtype=np.float32)
    return gae_by_seat(env, hand, seat, step, zeros, final_rewards, gamma, 1.0)[1]


def collect_plays(venv, net: nn.Module, *, seed: int, update: int, hands_per_env: int,
                  epsilon: float, gamma: float, cap: int, np_rng: np.random.Generator
                  ) -> tuple[DMCBatch, dict]:
    """Play ``hands_per_env`` hands in every game of ``venv`` with the epsilon-greedy Q policy of
    ``net`` (module docstring); returns the ``DMCBatch`` and statistics."""
    cfg = venv.cfg
    pending = np.zeros((venv.num_envs, 54), dtype=np.int64)  # the play each game's seat builds
    sel_at, phase_at = layout(cfg)["selection"], layout(cfg)["phase"]
    clock = {"forward_s": 0.0, "candidates_s": 0.0, "candidates": 0, "explored": 0}

    def act(obs, mask, to_act, active, h, step):
        actions = mask.argmax(1).astype(np.int64)  # finished games: any legal action
        live = np.flatnonzero(active)
        selection = obs[live, sel_at].round().astype(np.int64)
        # mid-play (the bury also fills the selection, one decision per card)
        building = (selection.sum(1) > 0) & (obs[live, phase_at].argmax(1) == PLAY)
        for g, sel in zip(live[building], selection[building]):
            rest = np.flatnonzero((pending[g] - sel > 0) & mask[g, :54])
            actions[g] = rest[0] if rest.size else END  # the chosen play's next card, or END
        rows = live[~building]
        if not rows.size:
            return actions, rows, {}
        o, m = obs[rows], mask[rows]  # copies: the buffers are overwritten by the next step
        t0 = time.perf_counter()
        feats, cands, is_play = decision_candidates(o, m, cfg, cap)
        t1 = time.perf_counter()
        qs = q_values(net, o, feats)
        clock["forward_s"] += time.perf_counter() - t1
        clock["candidates_s"] += t1 - t0
        explore = np_rng.random(len(rows)) < epsilon
        picks = np.empty(len(rows), dtype=np.int64)
        for i, q in enumerate(qs):
            picks[i] = np_rng.integers(len(q)) if explore[i] else int(q.argmax())
        clock["candidates"] += sum(len(q) for q in qs)
        clock["explored"] += int(explore.sum())
        chosen = np.stack([f[j] for f, j in zip(feats, picks)])
        for i, g in enumerate(rows):
            c = cands[i][picks[i]]
            if is_play[i]:
                pending[g] = c
                actions[g] = int(np.flatnonzero(c)[0])
            else:
                actions[g] = int(c)
        return actions, rows, {"obs": o, "feats": chosen, "is_play": is_play}

    chains = play_hands(venv, seed=seed, update=update, hands_per_env=hands_per_env, act=act)
    d = chains.data
    ret = mc_returns(chains.env, chains.hand, chains.seat, chains.step, chains.final_rewards,
                     gamma)
    batch = DMCBatch(d["obs"], d["feats"], ret, d["is_play"].astype(bool))
    M = max(len(batch), 1)
    stats = {"hands": int(chains.final_rewards.shape[0] * chains.final_rewards.shape[1]),
             "decisions": chains.decisions, "steps": chains.steps,
             "plays": int(batch.is_play.sum()), "recorded": len(batch),
             "candidates_per_decision": clock["candidates"] / M,
             "explored_fraction": clock["explored"] / M,
             "abs_return": float(np.abs(chains.final_rewards[..., 0]).mean()),
             "length": float(chains.lengths.mean()),
             "attacker_points": float(chains.attacker_points.mean()),
             "engine_s": chains.engine_s, "act_s": chains.act_s,
             "forward_s": clock["forward_s"], "candidates_s": clock["candidates_s"]}
    return batch, stats


def dmc_update(net: nn.Module, optimizer: torch.optim.Optimizer, batch: DMCBatch, *,
               epochs: int, minibatch_size: int, max_grad_norm: float,
               np_rng: np.random.Generator) -> dict:
    """Epochs of mean-squared-error steps of ``net``'s Q at the chosen actions towards the
    Monte-Carlo returns; returns the last epoch's mean loss and Q diagnostics."""
    device = next(net.parameters()).device

    def tensor(x):
        return torch.from_numpy(np.ascontiguousarray(x)).to(device)

    obs, feats, ret = tensor(batch.obs), tensor(batch.feats), tensor(batch.returns)
    M = len(batch)
    chunks = max(1, round(M / minibatch_size))
    for _ in range(epochs):
        losses, qs = [], []
        for idx in np.array_split(np_rng.permutation(M), chunks):
            mb = torch.from_numpy(idx).to(device)
            q = net.play(net.encode(obs[mb]), feats[mb])
            loss = ((q - ret[mb]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_([p for g in optimizer.param_groups for p in g["params"]],
                                     max_grad_norm)
            optimizer.step()
            losses.append(loss.item())
            qs.append(q.detach())
    q = torch.cat(qs).cpu().numpy() if qs else np.zeros(0)
    var = float(batch.returns.var())
    out = {"q_loss": float(np.mean(losses)), "q_mean": float(q.mean()) if q.size else 0.0}
    out["explained_variance"] = float("nan") if var <= 0 else \
        float(1 - np.mean(losses) / var)
    return out


@dataclass
class DMCOptions:
    learning_rate: float = option(1.0e-4, "Adam step size", minimum=0, exclusive_min=True)
    epsilon: float = option(0.05, "probability of a uniformly random candidate instead of the "
                            "Q-best (epsilon-greedy exploration)", minimum=0, maximum=1)
    gamma: float = option(1.0, "discount per later decision of the same seat",
                          minimum=0, maximum=1, exclusive_min=True)
    play_head: int = option(256, "width of the Q head over (trunk, action features)", minimum=1)
    follow_cap: int = option(64, "most follows scored per decision (agents.plays.follow_plays)",
                             minimum=1)
    epochs: int = option(1, "passes over each update's decisions", minimum=1)
    minibatch_size: int = option(2048, "decisions per gradient step", minimum=1)
    max_grad_norm: float = option(1.0, "gradient norm clipping", minimum=0, exclusive_min=True)


class DMCLearner(Learner):
    """Deep Monte-Carlo over whole plays (module docstring)."""

    name = "dmc"
    Options = DMCOptions
    only_stage = True  # its Q head takes over the network's forward, which others sample from

    def __init__(self, options: DMCOptions, ctx):
        super().__init__(options, ctx)
        self.prepare(options, ctx.learn_net, ctx.optimizer)
        if ctx.learn_net is not ctx.net:  # the rollouts' CPU copy: same weights
            ctx.net.add_play_head(options.play_head, options.follow_cap)
            ctx.net.play.load_state_dict(ctx.learn_net.play.state_dict())

    @classmethod
    def prepare(cls, options: DMCOptions, net, optimizer) -> None:
        """Add the Q head to ``net`` (on its device) and its parameters to ``optimizer`` as a
        second parameter group (the trainer sets every group's step size)."""
        if getattr(net, "play_head", 0):
            return
        device = next(net.parameters()).device
        net.add_play_head(options.play_head, options.follow_cap)
        net.play.to(device)
        optimizer.add_param_group({"params": list(net.play.parameters())})

    def collect(self, update: int):
        o, c = self.options, self.ctx
        return collect_plays(c.venv, c.net, seed=c.seed, update=update,
                             hands_per_env=c.hands_per_env, epsilon=o.epsilon, gamma=o.gamma,
                             cap=o.follow_cap, np_rng=c.np_rng)

    def update(self, batch: DMCBatch, update: int) -> dict:
        o, c = self.options, self.ctx
        return dmc_update(c.learn_net, c.optimizer, batch, epochs=o.epochs,
                          minibatch_size=o.minibatch_size, max_grad_norm=o.max_grad_norm,
                          np_rng=c.np_rng)

    def log(self, writer, stats: dict, losses: dict, global_step: int) -> None:
        super().log(writer, stats, losses, global_step)
        for key in ("plays", "candidates_per_decision", "explored_fraction"):
            writer.add_scalar(f"dmc/{key}", stats[key], global_step)
        self.log_hands(writer, stats, global_step)

    def progress(self, stats: dict, losses: dict) -> dict:
        return {"plays": stats["plays"], "q_loss": f"{losses['q_loss']:.3f}"}
