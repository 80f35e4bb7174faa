"""The policy/value network for PPO self-play, and the masked action distribution.

**Canonical card order.** Card blocks of the observation are count vectors over the 54 card ids
(``core.observe``). The network sees them in ``rules.canonical_order(level, trump)`` instead
(off-suits from the suit after trump, high → low, then trump high → low), so what it learns with
spades trump at level 2 applies to hearts trump at level 9. The per-suit ``voids`` columns are
put in the same trump-relative suit order, and a suit trump is shown as suit 0 of the ``trump``
one-hot (NT and "not decided" unchanged): hands that differ only by the names of the suits look
identical to the network. Level and trump come from the observation's one-hot
blocks; while trump is not decided yet (the deal), the no-trump order is used. Each sample is
permuted by one ``gather`` with a row of a precomputed index table ``int64[13·6, N]`` (level ×
trump state). The card logits of the policy head are produced in canonical slots and gathered
back to card ids (action ids 0-53 *are* card ids, DESIGN.md §4); other actions are unchanged.

**Masking.** ``masked_distribution`` gives illegal actions the logit ``MASKED_LOGIT`` (a large
negative finite number, not ``-inf``): their probability is exactly 0 in float32 and log-probs
and entropy stay finite for any mask, including a single legal action.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from shengji_env import Rules
from shengji_env.core.observe import CARD_BLOCKS, layout
from shengji_env.rules import NT, canonical_order
from shengji_env.rules.game import action_layout

__all__ = ["MASKED_LOGIT", "PolicyValueNet", "canonical_tables", "masked_distribution"]

MASKED_LOGIT = -1e9  #: logit of an illegal action: exp() underflows to exactly 0 in float32
NUM_LEVELS, NUM_TRUMP_STATES = 13, 6  # trump one-hot: S, H, C, D, NT, not decided yet


def canonical_tables(cfg: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Index tables for the canonical presentation, for ``cfg`` (a ``Rules``).

    Returns ``obs_index: int64[78, N]`` — row ``level·6 + trump_state``: observation position
    read into each input position (``x = obs[obs_index[key]]``), and ``card_index: int64[78, 54]``
    — canonical slot holding each card id (``card_logits = slot_logits[card_index[key]]``).
    """
    at = layout(cfg)
    n = at[next(reversed(at))].stop
    obs_index = np.tile(np.arange(n, dtype=np.int64), (NUM_LEVELS * NUM_TRUMP_STATES, 1))
    card_index = np.zeros((NUM_LEVELS * NUM_TRUMP_STATES, 54), dtype=np.int64)
    blocks = [(name, rows) for name, rows in CARD_BLOCKS.items()]
    if "candidates" in at:
        blocks.append(("candidates", (at["candidates"].stop - at["candidates"].start) // 54))
    for level in range(NUM_LEVELS):
        for state in range(NUM_TRUMP_STATES):
            key = level * NUM_TRUMP_STATES + state
            trump = min(NT, state)  # undecided: present as no-trump
            order = canonical_order(level, trump, cfg.always_trump_two).astype(np.int64)
            card_index[key, order] = np.arange(54)
            for name, rows in blocks:
                start = at[name].start
                for r in range(rows):
                    obs_index[key, start + 54 * r: start + 54 * (r + 1)] = start + 54 * r + order
            # voids: S, H, C, D, trump per relative seat → off-suits from the suit after trump
            suits = list(range(4)) if trump == NT else [(trump + i) % 4 for i in (1, 2, 3, 0)]
            v = at["voids"].start
            for r in range(4):
                obs_index[key, v + 5 * r: v + 5 * r + 5] = [v + 5 * r + s for s in suits + [4]]
            # trump one-hot: any suit trump reads as slot 0 (its identity no longer matters)
            if state < NT:
                t = at["trump"].start
                obs_index[key, t: t + 4] = [t + (state + i) % 4 for i in range(4)]
    return obs_index, card_index


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> Categorical:
    """``Categorical`` over actions with illegal ones (``mask`` bool[B, A] False) at probability
    0; ``logits`` float[B, A]. Finite everywhere: no NaN at any mask."""
    return Categorical(logits=logits.masked_fill(~mask, MASKED_LOGIT))


class _Residual(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(width, width), nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(x + self.fc2(torch.relu(self.fc1(x))))


class PolicyValueNet(nn.Module):
    """Shared trunk (a linear layer then ``blocks`` residual MLP blocks of width ``hidden``) with a
    policy head (logits float[B, A], card logits indexed by card id) and a value head (float[B],
    the acting seat's expected team reward). ``forward(obs float32[B, N]) -> (logits, value)``.
    """

    def __init__(self, cfg: Rules | None = None, hidden: int = 256, blocks: int = 1):
        super().__init__()
        cfg = cfg if cfg is not None else Rules()
        self.rules, self.hidden, self.blocks = cfg, int(hidden), int(blocks)
        at = layout(cfg)
        self.obs_size = at[next(reversed(at))].stop
        self.num_actions = action_layout(cfg).size
        self.level_at = (at["level"].start, at["level"].stop)
        self.trump_at = (at["trump"].start, at["trump"].stop)
        obs_index, card_index = canonical_tables(cfg)
        # buffers, not parameters: rebuilt from the rules, so kept out of the state_dict
        self.register_buffer("obs_index", torch.from_numpy(obs_index), persistent=False)
        self.register_buffer("card_index", torch.from_numpy(card_index), persistent=False)
        self.inp = nn.Linear(self.obs_size, hidden)
        self.trunk = nn.Sequential(*[_Residual(hidden) for _ in range(blocks)])
        self.policy = nn.Linear(hidden, self.num_actions)
        self.value = nn.Linear(hidden, 1)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=float(np.sqrt(2)))
                nn.init.zeros_(m.bias)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.orthogonal_(self.value.weight, gain=1.0)

    def keys(self, obs: torch.Tensor) -> torch.Tensor:
        """``int64[B]`` — row of the index tables for each observation (level·6 + trump state)."""
        level = obs[:, self.level_at[0]:self.level_at[1]].argmax(1)
        trump = obs[:, self.trump_at[0]:self.trump_at[1]].argmax(1)
        return level * NUM_TRUMP_STATES + trump

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"PolicyValueNet expects observations float32[B, {self.obs_size}] "
                             f"for these rules, got shape {tuple(obs.shape)}")
        key = self.keys(obs)
        x = obs.gather(1, self.obs_index[key])
        h = self.trunk(torch.relu(self.inp(x)))
        logits = self.policy(h)
        cards = logits[:, :54].gather(1, self.card_index[key])  # canonical slots → card ids
        return torch.cat([cards, logits[:, 54:]], dim=1), self.value(h).squeeze(1)

    def spec(self) -> dict:
        """Plain-python description to rebuild this network (stored in checkpoints)."""
        return {"hidden": self.hidden, "blocks": self.blocks}
