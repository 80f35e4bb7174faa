"""Batched rollouts: play the rest of many hands at once with a rollout policy.

One ``BatchState`` holds every (world, candidate) pair of a search. ``play_out`` first makes
each game's planned play (its candidate, one ``CARD`` per step, then ``END`` for a lead; the
mask is prefix-closed, so a legal play's cards are legal in any order), then lets the rollout
policy play every seat of every game to the end of the hand, all games in lockstep — one
observation batch, one mask batch and one policy call per step for the whole batch. Forced
decisions (a single legal action) are applied inside the engine's ``step``.

Rollout policies map ``(obs float32[B, N], mask bool[B, A]) -> actions int64[B]``:

* ``NetRollout``: a ``PolicyValueNet`` (the shipped one imitates ``HeuristicAgent``), greedy;
  it also gives masked log-probabilities, the prior that ranks candidate plays;
* ``PolicyRollout``: any ``Policy`` (``HeuristicAgent``: strong but one Python call per game
  and decision, ~100× slower; ``RandomAgent``: fast and weak);
* ``NearRollout``: one policy for the tricks near the decision, another after them (the
  search's ``exact_tricks``: ``HeuristicAgent`` answers in the decision's trick and the next).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from agents.base import BasePolicy
from agents.checkpoint import load_checkpoint, net_from_checkpoint
from agents.learners.nets import MASKED_LOGIT, canonical_tables
from shengji_env.core.observe import layout

__all__ = ["DEFAULT_WEIGHTS", "NearRollout", "NetRollout", "PolicyRollout", "default_weights",
           "load_rollout_net", "play_out"]

WEIGHTS = Path(__file__).resolve().parent / "weights"
#: the shipped rollout network of the default rules, 2 decks (configs/pimc_rollout.yaml; see
#: agents/search/README.md)
DEFAULT_WEIGHTS = WEIGHTS / "rollout.pt"
#: the shipped networks for each (deck count, partnership): the same recipe with ``--set
#: rules.decks=N`` (and ``--set rules.partnership=FIND_FRIEND``)
SHIPPED_WEIGHTS = {
    (1, "FIXED"): WEIGHTS / "rollout_1deck.pt", (2, "FIXED"): DEFAULT_WEIGHTS,
    (3, "FIXED"): WEIGHTS / "rollout_3decks.pt", (4, "FIXED"): WEIGHTS / "rollout_4decks.pt",
    (1, "FIND_FRIEND"): WEIGHTS / "rollout_ff_1deck.pt",
    (2, "FIND_FRIEND"): WEIGHTS / "rollout_ff.pt",
    (3, "FIND_FRIEND"): WEIGHTS / "rollout_ff_3decks.pt",
    (4, "FIND_FRIEND"): WEIGHTS / "rollout_ff_4decks.pt",
}


def default_weights(rules) -> Path:
    """The shipped rollout network for ``rules``' deck count and partnership
    (``SHIPPED_WEIGHTS``); whether it fits the rest of the rules (declaration and failed-throw
    options change the observation and action layout) is checked when it is loaded."""
    return SHIPPED_WEIGHTS.get((rules.decks, rules.partnership), DEFAULT_WEIGHTS)


def load_rollout_net(path: str | Path | None, rules):
    """The ``PolicyValueNet`` stored at ``path`` (a trainer checkpoint or a run folder;
    default: the shipped weights for ``rules``' deck count and partnership), rebuilt for
    ``rules``, in eval mode."""
    return net_from_checkpoint(load_checkpoint(default_weights(rules) if path is None else path),
                               rules)


class NetRollout:
    """Greedy play of a ``PolicyValueNet`` over a whole batch (one forward pass per step).

    Every game of one search has the same level and trump, so the network's canonical card
    order is one column permutation for the whole batch: ``logits`` then applies it with one
    ``index_select`` instead of the per-row gathers of ``PolicyValueNet.forward`` (same values,
    tested), and skips the value head."""

    def __init__(self, net):
        self.net = net
        obs_index, _ = canonical_tables(net.rules)
        self.obs_index = torch.from_numpy(obs_index)

    def logits(self, obs: np.ndarray) -> torch.Tensor:
        """``float32[B, A]`` — the network's action logits for ``obs`` (float32[B, N])."""
        net = self.net
        x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
        with torch.inference_mode():
            key = net.keys(x)
            if not bool((key == key[0]).all()):
                return net(x)[0]
            k = int(key[0])
            x = x.index_select(1, self.obs_index[k])
            h = net.trunk(torch.relu(net.inp(x)))
            logits = net.policy(h)
            slots = logits[:, :54]
            if net.card_head:
                # the card head with features as rows (float[B, F, 54]): plain matmuls, no
                # strided stack; equal to PolicyValueNet's up to float rounding (tested)
                B = len(x)
                feats = _slot_features_one(net, x, k).reshape(-1, B * 54)      # [F, B·54]
                z = (net.card_from_slot.weight @ feats).reshape(-1, B, 54)    # [w, B, 54]
                z += net.card_from_trunk(h).T[:, :, None] + net.card_embedding.T[:, None, :]
                out = net.card_out.weight @ torch.relu_(z).reshape(-1, B * 54)  # [1, B·54]
                slots = slots + out.reshape(B, 54) + net.card_out.bias
            cards = slots.index_select(1, net.card_index[k])
            return torch.cat([cards, logits[:, 54:]], dim=1)

    def log_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``float64[B, A]`` — masked log-softmax of the network's logits (illegal: -inf)."""
        z = np.where(mask, self.logits(obs).numpy().astype(np.float64), -np.inf)
        top = z.max(1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        return z - top - np.log(np.exp(z - top).sum(1, keepdims=True) + 1e-300)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask, self.logits(obs).numpy(), MASKED_LOGIT).argmax(1).astype(np.int64)


class SampledRollout:
    """A ``NetRollout`` that samples its play from ``softmax(logits / temperature)`` instead of
    taking the greedy one. The noise is Gumbel-max with common random numbers: every ``group``
    consecutive rows (one world's candidates) draw the same noise at each step, so candidates are
    compared on the same luck. ``rng`` is set for each search (decisions stay a pure function of
    the seed and the observation)."""

    def __init__(self, net: NetRollout, temperature: float, group: int = 1):
        self.net, self.temperature, self.group = net, float(temperature), int(group)
        self.rng = np.random.default_rng(0)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = self.net.logits(obs).numpy().astype(np.float64) / self.temperature
        B, A = z.shape
        g = self.group if B % self.group == 0 else 1
        noise = np.repeat(self.rng.gumbel(size=(B // g, A)), g, axis=0)
        return np.where(mask, z + noise, -np.inf).argmax(1).astype(np.int64)


class PolicyRollout:
    """Any ``Policy`` as a rollout policy (its ``act_batch``, randomness from ``rng``)."""

    def __init__(self, policy: BasePolicy, rng: np.random.Generator):
        self.policy, self.rng = policy, rng

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(len(obs), dtype=np.int64)
        live = np.flatnonzero(mask.any(1))
        if live.size:
            out[live] = self.policy.act_batch(obs[live], mask[live], self.rng)
        return out


class NearRollout:
    """``near`` plays every game whose hand has not yet finished trick ``until`` (its
    ``tricks_done`` < ``until``, read from the observation), ``far`` the games past it. Built
    for one decision: ``until`` = the decision's ``tricks_done`` + the tricks to answer with
    ``near``. Each policy is asked about its own rows only, so a ``SampledRollout`` as ``far``
    shares its noise within a world's candidates only on steps where no game is still near
    (its draws stay unbiased; the comparison of candidates is a little noisier)."""

    def __init__(self, near, far, rules, until: int):
        self.near, self.far, self.until = near, far, int(until)
        self._done = layout(rules)["tricks_done"].start  # tricks done / tricks per hand
        self._tricks = rules.hand_size

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        near = np.rint(obs[:, self._done] * self._tricks) < self.until
        out = np.zeros(len(obs), dtype=np.int64)
        for policy, rows in ((self.near, near), (self.far, ~near)):
            if rows.all():
                return policy(obs, mask)
            if rows.any():
                out[rows] = policy(obs[rows], mask[rows])
        return out


def play_out(plan_engine, roll_engine, s, plans: np.ndarray, policy,
             others=None) -> tuple[np.ndarray, dict]:
    """Play ``plans`` then the rest of every hand of ``s`` (a ``BatchState`` of B games, all with
    seat 0 to act and an empty selection; changed in place).

    ``plan_engine``: an ``Engine`` with ``auto_forced=False`` (a planned card must not be
    skipped); ``roll_engine``: the same rules with ``auto_forced=True``; ``plans``:
    ``int64[B, L]`` — each game's planned actions (cards, then ``END`` for a lead), padded with
    -1; ``policy`` plays every seat, or only seat 0 when ``others`` (a rollout policy too) is
    given for seats 1-3: a model of the other players that differs from the searcher's own
    continuation. Returns ``values float64[B, 3]`` — seat 0's reward (levels), its side's points
    (attackers' points, negated for the dealer side) and its side (+1 attacking, -1 the dealer
    side) — and counters (``steps``,
    ``decisions``)."""
    B = s.num_games
    reward = np.zeros(B, dtype=np.float64)
    steps = decisions = 0
    for j in range(plans.shape[1]):
        mask = plan_engine.legal_mask(s)
        acts = plans[:, j].copy()
        free = acts < 0
        if free.any():
            if others is None:
                acts[free] = policy(plan_engine.observe(s), mask)[free]
            else:
                acts[free] = _by_seat(policy, others, s, plan_engine.observe(s), mask, free)
        s, r, _ = plan_engine.step(s, acts)
        reward += r[:, 0]
        steps += 1
        decisions += B
    while not s.done.all():
        mask = roll_engine.legal_mask(s)
        obs = roll_engine.observe(s)
        acts = (policy(obs, mask) if others is None
                else _by_seat(policy, others, s, obs, mask, np.ones(B, dtype=bool)))
        s, r, _ = roll_engine.step(s, acts)
        reward += r[:, 0]
        steps += 1
        decisions += int((~s.done).sum())
    side = np.where(s.dealer_side[:, 0], -1.0, 1.0)  # seat 0 attacks: more points are better
    values = np.stack([reward, side * s.attacker_points, side], axis=1)
    return values, {"steps": steps, "decisions": decisions}


def _by_seat(policy, others, s, obs: np.ndarray, mask: np.ndarray,
             rows: np.ndarray) -> np.ndarray:
    """``int64[rows.sum()]`` — the actions of the games ``rows`` (bool[B]): ``policy``'s where
    seat 0 is to act, ``others``' where another seat is (each asked once, for its own rows
    only); 0 for a finished game."""
    out = np.zeros(len(obs), dtype=np.int64)
    mine = rows & (s.to_act == 0)
    for pol, pick in ((policy, mine), (others, rows & (s.to_act > 0))):
        idx = np.flatnonzero(pick)
        if idx.size:
            out[idx] = pol(obs[idx], mask[idx])
    return out[rows]


def _slot_features_one(net, x: torch.Tensor, key: int) -> torch.Tensor:
    """``PolicyValueNet.slot_features`` for a batch whose rows all have table row ``key``,
    feature first: ``float[F, B, 54]``, with one structure's matrices instead of all of them (the
    einsum over every structure is most of a small batch's forward pass)."""
    s = int(net.slot_structure[key])
    hand, selection = net.block(x, "hand"), net.block(x, "selection")
    trick = net.block(x, "trick", 4)
    played = net.block(x, "played", 4).sum(1)
    leader = net.block(x, "trick_leader")
    lead = (leader[:, :, None] * trick).sum(1)
    trick_all = trick.sum(1)
    unseen = (net.decks - hand - played - net.block(x, "kitty")).clamp(min=0)
    higher, same = net.slot_higher[s], net.slot_same[s]
    B = len(x)
    feats = [hand, selection, *trick.unbind(1), trick_all, played, unseen, unseen @ higher / 4,
             trick_all @ higher, lead, ((lead @ same) > 0).float(), (hand @ same) / 8,
             net.slot_points[key].expand(B, 54) / 10, net.slot_trump[s].expand(B, 54),
             net.block(x, "leading").expand(-1, 54),
             (trick_all.sum(1, keepdim=True) > 0).float().expand(-1, 54),
             (selection.sum(1, keepdim=True) > 0).float().expand(-1, 54)]
    return torch.stack(feats, dim=0)
