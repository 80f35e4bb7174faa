"""PPO self-play: the learner, collection of whole hands, GAE over each seat's own decisions.

**Collection** (``collect_hands``, on the shared rollout ``agents.learners.rollout``). All four
seats share the network (self-play), except the team run by an opponent in the hands drawn for
one — an opponent-pool member (``agents.learners.pool``) or, if asked, a fixed sparring partner
such as the heuristic: those decisions are played but not recorded. With a ``declare_teacher``
(e.g. the heuristic) the learner's declarations are the teacher's: they are recorded, and the
update learns them by behaviour cloning instead of the clipped surrogate (``ppo_update``'s
``imitate``), so the network declares as the teacher does while PPO trains the rest of its play.

**Credit** (``gae_by_seat``). Each (game, hand, seat) is one chain of decisions. Rewards come at
the end of the hand (the seat's team reward, DESIGN.md §4), so the chain's last decision gets the
reward and bootstraps from nothing; the others get 0 and bootstrap from the value of the same
seat's next decision. GAE(γ, λ) runs backwards along each chain; returns = advantages + values.
Optional potential-based shaping (``potential``) credits the points of each trick as they are
won without changing any chain's return.

**Update** (``ppo_update``): clipped surrogate, value loss (optionally clipped), entropy bonus,
advantages normalised per minibatch, gradient-norm clipping, Adam — CleanRL's ``ppo.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from shengji_env.core.observe import layout
from shengji_env.rules import seats
from shengji_env.rules.actions import Phase
from shengji_env.vector import VecEnv

from ..base import Policy
from ..config import option
from .base import Learner, option_agent
from .critic import PerfectInfoCritic, hidden_cards
from .nets import masked_distribution
from .pool import OpponentPool
from .rollout import play_hands

__all__ = ["Batch", "PPOLearner", "collect_hands", "gae_by_seat", "potential", "ppo_update"]

SELF, POOL, BASELINE = 0, 1, 2  #: who runs the other team in a hand


@dataclass
class Batch:
    """M recorded decisions of the learner.

    ``obs``: float32[M, N]; ``mask``: bool[M, A]; ``actions``: int64[M]; ``logp``: float32[M]
    log-probability of the action when played; ``values``: float32[M] value estimate when played;
    ``advantages`` / ``returns``: float32[M] from ``gae_by_seat``; ``hidden``: float32[M, 216]
    the cards the seat could not see (``critic.hidden_cards``), recorded only for a
    perfect-information critic (else None) and given to nothing but the critic; ``imitate``:
    bool[M] the decisions a ``declare_teacher`` made (learned by behaviour cloning), recorded
    only with one (else None).
    """

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    logp: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    hidden: np.ndarray | None = None
    imitate: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.size)


def _sample(net: nn.Module, obs: np.ndarray, mask: np.ndarray, gen: torch.Generator):
    """Sample actions for ``obs`` float32[b, N] / ``mask`` bool[b, A] → (actions int64[b],
    logp float32[b], values float32[b])."""
    with torch.no_grad():
        logits, values = net(torch.from_numpy(obs))
        dist = masked_distribution(logits, torch.from_numpy(mask))
        actions = torch.multinomial(dist.probs, 1, generator=gen).squeeze(1)
        logp = dist.log_prob(actions)
    return actions.numpy(), logp.numpy(), values.numpy()


def _log_prob(net: nn.Module, obs: np.ndarray, mask: np.ndarray,
              actions: np.ndarray) -> np.ndarray:
    """float32[b] — the network's log-probability of ``actions`` int64[b] (played by another
    policy) at ``obs`` / ``mask``."""
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs))
        dist = masked_distribution(logits, torch.from_numpy(mask))
        return dist.log_prob(torch.from_numpy(np.asarray(actions, dtype=np.int64))).numpy()


def collect_hands(venv: VecEnv, net: nn.Module, *, seed: int, update: int, hands_per_env: int,
                  gamma: float, gae_lambda: float, np_rng: np.random.Generator,
                  gen: torch.Generator, pool: OpponentPool | None = None,
                  pool_net: nn.Module | None = None, pool_prob: float = 0.0,
                  baseline: Policy | None = None, baseline_prob: float = 0.0,
                  shaping: float = 0.0, critic: nn.Module | None = None,
                  declare_teacher: Policy | None = None) -> tuple[Batch, dict]:
    """Play ``hands_per_env`` hands in every game of ``venv``; returns the learner's ``Batch`` and
    statistics of the finished hands (see the module docstring; ``shaping``: ``potential``).

    A hand is played against the pool member with probability ``pool_prob``, against
    ``baseline`` (a fixed ``Policy``, e.g. the heuristic, as a sparring partner) with
    probability ``baseline_prob``, else in pure self-play; the opponent runs one team.
    ``critic``: a ``PerfectInfoCritic`` whose values (from the observation and the hidden
    cards) replace the network's own value head for GAE. ``declare_teacher``: a ``Policy`` that
    makes the learner's DECLARE-phase decisions (recorded with ``imitate`` set and the
    network's log-probability of the teacher's action)."""
    B, k = venv.num_envs, hands_per_env
    at = layout(venv.cfg)
    # per (game, hand): who runs the other team (SELF, POOL, BASELINE), and which team it is
    use_pool = pool is not None and len(pool) > 0 and pool_prob > 0
    member = -1
    if use_pool:
        member = pool.sample(np_rng)
        pool_net.load_state_dict(pool.members[member])
    draw = np_rng.random((B, k))
    opponent = np.full((B, k), SELF, dtype=np.int8)
    if baseline is not None:
        opponent[draw < baseline_prob] = BASELINE
    if use_pool:
        opponent[(draw >= baseline_prob) & (draw < baseline_prob + pool_prob)] = POOL
    pool_team = np_rng.integers(0, 2, size=(B, k))
    ar = np.arange(B)
    declaring = at["phase"].start + int(Phase.DECLARE)  # the phase one-hot's DECLARE entry
    forward_s = [0.0]  # network forward passes while playing (the rest of act is bookkeeping)

    def act(obs, mask, to_act, active, h, step):
        t0 = time.perf_counter()
        opp = opponent[ar, h]
        theirs = active & (opp != SELF) & (seats.team(to_act) == pool_team[ar, h])
        actions = mask.argmax(1).astype(np.int64)  # finished games: any legal action
        rows = np.flatnonzero(active & ~theirs)
        data = {}
        if rows.size:
            o, m = obs[rows], mask[rows]  # fancy indexing copies: the buffers get overwritten
            a, lp, v = _sample(net, o, m, gen)
            data = {"obs": o, "mask": m, "actions": a, "logp": lp, "values": v,
                    "potential": shaping * potential(o, at)}
            if declare_teacher is not None:
                imitate = o[:, declaring] == 1
                taught = np.flatnonzero(imitate)
                if taught.size:
                    t1 = time.perf_counter()
                    a[taught] = declare_teacher.act_batch(o[taught], m[taught], np_rng)
                    t0 += time.perf_counter() - t1  # the teacher is not our network
                    lp[taught] = _log_prob(net, o[taught], m[taught], a[taught])
                data["imitate"] = imitate
            actions[rows] = a
            if critic is not None:  # training only: the critic sees every hand
                hid = hidden_cards(venv.state, rows, to_act[rows], venv.cfg.decks)
                dev = next(critic.parameters()).device  # the learning device
                with torch.no_grad():
                    data["values"] = critic(torch.from_numpy(o).to(dev),
                                            torch.from_numpy(hid).to(dev)).cpu().numpy()
                data["hidden"] = hid
        prow = np.flatnonzero(theirs & (opp == POOL))
        if prow.size:
            actions[prow] = _sample(pool_net, obs[prow], mask[prow], gen)[0]
        brow = np.flatnonzero(theirs & (opp == BASELINE))
        if brow.size:
            t1 = time.perf_counter()
            actions[brow] = baseline.act_batch(obs[brow], mask[brow], np_rng)
            t0 += time.perf_counter() - t1  # the sparring partner is not our network
        forward_s[0] += time.perf_counter() - t0
        return actions, rows, data

    chains = play_hands(venv, seed=seed, update=update, hands_per_env=k, act=act)
    d = chains.data
    adv, ret = gae_by_seat(chains.env, chains.hand, chains.seat, chains.step, d["values"],
                           chains.final_rewards, gamma, gae_lambda, d["potential"])
    batch = Batch(d["obs"], d["mask"], d["actions"].astype(np.int64),
                  d["logp"].astype(np.float32), d["values"].astype(np.float32), adv, ret,
                  d.get("hidden"), d.get("imitate"))
    final_rewards, lengths, attacker_points = (chains.final_rewards, chains.lengths,
                                               chains.attacker_points)
    learner_team = 1 - pool_team
    lt_reward = np.take_along_axis(final_rewards, learner_team[..., None], axis=2)[..., 0]
    vs_pool, vs_baseline = opponent == POOL, opponent == BASELINE
    stats = {
        "hands": B * k, "decisions": chains.decisions, "steps": chains.steps,
        "pool_member": member,
        "pool_fraction": float(vs_pool.mean()), "baseline_fraction": float(vs_baseline.mean()),
        "return_vs_pool": float(lt_reward[vs_pool].mean()) if vs_pool.any() else None,
        "win_rate_vs_pool": float((lt_reward[vs_pool] > 0).mean()) if vs_pool.any() else None,
        "win_rate_vs_baseline": (float((lt_reward[vs_baseline] > 0).mean())
                                 if vs_baseline.any() else None),
        "abs_return": float(np.abs(final_rewards[..., 0]).mean()),
        "length": float(lengths.mean()), "attacker_points": float(attacker_points.mean()),
        "takeover_rate": float((attacker_points >= 2 * venv.cfg.level_step).mean()),  # RULES §10.3
        "engine_s": chains.engine_s, "act_s": chains.act_s, "forward_s": forward_s[0],
    }
    return batch, stats


def potential(obs: np.ndarray, at: dict[str, slice]) -> np.ndarray:
    """``float32[b]`` — the attackers' points so far as a fraction of all points, counted for
    the observer's team (+ attacking, − dealer side); read by name (``at``: the observation
    layout, ``core.observe.layout``) from observations ``obs`` float32[b, N]."""
    points, dealer_side = obs[:, at["attacker_points"].start], obs[:, at["dealer_side"].start]
    return (points * (1 - 2 * dealer_side)).astype(np.float32)


def gae_by_seat(env, hand, seat, step, values, final_rewards, gamma: float, lam: float,
                potential=None):
    """GAE along each (game, hand, seat) chain of decisions (module docstring).

    ``env``, ``hand``, ``seat``, ``step``: int[M] identify each decision and its order;
    ``values``: float32[M]; ``final_rewards``: float32[B, hands, 4] per seat at the hand's end.
    ``potential``: float32[M] or None — potential-based shaping (Ng et al. 1999): each decision
    also earns ``γ·Φ(next decision of the seat) − Φ(this one)``, with Φ = 0 after the hand, so a
    chain's return is unchanged while points won in a trick are credited right away.
    Returns ``(advantages, returns)``, float32[M] each, in the input order.
    """
    M = values.size
    order = np.lexsort((step, seat, hand, env))
    e, hd, s = env[order], hand[order], seat[order]
    v = values[order].astype(np.float64)
    last = np.ones(M, dtype=bool)  # last decision of its chain
    last[:-1] = (e[1:] != e[:-1]) | (hd[1:] != hd[:-1]) | (s[1:] != s[:-1])
    next_v = np.zeros(M)
    next_v[:-1] = v[1:]
    next_v[last] = 0.0
    r = np.where(last, final_rewards[e, hd, s], 0.0)
    if potential is not None:
        phi = potential[order].astype(np.float64)
        next_phi = np.zeros(M)
        next_phi[:-1] = phi[1:]
        next_phi[last] = 0.0
        r = r + gamma * next_phi - phi
    delta = r + gamma * next_v - v
    # position counted from the chain's end: 0 for the last decision
    chain_id = np.concatenate([[0], np.cumsum(last[:-1])])
    chain_end = np.flatnonzero(last)[chain_id]
    from_end = chain_end - np.arange(M)
    adv = np.zeros(M)
    for p in range(int(from_end.max(initial=0)) + 1):
        idx = np.flatnonzero(from_end == p)
        adv[idx] = delta[idx] + (gamma * lam * adv[idx + 1] if p else 0.0)
    out_adv = np.empty(M, dtype=np.float32)
    out_adv[order] = adv
    out_ret = (out_adv + values).astype(np.float32)
    return out_adv, out_ret


def ppo_update(net: nn.Module, optimizer: torch.optim.Optimizer, batch: Batch, *,
               epochs: int, minibatch_size: int, clip_coef: float, ent_coef: float,
               vf_coef: float, max_grad_norm: float, norm_adv: bool = True,
               clip_vloss: bool = False, target_kl: float = 0.0,
               np_rng: np.random.Generator, critic: nn.Module | None = None,
               critic_optimizer: torch.optim.Optimizer | None = None,
               imitate_coef: float = 1.0) -> dict:
    """PPO epochs over ``batch``; returns the last epoch's mean losses and diagnostics. With a
    ``critic`` (and its optimizer) the value loss trains the critic on ``batch.hidden``; the
    policy network gets the observations only. Decisions with ``batch.imitate`` set were made
    by a teacher: instead of the surrogate they add ``imitate_coef`` × their mean −log π(action)
    (behaviour cloning; ``imitation_loss``); their values are trained as the others'."""
    device = next(net.parameters()).device  # learning may run on a GPU; batches come from CPU

    def tensor(x):
        return torch.from_numpy(x).to(device)

    obs, mask, actions = tensor(batch.obs), tensor(batch.mask), tensor(batch.actions)
    old_logp, old_v = tensor(batch.logp), tensor(batch.values)
    adv_all, ret = tensor(batch.advantages), tensor(batch.returns)
    hidden = tensor(batch.hidden) if critic is not None else None
    imitate = tensor(batch.imitate) if batch.imitate is not None else None
    M = len(batch)
    chunks = max(1, round(M / minibatch_size))
    for _ in range(epochs):
        log = {"policy_loss": [], "value_loss": [], "entropy": [], "old_approx_kl": [],
               "approx_kl": [], "clipfrac": []}
        if imitate is not None:
            log["imitation_loss"] = []
        for idx in np.array_split(np_rng.permutation(M), chunks):
            mb = torch.from_numpy(idx).to(device)
            logits, value = net(obs[mb])
            if critic is not None:
                value = critic(obs[mb], hidden[mb])
            dist = masked_distribution(logits, mask[mb])
            logp = dist.log_prob(actions[mb])
            entropy = dist.entropy().mean()
            logratio = logp - old_logp[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                log["old_approx_kl"].append(float((-logratio).mean()))
                log["approx_kl"].append(float(((ratio - 1) - logratio).mean()))
                log["clipfrac"].append(float(((ratio - 1).abs() > clip_coef).float().mean()))
            adv = adv_all[mb]
            if norm_adv and adv.numel() > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            surrogate = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef))
            bc_loss = None
            if imitate is not None:
                taught = imitate[mb]
                own = ~taught
                pg_loss = surrogate[own].mean() if own.any() else surrogate.sum() * 0
                if taught.any():
                    bc_loss = -logp[taught].mean()
            else:
                pg_loss = surrogate.mean()
            if clip_vloss:
                v_clipped = old_v[mb] + (value - old_v[mb]).clamp(-clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((value - ret[mb]) ** 2, (v_clipped - ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
            loss = pg_loss - ent_coef * entropy + vf_coef * v_loss
            if bc_loss is not None:
                loss = loss + imitate_coef * bc_loss
                log["imitation_loss"].append(bc_loss.item())
            optimizer.zero_grad()
            if critic is not None:
                critic_optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            if critic is not None:
                nn.utils.clip_grad_norm_(critic.parameters(), max_grad_norm)
                critic_optimizer.step()
            log["policy_loss"].append(pg_loss.item())
            log["value_loss"].append(v_loss.item())
            log["entropy"].append(entropy.item())
        if target_kl > 0 and np.mean(log["approx_kl"]) > target_kl:
            break
    out = {k: float(np.mean(v)) if v else float("nan") for k, v in log.items()}
    var = float(batch.returns.var())
    out["explained_variance"] = (float(1 - (batch.returns - batch.values).var() / var)
                                 if var > 0 else float("nan"))
    return out


@dataclass
class PPOOptions:
    learning_rate: float = option(3.0e-4, "Adam step size", minimum=0, exclusive_min=True)
    anneal_lr: bool = option(False, "decay the learning rate linearly to 0 over run.total_updates")
    gamma: float = option(1.0, "discount per decision of the same seat (rewards come only at the "
                          "hand's end)", minimum=0, maximum=1, exclusive_min=True)
    gae_lambda: float = option(0.95, "GAE λ along each seat's own decisions", minimum=0, maximum=1)
    shaping: float = option(0.0, "potential-based reward shaping: weight of the attackers' points "
                            "(fraction of all points, signed for the seat's team) credited as they "
                            "are won; 0 = off; the return is unchanged", minimum=0)
    update_epochs: int = option(4, "passes over each update's decisions", minimum=1)
    minibatch_size: int = option(4096, "decisions per gradient step", minimum=1)
    clip_coef: float = option(0.2, "PPO ratio clipping", minimum=0, exclusive_min=True)
    clip_vloss: bool = option(False, "clip the value loss like the policy ratio")
    ent_coef: float = option(0.01, "entropy bonus coefficient", minimum=0)
    vf_coef: float = option(0.5, "value loss coefficient", minimum=0)
    max_grad_norm: float = option(0.5, "gradient norm clipping", minimum=0, exclusive_min=True)
    norm_adv: bool = option(True, "normalise advantages per minibatch")
    target_kl: float = option(0.0, "stop an update's epochs early when approx KL exceeds this; "
                              "0 = never", minimum=0)
    pool_prob: float = option(0.2, "probability that a hand is played against a past snapshot "
                              "(one team) instead of self", minimum=0, maximum=1)
    pool_size: int = option(8, "snapshots kept in the opponent pool (newest)", minimum=0)
    pool_every: int = option(10, "updates between snapshots added to the pool (counted over the "
                             "whole run, warm start included)", minimum=1)
    sparring: str = option("heuristic", "agent spec of the sparring partner (agents.specs)")
    sparring_prob: float = option(0.0, "probability that a hand is played against the sparring "
                                  "partner (one team; not trained on); 0 = off", minimum=0,
                                  maximum=1)
    critic: str = option("shared", "value estimate for GAE: shared (the network's value head) or "
                         "perfect_info (a separate critic that also sees the hidden hands and "
                         "the kitty, in training only; agents.learners.critic)",
                         choices=("shared", "perfect_info"))
    critic_hidden: int = option(256, "width of the perfect-information critic", minimum=1)
    declare_teacher: str = option("", "agent spec (e.g. heuristic) that makes the learner's "
                                  "declarations while it collects; the network learns them by "
                                  "behaviour cloning (declare_coef) instead of the PPO "
                                  "surrogate; empty: the network declares by itself")
    declare_coef: float = option(1.0, "weight of the behaviour-cloning loss on the "
                                 "declare_teacher's declarations", minimum=0)

    def check(self, where: str) -> None:
        from ..config import ConfigError

        if self.pool_prob + self.sparring_prob > 1:
            raise ConfigError(f"learner.ppo: pool_prob + sparring_prob = "
                              f"{self.pool_prob + self.sparring_prob} ({where}): the two kinds of "
                              "opponent hands cannot exceed all hands (1)")


class PPOLearner(Learner):
    """Self-play PPO with an opponent pool and an optional sparring partner (module docstring)."""

    name = "ppo"
    Options = PPOOptions
    supports_workers = True  # collection needs only the weights and the pool (state_dict)

    def __init__(self, options: PPOOptions, ctx):
        super().__init__(options, ctx)
        self.pool = OpponentPool(options.pool_size)
        self.pool_net = ctx.make_net()
        self.sparring, self.declare_teacher = self._agents(options, ctx.rules)
        self.critic = self.critic_optimizer = None
        if options.critic == "perfect_info":
            self.critic = PerfectInfoCritic(ctx.net.obs_size, options.critic_hidden).to(ctx.device)
            self.critic_optimizer = torch.optim.Adam(self.critic.parameters(),
                                                     lr=options.learning_rate, eps=1e-5)

    @staticmethod
    def _agents(options: PPOOptions, rules) -> tuple[Policy | None, Policy | None]:
        """The sparring partner (when ``sparring_prob`` > 0) and the declare teacher (when
        named), built for ``rules``; None for each that is not used."""
        sparring = option_agent(options, "sparring", rules) if options.sparring_prob > 0 else None
        teacher = (option_agent(options, "declare_teacher", rules) if options.declare_teacher
                   else None)
        return sparring, teacher

    @classmethod
    def check_runnable(cls, options: PPOOptions, rules) -> None:
        """Build the sparring partner and the declare teacher for ``rules`` (called before a run
        folder is made: a bad spec is a config error)."""
        cls._agents(options, rules)

    def learning_rate(self, update: int) -> float:
        o = self.options
        return o.learning_rate * (1 - (update - 1) / self.ctx.total_updates if o.anneal_lr else 1)

    def collect(self, update: int):
        o, c = self.options, self.ctx
        return collect_hands(c.venv, c.net, seed=c.seed, update=update,
                             hands_per_env=c.hands_per_env, gamma=o.gamma,
                             gae_lambda=o.gae_lambda, np_rng=c.np_rng, gen=c.gen, pool=self.pool,
                             pool_net=self.pool_net, pool_prob=o.pool_prob, shaping=o.shaping,
                             baseline=self.sparring, baseline_prob=o.sparring_prob,
                             critic=self.critic, declare_teacher=self.declare_teacher)

    def update(self, batch: Batch, update: int) -> dict:
        o, c = self.options, self.ctx
        if self.critic_optimizer is not None:  # the critic follows the policy's step size
            for group in self.critic_optimizer.param_groups:
                group["lr"] = self.learning_rate(update)
        return ppo_update(c.learn_net, c.optimizer, batch, epochs=o.update_epochs,
                          minibatch_size=o.minibatch_size, clip_coef=o.clip_coef,
                          ent_coef=o.ent_coef, vf_coef=o.vf_coef, max_grad_norm=o.max_grad_norm,
                          norm_adv=o.norm_adv, clip_vloss=o.clip_vloss, target_kl=o.target_kl,
                          np_rng=c.np_rng, critic=self.critic,
                          critic_optimizer=self.critic_optimizer, imitate_coef=o.declare_coef)

    def merge(self, results: list) -> tuple[Batch, dict]:
        """Workers' ``(Batch, stats)`` as one: decisions concatenated (each keeps the behaviour
        log-probability it was played with, which the PPO ratio corrects for), counts summed,
        rates averaged over the workers that had them."""
        batches = [b for b, _ in results]
        batch = Batch(*(None if getattr(batches[0], f) is None
                        else np.concatenate([getattr(b, f) for b in batches])
                        for f in Batch.__dataclass_fields__))
        stats = {}
        for key in results[0][1]:
            values = [s[key] for _, s in results if s[key] is not None]
            if key in ("hands", "decisions", "steps", "engine_s", "act_s", "forward_s"):
                stats[key] = sum(values)
            elif key == "pool_member":
                stats[key] = values[0]
            else:
                stats[key] = float(np.mean(values)) if values else None
        return batch, stats

    def log(self, writer, stats: dict, losses: dict, global_step: int) -> None:
        super().log(writer, stats, losses, global_step)
        if stats["return_vs_pool"] is not None:
            writer.add_scalar("charts/episodic_return", stats["return_vs_pool"], global_step)
            writer.add_scalar("selfplay/win_rate_vs_pool", stats["win_rate_vs_pool"], global_step)
        if stats["win_rate_vs_baseline"] is not None:
            writer.add_scalar("selfplay/win_rate_vs_sparring", stats["win_rate_vs_baseline"],
                              global_step)
            writer.add_scalar("selfplay/sparring_fraction", stats["baseline_fraction"],
                              global_step)
        self.log_hands(writer, stats, global_step)
        writer.add_scalar("selfplay/pool_fraction", stats["pool_fraction"], global_step)
        writer.add_scalar("selfplay/pool_size", len(self.pool), global_step)

    def after_update(self, update: int) -> None:
        """A snapshot of the shared network every ``pool_every`` updates of the run."""
        if self.options.pool_prob > 0 and update % self.options.pool_every == 0:
            self.pool.add(self.ctx.net, update)

    def progress(self, stats: dict, losses: dict) -> dict:
        return {"len": f"{stats['length']:.0f}"}

    def state_dict(self) -> dict:
        state = {"pool": self.pool.state_dict()}
        if self.critic is not None:
            state["critic"] = self.critic.state_dict()
            state["critic_optimizer"] = self.critic_optimizer.state_dict()
        return state

    def load_state_dict(self, state: dict) -> None:
        self.pool.load_state_dict(state["pool"])
        if self.critic is not None and "critic" in state:
            self.critic.load_state_dict(state["critic"])
            self.critic_optimizer.load_state_dict(state["critic_optimizer"])
