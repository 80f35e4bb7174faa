"""Find-friends card play for ``HeuristicAgent`` (RULES.md §10.6): the rules only this mode uses.

``HeuristicAgent`` calls :func:`plan_play` only when the observation has the find-friends blocks
(``view.my_side is not None``), so fixed-partnership play is untouched. Six rules on top of
``heuristic_play.plan_lead`` / ``plan_follow``:

* **keep a trump for the last trick**: the kitty's points, multiplied, go to the attackers when
  one of them wins the last trick (§10.1). From ``RESERVE_FROM`` cards in hand on, a player keeps
  his best trump for his last card when at most ``RESERVE_SLACK`` unseen cards rank with it or
  above (a card no unseen card beats wins the last trick whatever is led); from
  ``RESERVE_ANY_FROM`` cards on he keeps his best trump whatever its rank (at the last trick
  every hand holds one card, and any trump beats an off-suit lead that nobody ruffs higher).
  The dealer, who knows the kitty, does so only when he buried points.
* **take a point trick with a probable winner**: in find-friends a player cannot count on the
  seats around him (the partners are hidden for most of the hand, and the dealer picked his
  friend by a card, not by skill), so who wins a trick is mostly up to himself. Following a
  single lead, when the trick already holds points and the planned play does not win it, he
  plays instead the lowest single that beats the current winner and that at most
  ``TAKE_SLACK`` unseen cards beat — in the led suit, only when nobody after him who may be an
  opponent may ruff (a strong player holding one of those few cards will still overtake; a
  careless one often will not). Not when a partner already wins the trick for sure.
* **the last cards as one unit**: a leader whose whole hand is one unit of two or more cards (a
  pair, a triple, a tractor, RULES.md §6.1) leads it whole. That trick is then the last one, and
  its lead's structure sets the kitty multiplier (§10.2: ×4 for a pair instead of ×2 for a
  single); the unit is also harder to beat than its cards one by one (only a higher unit of its
  shape, or a trump one, takes it), while the last-trick reserve would have split it.
* **the friend leads high**: the friend of a dealer whose play he cannot count on (a random or
  weak dealer will not win the tricks the friend gives away) leads, instead of a low single that
  gives the lead away, a high single without points that at most ``LEAD_HIGH_SLACK`` unseen cards
  beat, in a suit no attacker may ruff.
* **the dealer draws trumps with a probable winner**: a dealer about to lead a single trump
  without points that more than ``DRAW_SLACK`` unseen trumps beat leads instead his lowest trump
  without points that at most ``DRAW_SLACK`` unseen trumps beat, when he has one. A low trump
  draws the others' trumps, but hands the trick and the lead to whoever holds a higher one —
  more often an attacker than the friend, whom he cannot count on to win it; a probable winner
  draws trumps as well and keeps the lead for his next one.
* **the dealer leads a probable winner**: likewise, instead of a low off-suit single, the dealer
  leads the top card of a suit no rival may ruff that at most ``DEALER_HIGH_SLACK`` unseen cards
  beat — a king while one ace is out is one: it usually wins, with its own points, and keeps
  the lead. (The friend's high lead above leaves point cards out: letting a king with one
  unseen card above it in did not help the friend in paired runs.)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from shengji_env import cards
from shengji_env.rules import TRUMP, decompose, is_legal_follow

from .heuristic_play import POINTS, Table, _in_suit_wins, plan_follow, plan_lead

__all__ = ["RESERVE_FROM", "RESERVE_SLACK", "RESERVE_ANY_FROM", "LEAD_HIGH_SLACK", "TAKE_SLACK",
           "TAKE_POINTS", "DRAW_SLACK", "DEALER_HIGH_SLACK", "last_trick_reserve", "last_unit",
           "lead_high", "draw_high", "dealer_high", "take_probable", "plan_play"]

#: the last-trick trump is kept from this many cards in hand on
RESERVE_FROM = 12
#: ... when at most this many unseen cards rank with it or above
RESERVE_SLACK = 4
#: ... and from this many cards in hand on whatever its rank
RESERVE_ANY_FROM = 10
#: the friend leads a high single that at most this many unseen cards beat
LEAD_HIGH_SLACK = 2
#: a follow that at most this many unseen cards beat is played to take a point trick ...
TAKE_SLACK = 2
#: ... holding at least this many points (with the follow's own)
TAKE_POINTS = 5
#: the dealer draws trumps with a single that at most this many unseen trumps beat
DRAW_SLACK = 1
#: the dealer leads an off-suit single that at most this many unseen cards beat
DEALER_HIGH_SLACK = 1


def last_trick_reserve(t: Table) -> np.ndarray | None:
    """``int64[54]`` — the one card to keep for the last trick (module docstring), or None."""
    if not 2 <= t.cards_left <= RESERVE_FROM:
        return None
    if t.view.dealer == 0 and not int(POINTS @ t.view.kitty.astype(np.int64)):
        return None  # I am the dealer and buried no points: the last trick is only a trick
    trumps = np.flatnonzero((t.eff == TRUMP) & (t.hand > 0))
    if not trumps.size:
        return None
    best = int(trumps[np.argmax(t.idx[trumps])])
    if (int(t.unseen[(t.eff == TRUMP) & (t.idx >= t.idx[best])].sum()) > RESERVE_SLACK
            and t.cards_left > RESERVE_ANY_FROM):
        return None
    out = np.zeros(54, dtype=np.int64)
    out[best] = 1
    return out


def last_unit(t: Table) -> np.ndarray | None:
    """For a leader, ``int64[54]`` — his whole hand when it is one unit of two or more cards of
    one suit (module docstring), else None."""
    if t.cards_left < 2:
        return None
    suits = np.unique(t.eff[t.hand > 0])
    if suits.size != 1:
        return None
    # one unit holding two or more cards is a pair, a triple, a quad or a tractor (k >= 2)
    if len(decompose(t.hand.astype(np.uint8), t.ctx)) != 1:
        return None
    return t.hand.copy()


def lead_high(t: Table, play: np.ndarray) -> np.ndarray | None:
    """For the friend (dealer side, not the dealer) about to lead ``play`` (``int64[54]``):
    ``int64[54]`` — a high single without points to lead instead (module docstring), or None to
    keep ``play``."""
    if t.view.my_side != 0 or t.view.dealer == 0:
        return None
    return _high_single(t, play, LEAD_HIGH_SLACK, points=False)


def dealer_high(t: Table, play: np.ndarray) -> np.ndarray | None:
    """For the dealer about to lead ``play`` (``int64[54]``): ``int64[54]`` — a probable winner
    to lead instead (module docstring; a point card may be it), or None to keep ``play``."""
    if t.view.dealer != 0:
        return None
    return _high_single(t, play, DEALER_HIGH_SLACK, points=True)


def _high_single(t: Table, play: np.ndarray, slack: int, points: bool) -> np.ndarray | None:
    """A high off-suit single ``int64[54]`` to lead instead of ``play`` when ``play`` is a low
    off-suit single (not a sure winner): the top card of a suit no rival may ruff that at most
    ``slack`` unseen cards beat (``points``: a point card may be it); among the suits, the card
    fewest unseen cards beat, then the highest. None when ``play`` is something else or no
    suit qualifies."""
    if int(play.sum()) != 1:
        return None
    c = int(np.flatnonzero(play)[0])
    if t.eff[c] == TRUMP or t.idx[c] > t.top_unseen(int(t.eff[c])):
        return None
    best, best_key = None, None
    for suit in range(4):
        mine = np.flatnonzero((t.eff == suit) & (t.hand > 0))
        if not mine.size or any(t.may_ruff(r, suit) for r in t.rivals):
            continue
        top = int(mine[np.argmax(t.idx[mine])])
        above = _unseen_above(t, top)
        if (POINTS[top] and not points) or above > slack:
            continue
        key = (above, -int(t.idx[top]))
        if best_key is None or key < best_key:
            best, best_key = top, key
    if best is None:
        return None
    out = np.zeros(54, dtype=np.int64)
    out[best] = 1
    return out


def draw_high(t: Table, play: np.ndarray) -> np.ndarray | None:
    """For the dealer about to lead ``play`` (``int64[54]``): ``int64[54]`` — the probable
    winner to draw trumps with instead (module docstring), or None to keep ``play``. Only a
    single trump without points is replaced."""
    if t.view.dealer != 0 or int(play.sum()) != 1:
        return None
    c = int(np.flatnonzero(play)[0])
    if t.eff[c] != TRUMP or POINTS[c] or _unseen_above(t, c) <= DRAW_SLACK:
        return None
    for d in sorted(np.flatnonzero((t.eff == TRUMP) & (t.hand > 0)).tolist(),
                    key=lambda d: t.idx[d]):  # lowest first
        if not POINTS[d] and _unseen_above(t, d) <= DRAW_SLACK:
            out = np.zeros(54, dtype=np.int64)
            out[d] = 1
            return out
    return None


def _unseen_above(t: Table, c: int) -> int:
    """How many unseen cards of card ``c``'s effective suit rank above it (a copy of equal rank
    does not: the first played of two equal cards wins)."""
    return int(t.unseen[(t.eff == t.eff[c]) & (t.idx > t.idx[c])].sum())


def take_probable(t: Table, play: np.ndarray) -> np.ndarray | None:
    """For a follow to a single lead, ``int64[54]`` — the probable winner to play instead of
    ``play`` (module docstring), or None to keep ``play``."""
    if t.view.leading or int(t.lead.sum()) != 1 or not t.after_me:
        return None
    winner = t.winner_pos()
    if t.order[winner] in t.partners and t.safe_against_later(t.plays[winner]):
        return None
    if t.winner_pos(t.plays + [play]) == len(t.plays):
        return None  # the planned play already wins
    suit = t.lead_suit
    if not t.suit_cards(t.hand, suit).any():
        return None  # ruffs: plan_follow's own rule
    if suit != TRUMP and any(t.may_ruff(r, suit) for r in t.after_me if r not in t.partners):
        return None
    points_now = sum(cards.points(p) for p in t.plays)
    best = None
    for _, u in _in_suit_wins(t, winner):
        c = int(np.flatnonzero(u)[0])
        above = _unseen_above(t, c)
        if above > TAKE_SLACK or points_now + cards.points(u) < TAKE_POINTS:
            continue
        if best is None or t.idx[c] < t.idx[best]:
            best = c
    if best is None:
        return None
    out = np.zeros(54, dtype=np.int64)
    out[best] = 1
    return out


def plan_play(t: Table) -> np.ndarray:
    """The whole lead or follow ``int64[54]`` in find-friends mode: the last cards as one unit;
    else ``plan_lead`` / ``plan_follow`` on the hand without the last-trick reserve (a follow
    only when that is legal for the whole hand), then the friend's high lead, the dealer's
    probable winners (a trump to draw trumps, an off-suit single), or the probable winner of
    a point trick."""
    reserve = last_trick_reserve(t)
    kept = t if reserve is None else dataclasses.replace(t, hand=t.hand - reserve)
    if t.view.leading:
        whole = last_unit(t)
        if whole is not None:
            return whole
        play = plan_lead(kept)
        for rule in (lead_high, draw_high, dealer_high):
            high = rule(kept, play)
            if high is not None:
                return high
        return play
    if reserve is not None:
        play = plan_follow(kept)
        if is_legal_follow(t.hand.astype(np.uint8), t.lead.astype(np.uint8),
                           play.astype(np.uint8), t.ctx, t.rules):
            return _follow_extra(kept, play)
    return _follow_extra(t, plan_follow(t))


def _follow_extra(t: Table, play: np.ndarray) -> np.ndarray:
    """``play``, or the probable winner of a point trick (``take_probable``)."""
    take = take_probable(t, play)
    return play if take is None else take
