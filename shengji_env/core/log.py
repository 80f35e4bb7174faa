"""The decision log of each game: every decision of the episode as (seat, action).

The current hand's decisions are ``state.log`` (``int16[B, LOG_LEN]``, ``seat·256 + action``,
forced ones too) with ``state.log_len``; earlier hands of the episode (match mode, redeals) are
moved into ``state.history[g]`` as ``(seat, action)`` pairs, ``(-1, -1)`` marking a redeal.
"""

from __future__ import annotations

import numpy as np

from .counts import row_starts
from .state import LOG_LEN, BatchState


def record(s: BatchState, G, actions) -> None:
    """Append ``actions`` (``int[g]``) of the seats to act in games ``G`` to their logs."""
    every = G.size == s.num_games  # G = arange(B) (a step of the whole batch): no gathers
    n = s.log_len if every else s.log_len[G]  # int16[g]
    if n.max(initial=0) >= LOG_LEN:  # a long episode (redeals): move the log into history
        for g in G[n >= LOG_LEN]:
            spill(s, int(g))
        n = s.log_len[G]
    # one entry per game: a flat index into the log (int64: the int16 counts are added to it)
    at = (row_starts(s.num_games, LOG_LEN) if every else G * LOG_LEN) + n
    seats = s.to_act if every else s.to_act[G]
    s.log.reshape(-1)[at] = np.left_shift(seats, 8, dtype=np.int16) | actions
    if every:
        s.log_len += 1
    else:
        s.log_len[G] += 1


def record_one(s: BatchState, g: int, action: int) -> None:
    """``record`` for one game with Python ints (the one-game path)."""
    n = s.log_len.item(g)
    if n >= LOG_LEN:
        spill(s, g)
        n = 0
    s.log[g, n] = (s.to_act.item(g) << 8) | action
    s.log_len[g] = n + 1


def spill(s: BatchState, g: int) -> None:
    """Move game ``g``'s current log into its history (a hand ends in match mode, a redeal)."""
    n = s.log_len.item(g)
    s.history[g].extend((int(c) >> 8, int(c) & 255) for c in s.log[g, :n])
    s.log_len[g] = 0


def mark_redeal(s: BatchState, g: int) -> None:
    """Game ``g`` is dealt again (nobody declared, ``REDEAL``): ``(-1, -1)`` in its history."""
    spill(s, g)
    s.history[g].append((-1, -1))


def game_log(s: BatchState, g: int) -> list[tuple[int, int]]:
    """Every decision of game ``g``'s episode as (seat, action); (-1, -1) marks a redeal."""
    n = s.log_len.item(g)
    return s.history[g] + [(int(c) >> 8, int(c) & 255) for c in s.log[g, :n]]


__all__ = ["game_log", "mark_redeal", "record", "record_one", "spill"]
