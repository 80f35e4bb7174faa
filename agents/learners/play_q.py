"""Q(observation, action) over whole plays: action features, the Q head, and its greedy policy.

Deep Monte-Carlo (``agents.learners.dmc``, DouZero's recipe) scores every candidate action of a
decision with one network and plays the best. The *actions* it scores:

* in the play phase, at the first card of a play: every candidate whole play
  (``agents.plays.seat_plays``) — the seat then emits the chosen play's cards one by one;
* at every other decision (declarations, the bury, naming trump or the friend card, choosing a
  failed throw's unit): each legal action id on its own (a bury card is a one-card "play").

**Action features** ``float32[F]`` (``action_features``): the action's cards as counts / decks in
the canonical order of the observation's trump (``nets.canonical_tables``: slot ``j`` means the
same card whatever the trump suit and level), a one-hot of a non-card action id (PASS, END,
DECLARE …), and the play's shape (``SHAPE``): its size, lead or follow, how many singles, pairs
and larger tuples, the pair links of its tractors and its longest tractor, whether it is a throw
(a lead of more than one unit), its trump cards, its cards in the lead's suit, its points.

**The head** (``PlayHead``): an MLP over the trunk's summary of the (canonical) observation —
the trunk of ``PolicyValueNet``, shared — concatenated with the action features, to one number,
the expected reward of the seat's team at the hand's end.

**Its policy** (``play_logits``): ``PolicyValueNet.forward`` of a network with a play head
returns logits whose masked argmax plays the Q-best action, decision by decision and without
memory, so every reader of a network (the trainer's evaluation, ``TorchPolicy``, a checkpoint as
an agent spec) plays DMC's greedy policy: a card's logit is the best Q of the candidate plays
that hold the current selection plus that card, END's the best Q of a candidate equal to the
selection; Q is taken at the observation without the selection (the moment the play was chosen).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch
from torch import nn

from shengji_env.cards import POINTS
from shengji_env.core.observe import decode, layout
from shengji_env.rules import TRUMP, TrumpContext, canonical_order
from shengji_env.rules.actions import Phase, action_layout

from ..plays import seat_plays

__all__ = ["PLAY", "SHAPE", "PlayHead", "action_features", "decision_candidates",
           "feature_size", "play_logits", "q_values", "single_action_features"]

PLAY = int(Phase.PLAY)
#: shape features of a play (after the card counts and the non-card one-hot)
SHAPE = ("is a play", "cards / 4", "lead", "follow", "singles / 4", "pairs / 4",
         "tuples of 3+ / 4", "pair links / 4", "longest tractor / 4", "throw", "trump cards / 4",
         "cards in the lead's suit / 4", "points / 20")
_MASKED = -1e9  # = nets.MASKED_LOGIT (not imported: nets imports this module lazily)


def feature_size(cfg) -> int:
    """F: 54 card counts + one-hot of the non-card action ids + ``SHAPE``."""
    return 54 + action_layout(cfg).size - 54 + len(SHAPE)


@lru_cache(maxsize=256)
def _context(level: int, trump: int, decks: int, always_trump_two: bool):
    """(TrumpContext, canonical order int64[54], position one-hot float32[54, 5·P]) of a hand."""
    ctx = TrumpContext(level=level, trump=trump, decks=decks, always_trump_two=always_trump_two)
    order = canonical_order(level, trump, always_trump_two).astype(np.int64)
    idx = ctx.order_indices.astype(np.int64)
    width = int(idx.max()) + 1
    where = np.zeros((54, 5 * width), dtype=np.float32)
    where[np.arange(54), ctx.effective_suits.astype(np.int64) * width + idx] = 1
    return ctx, order, where, width


def action_features(plays: np.ndarray, obs: np.ndarray, cfg) -> np.ndarray:
    """``float32[K, F]`` — features of ``plays`` int[K, 54] (whole plays of one decision) for the
    seat whose observation is ``obs`` float32[N] (module docstring)."""
    at = layout(cfg)
    level = int(obs[at["level"]].argmax())
    trump = int(obs[at["trump"]].argmax())
    ctx, order, where, width = _context(level, min(trump, 4), cfg.decks, cfg.always_trump_two)
    P = np.asarray(plays, dtype=np.int64)
    K = len(P)
    out = np.zeros((K, feature_size(cfg)), dtype=np.float32)
    out[:, :54] = P[:, order] / cfg.decks
    s = out[:, feature_size(cfg) - len(SHAPE):]
    n = P.sum(1)
    leading = obs[at["leading"].start] > 0.5
    trick = obs[at["trick"]].reshape(4, 54)
    leader = obs[at["trick_leader"]]
    lead = trick[int(leader.argmax())] if leader.any() else np.zeros(54)
    lead_suits = np.unique(ctx.effective_suits[lead > 0])
    pairs_at = ((P >= 2).astype(np.float32) @ where > 0).reshape(K, 5, width)
    links = (pairs_at[:, :, 1:] & pairs_at[:, :, :-1]).sum((1, 2))
    run = np.zeros((K, 5), dtype=np.int64)
    longest = np.zeros(K, dtype=np.int64)
    for p in range(width):  # longest run of adjacent pair positions in one suit
        run = np.where(pairs_at[:, :, p], run + 1, 0)
        longest = np.maximum(longest, run.max(1))
    suits = ((P > 0).astype(np.float32) @ where).reshape(K, 5, width).sum(2) > 0
    distinct = (P > 0).sum(1)
    one_unit = (distinct == 1) | ((P.max(1) >= 2) & (P.min(1, where=P > 0, initial=9) == P.max(1))
                                  & (links == distinct - 1) & (suits.sum(1) == 1))
    s[:, 0] = 1
    s[:, 1] = n / 4
    s[:, 2] = float(leading)
    s[:, 3] = float(not leading)
    s[:, 4] = (P == 1).sum(1) / 4
    s[:, 5] = (P == 2).sum(1) / 4
    s[:, 6] = (P >= 3).sum(1) / 4
    s[:, 7] = links / 4
    s[:, 8] = np.where(longest >= 2, longest, 0) / 4
    s[:, 9] = leading & ~one_unit
    s[:, 10] = P[:, ctx.effective_suits == TRUMP].sum(1) / 4
    if lead_suits.size and not leading:
        s[:, 11] = P[:, np.isin(ctx.effective_suits, lead_suits)].sum(1) / 4
    s[:, 12] = P @ POINTS.astype(np.int64) / 20
    return out


def single_action_features(actions: np.ndarray, obs: np.ndarray, cfg) -> np.ndarray:
    """``float32[K, F]`` — features of single action ids ``actions`` int[K] (a card, PASS, END, a
    declaration …) for the seat whose observation is ``obs`` float32[N]: the card's canonical
    slot, or the non-card id's one-hot; no shape."""
    at = layout(cfg)
    level = int(obs[at["level"]].argmax())
    trump = int(obs[at["trump"]].argmax())
    _, order, _, _ = _context(level, min(trump, 4), cfg.decks, cfg.always_trump_two)
    slot = np.empty(54, dtype=np.int64)
    slot[order] = np.arange(54)
    actions = np.asarray(actions, dtype=np.int64)
    out = np.zeros((len(actions), feature_size(cfg)), dtype=np.float32)
    card = actions < 54
    out[np.flatnonzero(card), slot[actions[card]]] = 1.0 / cfg.decks
    out[np.flatnonzero(~card), actions[~card]] = 1.0  # ids 54.. sit right after the 54 slots
    return out


class PlayHead(nn.Module):
    """``Q float[K]`` from the trunk's summary ``h float[K, hidden]`` and action features
    ``float[K, F]``: an MLP of width ``width``."""

    def __init__(self, cfg, hidden: int, width: int):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(hidden + feature_size(cfg), width), nn.ReLU(),
                                  nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, h: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        return self.body(torch.cat([h, feats], dim=1)).squeeze(1)


def decision_candidates(obs: np.ndarray, mask: np.ndarray | None, cfg, cap: int
                        ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The actions DMC scores at each row of ``obs`` float32[B, N] (module docstring).

    Returns ``(feats, plays, is_play)``: per row ``float32[K, F]`` features and its candidates —
    whole plays ``int64[K, 54]`` where ``is_play`` (bool[B]: play phase, empty selection), else
    the action ids ``int64[K]`` (legal ones by ``mask`` bool[B, A]; all ids when ``mask`` is
    None). A whole play is kept only if each of its cards is legal now (the mask is
    prefix-closed); a row whose every play is dropped scores single actions instead."""
    at = layout(cfg)
    A = action_layout(cfg).size
    phase = obs[:, at["phase"]].argmax(1)
    empty = obs[:, at["selection"]].sum(1) == 0
    lead_at, size_at = at["leading"].start, at["lead_size"].start
    hand_size = cfg.hand_size  # lead_size is a fraction of it
    is_play = (phase == PLAY) & empty
    feats, plays = [], []
    for b in range(len(obs)):
        if is_play[b]:
            single = mask is not None and not obs[b, lead_at] and obs[b, size_at] * hand_size < 1.5
            if single:  # following a single card: the legal cards are the plays (same order)
                p = np.eye(54, dtype=np.int64)[np.flatnonzero(mask[b, :54])]
            else:
                p = seat_plays(decode(obs[b], cfg), cfg, cap)
                p = np.stack(p) if p else np.zeros((0, 54), dtype=np.int64)
            if mask is not None and len(p):
                p = p[((p > 0) <= mask[b, :54]).all(1)]
            if len(p):
                feats.append(action_features(p, obs[b], cfg))
                plays.append(p)
                continue
            is_play[b] = False
        ids = np.flatnonzero(mask[b]) if mask is not None else np.arange(A)
        if ids.size == 0:
            ids = np.zeros(1, dtype=np.int64)  # a finished game: any action (ignored)
        feats.append(single_action_features(ids, obs[b], cfg))
        plays.append(ids.astype(np.int64))
    return feats, plays, is_play


def q_values(net, obs: np.ndarray, feats: list[np.ndarray]) -> list[np.ndarray]:
    """Q of every candidate: ``float32[K_b]`` per row of ``obs`` float32[B, N] (no gradient)."""
    owner = np.repeat(np.arange(len(obs)), [len(f) for f in feats])
    with torch.no_grad():
        h = net.encode(torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)))
        q = net.play(h[torch.from_numpy(owner)], torch.from_numpy(np.concatenate(feats)))
    return np.split(q.numpy(), np.cumsum([len(f) for f in feats])[:-1])


_CACHE_SIZE = 4096


def _cached_candidates(net, base: np.ndarray, cfg):
    """``decision_candidates(base, None, …)``, remembered per observation on ``net``: a play
    of n cards asks for the same candidates at each of its n steps (the selection removed)."""
    cache = net.__dict__.setdefault("_candidates", {})
    feats, cands, is_play = [None] * len(base), [None] * len(base), np.zeros(len(base), bool)
    keys = [row.tobytes() for row in base]
    todo = [b for b, k in enumerate(keys) if k not in cache]
    if todo:
        f, c, p = decision_candidates(base[todo], None, cfg, net.play_cap)
        if len(cache) + len(todo) > _CACHE_SIZE:
            cache.clear()
        for i, b in enumerate(todo):
            cache[keys[b]] = (f[i], c[i], bool(p[i]))
    for b, k in enumerate(keys):
        feats[b], cands[b], is_play[b] = cache[k]
    return feats, cands, is_play


def play_logits(net, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logits float[B, A], value float[B])`` of DMC's greedy policy (module docstring); the
    value is the best Q."""
    cfg = net.rules
    at = layout(cfg)
    x = obs.detach().cpu().numpy().astype(np.float32)
    sel_at = at["selection"]
    selection = x[:, sel_at].round().astype(np.int64)
    phase = x[:, at["phase"]].argmax(1)
    in_play = (phase == PLAY) & (selection.sum(1) > 0)
    base = x.copy()
    base[in_play, sel_at] = 0  # the observation when the play was chosen (not the bury's)
    feats, cands, is_play = _cached_candidates(net, base, cfg)
    qs = q_values(net, base, feats)
    A = net.num_actions
    logits = np.full((len(x), A), _MASKED, dtype=np.float32)
    best = np.zeros(len(x), dtype=np.float32)
    for b in range(len(x)):
        q, c = qs[b], cands[b]
        if not is_play[b]:  # single actions; mid-play rows never land here (selection removed)
            logits[b, c] = q
            best[b] = q.max()
            continue
        sel = selection[b] if in_play[b] else np.zeros(54, dtype=np.int64)
        rest = c - sel
        keep = (rest >= 0).all(1)
        if not keep.any():  # a selection no candidate holds (another policy began it)
            logits[b] = net.policy_logits(obs[b:b + 1])[0].cpu().numpy()
            continue
        q, rest = q[keep], rest[keep]
        done = rest.sum(1) == 0
        if done.any():
            logits[b, 55] = q[done].max()  # END: the selection is the best play
        for card in np.flatnonzero((rest > 0).any(0)):
            logits[b, card] = q[rest[:, card] > 0].max()
        best[b] = q.max()
    return torch.from_numpy(logits).to(obs.device), torch.from_numpy(best).to(obs.device)
