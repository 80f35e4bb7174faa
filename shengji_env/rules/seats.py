"""Seats and partnerships: the one place that knows who plays with whom.

Seats 0-3 sit in playing order. In the fixed partnership (``partnership="FIXED"``, the default,
RULES.md §2) seats ``i`` and ``i + 2`` are partners: team 0 = seats 0 and 2, team 1 = seats 1
and 3. Everything else (the engine's ``dealer_side: bool[B, 4]``, the reference game, scoring,
observations, agents) asks these helpers or reads the per-hand partnership fields instead of
computing ``seat % 2``, so that a per-hand partnership (find-friends) changes one place.

Find-friends (``partnership="FIND_FRIEND"``, RULES.md §10.6): the dealer side is the dealer and
the friend that ``rules.scoring.resolve_friend`` finds when the friend card is named; the engine
stores it in ``dealer_side``. What a seat *knows* of its own side before the friend reveals
himself is :func:`known_side`.
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


#: find-friends: what a seat knows of its own side (:func:`known_side`)
KNOWN_DEALER_SIDE, KNOWN_ATTACKER, SIDE_UNKNOWN = 0, 1, 2


def known_side(seat, dealer, named, decks: int, held, copies_played, friend_shown):
    """``int64[B]`` — what ``seat`` can tell of its own side in find-friends mode (RULES.md §10.6).

    ``seat``, ``dealer``, ``named`` (the friend card, -1 not named yet), ``friend_shown`` (the
    friend's seat once he has played a copy of the friend card, else -1): ``int[B]``;
    ``held``: ``int[B]`` — copies of the friend card the seat held when it was named (its hand
    plus what it has played since); ``copies_played``: ``int[B, 4]`` — copies of the friend card
    each seat has played this hand (public). Only what the seat sees is used, so the result never
    leaks the hidden partnership. Rules, in order:

    * the dealer: ``KNOWN_DEALER_SIDE``; nothing named yet: ``SIDE_UNKNOWN``;
    * the friend has revealed himself: everyone knows (the friend: dealer side, the others
      attackers);
    * I held no copy, or a seat between the dealer and me (in playing order) has played one: I
      cannot be the first holder after the dealer → ``KNOWN_ATTACKER``;
    * I held a copy and I am the dealer's next player, or every copy I do not hold has been
      played by the dealer or by seats after me → no seat between us holds one →
      ``KNOWN_DEALER_SIDE``;
    * otherwise ``SIDE_UNKNOWN``.
    """
    seat, dealer, named = (np.asarray(x, dtype=np.int64) for x in (seat, dealer, named))
    held, shown = np.asarray(held, dtype=np.int64), np.asarray(friend_shown, dtype=np.int64)
    played = np.asarray(copies_played, dtype=np.int64)
    pos = (np.arange(4)[None, :] - dealer[:, None]) % 4     # int[B, 4]: seats after the dealer
    mine = ((seat - dealer) % 4)[:, None]
    between = (((pos > 0) & (pos < mine)) * played).sum(1)
    outside = ((pos == 0) | (pos > mine)) * played
    out = np.full(seat.shape, SIDE_UNKNOWN, dtype=np.int64)
    certain = (mine[:, 0] == 1) | (held + outside.sum(1) >= decks)
    out = np.where((held > 0) & certain, KNOWN_DEALER_SIDE, out)
    out = np.where((held == 0) | (between > 0), KNOWN_ATTACKER, out)
    out = np.where(shown >= 0, np.where(seat == shown, KNOWN_DEALER_SIDE, KNOWN_ATTACKER), out)
    out = np.where(named < 0, SIDE_UNKNOWN, out)
    return np.where((seat == dealer) & (dealer >= 0), KNOWN_DEALER_SIDE, out)


__all__ = ["FIXED_DEALER_SIDE", "KNOWN_ATTACKER", "KNOWN_DEALER_SIDE", "NUM_SEATS", "SEATS_OF_TEAM",
           "SIDE_UNKNOWN", "known_side", "partner", "same_team", "team", "team_seats"]
