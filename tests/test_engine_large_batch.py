"""Batch-size independence of the batched engine: a game's trajectory does not depend on how many
games step beside it.

The engine works on subsets of the batch (the games that lead, throw, end a trick, deal, ...),
and their sizes grow with the batch: only a large batch has hundreds of games in one subset, where
index arithmetic in a narrow dtype can overflow (a ``uint8`` product in the throw check did, at
about 280 throws in one step of 4,096 games: the agreement tests play small batches and never
reached it). Here 4,096 games step in one batch and, in lockstep, as four batches of 1,024 with
the same per-game seeds and actions: every mask, observation, reward and end must be equal.
"""

from __future__ import annotations

import numpy as np

from shengji_env.core import Engine
from shengji_env.rules import Rules
from shengji_env.rules.actions import END, Phase

B, PARTS, STEPS = 4096, 4, 150


def pick(mask: np.ndarray, games: np.ndarray, t: int) -> np.ndarray:
    """``int64[n]`` — a legal action per game, a fixed function of (game index, step): the
    ``k``-th legal action with ``k`` from a hash, so both runs make the same choices."""
    n_legal = mask.sum(1)
    k = (games * 7919 + t * 104729 + (games * t) % 101) % np.maximum(n_legal, 1)
    # the k-th True of each row: cumulative count of legal actions reaches k + 1
    return ((mask.cumsum(1) > k[:, None]) & mask).argmax(1)


def test_one_large_batch_plays_as_four_small_ones():
    rules = Rules()
    n = B // PARTS
    big = Engine(rules, B, seed=0)
    sb = big.reset()
    small = [Engine(rules, n, seed=k * n) for k in range(PARTS)]
    ss = [e.reset() for e in small]
    games = np.arange(B)
    throws = 0
    for t in range(STEPS):
        mask = big.legal_mask(sb)
        parts = [e.legal_mask(s) for e, s in zip(small, ss)]
        assert (mask == np.concatenate(parts)).all(), f"masks differ at step {t}"
        if t % 10 == 0:
            obs = big.observe(sb)
            assert (obs == np.concatenate([e.observe(s) for e, s in zip(small, ss)])).all(), \
                f"observations differ at step {t}"
        actions = pick(mask, games, t)
        leads = (sb.phase == Phase.PLAY) & (sb.lead_n == 0) & (actions == END)  # a lead is made
        throws = max(throws, int((leads & (sb.selection.sum(1) > 2)).sum()))
        sb, rewards, done = big.step(sb, actions)
        for k, (e, s) in enumerate(zip(small, ss)):
            part = slice(k * n, (k + 1) * n)
            s, r, d = e.step(s, actions[part])
            assert (r == rewards[part]).all() and (d == done[part]).all(), f"step {t}, part {k}"
            e.reset_games(s, np.flatnonzero(d))
            ss[k] = s
        big.reset_games(sb, np.flatnonzero(done))
    # some step had more leads of three or more cards than a uint8 counts
    assert throws > 255, throws
