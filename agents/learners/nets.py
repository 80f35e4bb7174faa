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
from shengji_env.cards import POINTS
from shengji_env.core.observe import CARD_BLOCKS, layout
from shengji_env.rules import NT, TRUMP, TrumpContext, canonical_order
from shengji_env.rules.actions import action_layout

__all__ = ["MASKED_LOGIT", "SLOT_FEATURES", "PolicyValueNet", "canonical_tables",
           "masked_distribution", "slot_tables"]

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


def slot_tables(cfg: Rules) -> dict[str, np.ndarray]:
    """What each canonical slot means, for the card head: the slots' *structure* (which slots
    share an effective suit, which are stronger) depends only on the kind of trump (and on the
    level under ``always_trump_two``), so it is stored once per distinct structure ``S``.

    ``structure``: int64[78] — structure of each key; ``higher``: float32[S, 54, 54] — 1 where
    slot i beats slot j in the same effective suit; ``same``: float32[S, 54, 54] — 1 where the
    slots share an effective suit; ``trump``: float32[S, 54] — slot is trump; ``points``:
    float32[78, 54] — points of the card in each slot.
    """
    found: dict[bytes, int] = {}
    higher, same, trump = [], [], []
    structure = np.zeros(NUM_LEVELS * NUM_TRUMP_STATES, dtype=np.int64)
    points = np.zeros((NUM_LEVELS * NUM_TRUMP_STATES, 54), dtype=np.float32)
    for level in range(NUM_LEVELS):
        for state in range(NUM_TRUMP_STATES):
            key = level * NUM_TRUMP_STATES + state
            t = min(NT, state)
            order = canonical_order(level, t, cfg.always_trump_two).astype(np.int64)
            ctx = TrumpContext(level=level, trump=t, decks=cfg.decks,
                               always_trump_two=cfg.always_trump_two)
            eff, idx = ctx.effective_suits[order], ctx.order_indices[order]
            s = (eff[:, None] == eff[None, :]).astype(np.float32)
            h = s * (idx[:, None] > idx[None, :])
            sig = h.tobytes() + s.tobytes()
            if sig not in found:
                found[sig] = len(higher)
                higher.append(h)
                same.append(s)
                trump.append((eff == TRUMP).astype(np.float32))
            structure[key] = found[sig]
            points[key] = POINTS[order]
    return {"structure": structure, "higher": np.stack(higher), "same": np.stack(same),
            "trump": np.stack(trump), "points": points}


#: per-slot features the card head reads (``PolicyValueNet.slot_features``)
SLOT_FEATURES = ("hand", "selection", "trick: me", "trick: next", "trick: partner",
                 "trick: previous", "trick", "played", "unseen", "unseen cards beating it / 4",
                 "trick cards beating it", "lead", "in the lead's suit",
                 "my cards in its suit / 8", "points / 10", "trump", "I am leading",
                 "a trick is under way", "a selection is under way")


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

    ``card_head`` > 0 adds a second opinion on every card: a small MLP of that width, shared by
    the 54 canonical slots, reads the trunk's summary together with the slot's own facts
    (``SLOT_FEATURES``: is it in my hand, how many unseen cards beat it, does it beat the trick so
    far, is it in the lead's suit, its points, ...) and a learned embedding of the slot; its
    output is added to the card logits. The facts are fixed linear maps of the observation, but
    an MLP over 1121 inputs learns "this card is the highest left" slowly; handing them over
    per slot lets one set of weights judge every card.

    ``play_head`` > 0 (or ``add_play_head``) adds Deep Monte-Carlo's Q head over whole plays on
    the same trunk (``agents.learners.play_q``); ``forward`` then returns the logits of its
    greedy policy (the policy head stays for ``policy_logits``). ``play_cap``: follows scored
    per decision.
    """

    def __init__(self, cfg: Rules | None = None, hidden: int = 256, blocks: int = 1,
                 card_head: int = 0, play_head: int = 0, play_cap: int = 64):
        super().__init__()
        cfg = cfg if cfg is not None else Rules()
        self.rules, self.hidden, self.blocks = cfg, int(hidden), int(blocks)
        self.card_head = int(card_head)
        self.decks = cfg.decks
        at = layout(cfg)
        self.obs_size = at[next(reversed(at))].stop
        self.num_actions = action_layout(cfg).size
        self.level_at = (at["level"].start, at["level"].stop)
        self.trump_at = (at["trump"].start, at["trump"].stop)
        obs_index, card_index = canonical_tables(cfg)
        # buffers, not parameters: rebuilt from the rules, so kept out of the state_dict
        self.register_buffer("card_index", torch.from_numpy(card_index), persistent=False)
        self.register_buffer("slot_cards", torch.from_numpy(np.argsort(card_index, axis=1)),
                             persistent=False)
        # the permutation, by runs of blocks: card blocks gather 54 slots (one index row shared
        # by all their rows), the few other permuted entries (voids, trump) gather by table
        self.segments: list[tuple[int, int, str]] = []
        for name, (start, stop) in ((k, (v.start, v.stop)) for k, v in at.items()):
            kind = "cards" if name in CARD_BLOCKS or name == "candidates" else "other"
            if self.segments and self.segments[-1][2] == kind:
                self.segments[-1] = (self.segments[-1][0], stop, kind)
            else:
                self.segments.append((start, stop, kind))
        for i, (start, stop, kind) in enumerate(self.segments):
            if kind == "other":
                table = obs_index[:, start:stop] - start
                if (table != np.arange(stop - start)).any():
                    self.segments[i] = (start, stop, "permuted")
                    self.register_buffer(f"segment_{i}", torch.from_numpy(table),
                                         persistent=False)
        self.at = {k: (v.start, v.stop) for k, v in at.items()}
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
        if self.card_head:
            tables = slot_tables(cfg)
            for name, table in tables.items():
                self.register_buffer(f"slot_{name}", torch.from_numpy(table), persistent=False)
            width = self.card_head
            self.card_from_trunk = nn.Linear(hidden, width)
            self.card_from_slot = nn.Linear(len(SLOT_FEATURES), width, bias=False)
            self.card_embedding = nn.Parameter(0.1 * torch.randn(54, width))
            self.card_out = nn.Linear(width, 1)
            nn.init.orthogonal_(self.card_out.weight, gain=0.01)
            nn.init.zeros_(self.card_out.bias)
        self.play_head, self.play_cap = 0, int(play_cap)
        if play_head:
            self.add_play_head(play_head, play_cap)

    def keys(self, obs: torch.Tensor) -> torch.Tensor:
        """``int64[B]`` — row of the index tables for each observation (level·6 + trump state)."""
        level = obs[:, self.level_at[0]:self.level_at[1]].argmax(1)
        trump = obs[:, self.trump_at[0]:self.trump_at[1]].argmax(1)
        return level * NUM_TRUMP_STATES + trump

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's summary ``float[B, hidden]`` of observations ``obs`` float32[B, N]."""
        return self._encode(obs)[2]

    def _encode(self, obs: torch.Tensor):
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"PolicyValueNet expects observations float32[B, {self.obs_size}] "
                             f"for these rules, got shape {tuple(obs.shape)}")
        key = self.keys(obs)
        x = self.canonical(obs, key)
        return key, x, self.trunk(torch.relu(self.inp(x)))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.play_head:  # a Deep Monte-Carlo network plays its Q-best actions (play_q)
            from .play_q import play_logits

            return play_logits(self, obs)
        return self.policy_value(obs)

    def policy_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The card-by-card policy head's logits ``float[B, A]`` (whatever ``play_head``)."""
        return self.policy_value(obs)[0]

    def policy_value(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits float[B, A], value float[B])`` of the policy and value heads."""
        key, x, h = self._encode(obs)
        logits = self.policy(h)
        slots = logits[:, :54]
        if self.card_head:
            structure = self.slot_structure[key]
            with torch.no_grad():  # fixed functions of the observation
                feats = self.slot_features(x, key, structure)
            z = self.card_from_slot(feats)
            z += self.card_from_trunk(h)[:, None, :] + self.card_embedding
            slots = slots + self.card_out(torch.relu_(z)).squeeze(2)
        cards = slots.gather(1, self.card_index[key])  # canonical slots → card ids
        return torch.cat([cards, logits[:, 54:]], dim=1), self.value(h).squeeze(1)

    def add_play_head(self, width: int, cap: int = 64) -> None:
        """Add a Deep Monte-Carlo Q head of width ``width`` over whole plays (``play_q``;
        ``cap``: follows scored per decision): from then on ``forward`` plays its greedy policy.
        Its parameters are new (the caller adds them to an optimizer)."""
        from .play_q import PlayHead

        self.play_head, self.play_cap = int(width), int(cap)
        self.play = PlayHead(self.rules, self.hidden, self.play_head)

    def canonical(self, obs: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
        """``float[B, N]`` — observations with card blocks in canonical order (the table
        ``canonical_tables(cfg)[0]`` applied row by row, without building a [B, N] index)."""
        B = len(obs)
        order = self.slot_cards[key][:, None, :]
        parts = []
        for i, (start, stop, kind) in enumerate(self.segments):
            seg = obs[:, start:stop]
            if kind == "cards":
                rows = (stop - start) // 54
                seg = seg.reshape(B, rows, 54).gather(2, order.expand(B, rows, 54))
                seg = seg.reshape(B, stop - start)
            elif kind == "permuted":
                seg = seg.gather(1, getattr(self, f"segment_{i}")[key])
            parts.append(seg)
        return torch.cat(parts, dim=1)

    def block(self, x: torch.Tensor, name: str, rows: int = 0) -> torch.Tensor:
        """Block ``name`` of observations ``x``: float[B, size], or float[B, rows, 54]."""
        start, stop = self.at[name]
        out = x[:, start:stop]
        return out.reshape(len(x), rows, 54) if rows else out

    def slot_features(self, x: torch.Tensor, key: torch.Tensor,
                      structure: torch.Tensor) -> torch.Tensor:
        """``float[B, 54, F]`` — ``SLOT_FEATURES`` of each canonical slot of ``x`` (canonical
        observations float[B, N])."""
        hand, selection = self.block(x, "hand"), self.block(x, "selection")
        trick = self.block(x, "trick", 4)
        played = self.block(x, "played", 4).sum(1)  # includes the current trick
        leader = self.block(x, "trick_leader")
        lead = (leader[:, :, None] * trick).sum(1)
        trick_all = trick.sum(1)
        unseen = (self.decks - hand - played - self.block(x, "kitty")).clamp(min=0)
        # through every structure's matrices (there are 2 or 3), then each sample's own
        rows = torch.arange(len(x))
        higher = torch.einsum("bqi,sij->sbqj", torch.stack([unseen, trick_all], 1),
                              self.slot_higher)[structure, rows]
        same = torch.einsum("bqi,sij->sbqj", torch.stack([lead, hand], 1),
                            self.slot_same)[structure, rows]
        feats = [hand, selection, *trick.unbind(1), trick_all, played, unseen, higher[:, 0] / 4,
                 higher[:, 1], lead, (same[:, 0] > 0).float(), same[:, 1] / 8,
                 self.slot_points[key] / 10, self.slot_trump[structure],
                 self.block(x, "leading").expand(-1, 54),
                 (trick_all.sum(1, keepdim=True) > 0).float().expand(-1, 54),
                 (selection.sum(1, keepdim=True) > 0).float().expand(-1, 54)]
        return torch.stack(feats, dim=2)

    def spec(self) -> dict:
        """Plain-python description to rebuild this network (stored in checkpoints)."""
        spec = {"hidden": self.hidden, "blocks": self.blocks, "card_head": self.card_head}
        if self.play_head:  # only then: PPO checkpoints keep their spec
            spec.update(play_head=self.play_head, play_cap=self.play_cap)
        return spec
