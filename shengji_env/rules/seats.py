"""Seats and partnerships: the one place that knows who plays with whom.

Seats 0-3 sit in playing order. In the fixed partnership (``partnership="FIXED"``, the default,
RULES.md §2) seats ``i`` and ``i + 2`` are partners: team 0 = seats 0 and 2, team 1 = seats 1
and 3. Everything else (the engine's ``dealer_side: bool[B, 4]``, the reference game, scoring,
observations, agents) asks these helpers or reads the per-hand partnership fields instead of
computing ``seat % 2``, so that a per-hand partnership (find-friends) changes one place.
"""

from __future__ import annotations

import numpy as np

NUM_SEATS = 4


def team(seat):
    """Fixed partnership: team (0 or 1) of ``seat``; works on ints and integer arrays."""
    return seat % 2


def partner(seat):
    """Fixed partnership: the partner of ``seat`` (ints or arrays)."""
    return (seat + 2) % 4


def same_team(a, b):
    """Fixed partnership: ``a`` and ``b`` are partners or the same seat (ints or arrays)."""
    return team(a) == team(b)


def team_seats(t: int) -> tuple[int, int]:
    """Fixed partnership: the two seats of team ``t``."""
    return (t, t + 2)


# FIXED_DEALER_SIDE[dealer, seat]: seat is on the dealer side when ``dealer`` deals (read-only)
FIXED_DEALER_SIDE = same_team(np.arange(4)[:, None], np.arange(4)[None, :])
FIXED_DEALER_SIDE.flags.writeable = False

# SEATS_OF_TEAM[t]: bool[4], the seats of team t in the fixed partnership (read-only)
SEATS_OF_TEAM = team(np.arange(4))[None, :] == np.arange(2)[:, None]
SEATS_OF_TEAM.flags.writeable = False


__all__ = ["FIXED_DEALER_SIDE", "NUM_SEATS", "SEATS_OF_TEAM", "partner", "same_team", "team",
           "team_seats"]
