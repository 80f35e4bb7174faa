"""Trick play for ``HeuristicAgent``: what to lead and how to follow (RULES.md §7-9).

Everything is decided from one seat's decoded observation (``core.observe.ObservationView``),
never from hidden cards. ``Table`` gathers the facts a player can see; ``plan_lead`` and
``plan_follow`` return a whole play as a count vector ``int64[54]`` that the agent then emits
card by card. Guiding ideas, in the words of the game:

* **lead** safe winners (units no unseen card can beat, in suits no opponent is known to be
  void in; several safe units of one suit are thrown together, so the throw cannot fail), a low
  card of a suit the partner can ruff, trump to draw when the dealer side is long in trump,
  otherwise low pairs and low singles of short suits (to make voids), never needless points;
* **follow**: a partner who is sure to win gets points; otherwise win point tricks with the
  smallest sure winning play or the cheapest ruff; otherwise play the cheapest legal cards.

Cost of a card = how much we would miss it: strength in its suit, trump, sure-winner status,
being half of a pair, and (when the opponents would get it) its points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from shengji_env import cards
from shengji_env.rules import (
    TRUMP,
    TrumpContext,
    decompose,
    follow_tuples,
    is_legal_follow,
    legal_next_cards,
    suit_layout,
    trick_winner,
)

POINTS = cards.POINTS.astype(np.int64)
TRUMP_BONUS = 14.0  # a trump is worth more than any off-suit card (order indices reach 11)

__all__ = ["Table", "pick_cheapest", "plan_follow", "plan_lead", "units_of_shape"]


def units_of_shape(counts: np.ndarray, suit: int, k: int, length: int,
                   ctx: TrumpContext) -> list[tuple[int, np.ndarray]]:
    """Every ``(top, cards int64[54])`` unit of shape (k, length) that ``counts`` holds in
    ``suit`` (RULES.md §6.1); at a position with several identities the first one with k copies."""
    pick = _picks(counts, suit, k, ctx)
    out = []
    for top in _tops(pick, length):
        u = np.zeros(54, dtype=np.int64)
        u[list(pick[top - length + 1: top + 1])] = k
        out.append((top, u))
    return out


def unit_tops(counts: np.ndarray, suit: int, k: int, length: int, ctx: TrumpContext) -> list[int]:
    """The tops of :func:`units_of_shape`'s units, low to high, without building the units."""
    return _tops(_picks(counts, suit, k, ctx), length)


def _tops(pick: tuple[int, ...], length: int) -> list[int]:
    """Positions where ``length`` consecutive positions of ``pick`` (``_picks``) all hold one."""
    return [top for top in range(length - 1, len(pick)) if min(pick[top - length + 1: top + 1]) >= 0]


def _picks(counts: np.ndarray, suit: int, k: int, ctx: TrumpContext) -> tuple[int, ...]:
    """Per position of ``suit`` (low → high), the first identity (suit order) of which
    ``counts`` holds at least ``k`` copies, -1 for none. Cached: rollouts ask for the same
    holdings many times."""
    def compute():
        have = counts.tolist()  # Python ints: element access on arrays is slow
        return tuple(next((c for c in ids if have[c] >= k), -1) for ids in suit_layout(suit, ctx))

    return ctx.memo("heuristic_picks", (suit, k, counts.dtype.char, counts.tobytes()), compute)


def _ctx_tables(ctx: TrumpContext) -> tuple:
    """Per trump context, read-only: effective suit and order index of each card id
    (``int64[54]``), one ``bool[54]`` mask per effective suit, and each card's strength
    (order index, plus ``TRUMP_BONUS`` for trumps; ``float64[54]``)."""
    def compute():
        eff = ctx.effective_suits.astype(np.int64)
        idx = ctx.order_indices.astype(np.int64)
        masks = [eff == s for s in range(5)]
        strength = idx + np.where(eff == TRUMP, TRUMP_BONUS, 0.0)
        for a in (eff, idx, *masks, strength):
            a.flags.writeable = False
        return eff, idx, masks, strength

    return ctx.memo("heuristic", "tables", compute)


def pick_cheapest(pool: np.ndarray, n: int, cost: np.ndarray) -> np.ndarray:
    """``int64[54]`` — the ``n`` cheapest physical cards of ``pool`` under ``cost`` float[54]."""
    ids = np.repeat(np.arange(54), pool)
    chosen = ids[np.argsort(cost[ids], kind="stable")[:n]]
    return np.bincount(chosen, minlength=54).astype(np.int64)


@dataclass
class Table:
    """What one seat sees at a play decision, in derived form (relative seats: 0 me, 2 partner).

    ``hand``/``unseen``: ``int64[54]`` — my cards; cards I have not seen (other hands and, unless
    I am the dealer, the kitty). ``plays``: the current trick's plays in playing order.
    ``partners``: relative seats known to be on my side (fixed partnership: {2}; find-friends:
    what the observation tells, see :func:`known_partners`); ``rivals``: every other seat
    but me (seats of unknown side count as rivals: they may ruff or overtake).
    """

    view: object
    rules: object
    ctx: TrumpContext
    hand: np.ndarray
    unseen: np.ndarray
    eff: np.ndarray
    idx: np.ndarray
    order: list = field(default_factory=list)   # relative seats in playing order of this trick
    plays: list = field(default_factory=list)   # int64[54] each, the plays so far
    after_me: list = field(default_factory=list)  # relative seats still to play after me
    partners: frozenset = frozenset({2})
    rivals: tuple = (1, 3)
    dealer_side: bool = False  # I am (or, find-friends, probably am) on the dealer side
    _unseen_tops: dict = field(default_factory=dict)

    @classmethod
    def build(cls, view, rules, ctx: TrumpContext) -> Table:
        hand = view.hand.astype(np.int64)
        seen = hand + view.played.astype(np.int64).sum(axis=0)
        if view.dealer == 0:
            seen = seen + view.kitty
        unseen = np.maximum(np.full(54, rules.decks, dtype=np.int64) - seen, 0)
        eff, idx, _, _ = _ctx_tables(ctx)
        t = cls(view, rules, ctx, hand, unseen, eff, idx)
        t.dealer_side = bool(view.dealer_side)
        if view.my_side is not None:  # find-friends (RULES.md §10.6)
            t.partners = known_partners(view, t.eff, rules.decks)
            t.rivals = tuple(r for r in (1, 2, 3) if r not in t.partners)
            t.dealer_side = t.dealer_side or view.dealer in t.partners
        if not view.leading and view.trick_leader >= 0:
            t.order = [(view.trick_leader + i) % 4 for i in range(4)]
            me = t.order.index(0)
            t.plays = [view.trick[r].astype(np.int64) for r in t.order[:me]]
            t.after_me = t.order[me + 1:]
        return t

    # ---------------------------------------------------------------- derived facts
    @property
    def _suit_masks(self) -> list[np.ndarray]:
        return _ctx_tables(self.ctx)[2]  # bool[54] per effective suit

    def suit_cards(self, counts: np.ndarray, suit: int) -> np.ndarray:
        return np.where(self._suit_masks[suit], counts, 0)

    @cached_property
    def _top_unseen(self) -> list[int]:
        """Highest order index among unseen cards of each effective suit (-1: none)."""
        tops = np.full(5, -1, dtype=np.int64)
        seen = self.unseen > 0
        np.maximum.at(tops, self.eff[seen], self.idx[seen])
        return tops.tolist()

    def top_unseen(self, suit: int) -> int:
        """Highest order index among unseen cards of ``suit`` (-1: none)."""
        return self._top_unseen[suit]

    def unseen_top(self, suit: int, k: int, length: int) -> int:
        """Highest top of a (k, length) unit the unseen cards could form in ``suit`` (-1: none).
        A unit of mine with a top at least this high cannot be beaten (§7.3)."""
        key = (suit, k, length)
        if key not in self._unseen_tops:
            self._unseen_tops[key] = max(unit_tops(self.unseen, suit, k, length, self.ctx),
                                         default=-1)
        return self._unseen_tops[key]

    def may_be_void(self, rel: int, suit: int) -> bool:
        """Could seat ``rel`` be void in ``suit``? Known voids, or almost no cards left unseen."""
        return (bool(self.view.voids[rel, suit])
                or int(self.suit_cards(self.unseen, suit).sum()) <= 2)

    def may_ruff(self, rel: int, suit: int) -> bool:
        return (suit != TRUMP and self.may_be_void(rel, suit)
                and not self.view.voids[rel, TRUMP])

    @property
    def cards_left(self) -> int:
        return int(self.hand.sum())

    @cached_property
    def costs(self) -> dict[str, np.ndarray]:
        """Per-card costs ``float64[54]``: ``keep`` (ducking), ``give`` (to a partner),
        ``discard`` (off-suit, when void): low = play it."""
        strength = _ctx_tables(self.ctx)[3]
        tops = np.array(self._top_unseen)
        winner = self.idx > tops[self.eff]
        pair = (self.hand >= 2) & (self.rules.decks >= 2)
        triple = self.hand >= 3  # 3-4 decks: a triple (or quad) is worth keeping whole
        base = strength + 6.0 * winner + 3.0 * pair + 3.0 * triple
        suit_len = np.bincount(self.eff, weights=self.hand, minlength=5)  # cards per suit
        short = 0.4 * suit_len[self.eff] * (self.eff != TRUMP)
        keep = base + 2.0 * POINTS
        return {"keep": keep, "give": base - 2.5 * POINTS, "discard": keep + short}

    # ---------------------------------------------------------------- trick state
    @property
    def lead(self) -> np.ndarray:
        return self.plays[0]

    @cached_property
    def lead_suit(self) -> int:
        return int(self.eff[int(self.lead.argmax())])  # a lead is one effective suit (§7.1)

    @cached_property
    def lead_units(self) -> list:
        """The lead's canonical decomposition (§6.2)."""
        return decompose(self.lead.astype(np.uint8), self.ctx)

    def winner_pos(self, plays=None) -> int:
        """Position (0 = leader) of the play winning ``plays`` (default: the trick so far)."""
        plays = self.plays if plays is None else plays
        if len(plays) == 1:
            return 0
        if int(plays[0].sum()) == 1:
            # single cards (most tricks), §9.3: the highest of the led suit, or the highest
            # trump once the off-suit lead is ruffed; equal cards: the first played wins
            suit = self.lead_suit
            best, best_key = 0, (0, -1)
            for i, p in enumerate(plays):
                c = int(np.flatnonzero(p)[0])
                e = int(self.eff[c])
                key = (1 if e != suit else 0, int(self.idx[c]))
                if (e == suit or (e == TRUMP and suit != TRUMP)) and key > best_key:
                    best, best_key = i, key
            return best
        return trick_winner([p.astype(np.uint8) for p in plays], self.ctx, self.rules)

    def safe_against_later(self, play: np.ndarray) -> bool:
        """Will ``play``, if winning now, still win after the players after me? Pessimistic:
        unseen cards may all sit with one later opponent."""
        later_opps = [r for r in self.after_me if r not in self.partners]
        if not later_opps:
            return True
        suit = self.lead_suit
        units = self.lead_units
        play_suit = int(self.eff[np.flatnonzero(play)[0]])
        if suit != TRUMP and any(self.may_ruff(r, suit) for r in later_opps):
            if play_suit != TRUMP:
                return False
            # my ruff may be overruffed: only if unseen trumps hold a higher primary unit
            k, length = units[0].shape
            mine = unit_tops(play, TRUMP, k, length, self.ctx)
            return bool(mine) and max(mine) >= self.unseen_top(TRUMP, k, length)
        if play_suit != suit or len(units) > 1:
            return True  # a validated throw or a ruff nobody after me can overruff
        k, length = units[0].shape
        mine = unit_tops(play, suit, k, length, self.ctx)
        return bool(mine) and max(mine) >= self.unseen_top(suit, k, length)


def known_partners(view, eff: np.ndarray | None = None, decks: int = 2) -> frozenset:
    """Find-friends: the relative seats known to be on my side, from the observation alone —
    the dealer for his friend (and for a seat of unknown side holding a copy of the friend card:
    it probably is the friend); the shown friend for the dealer, and before the show the seat
    that showed the friend card declaring when every other copy is his (``_declared_friend``);
    once the friend is shown, the other attackers for an attacker (before that, what the play
    proves: see :func:`_attackers_before_the_show`; ``eff``: the effective suit of each card
    id). Other seats of unknown side are not partners. ``decks``: copies of each card."""
    shown, dealer = view.friend_shown, view.dealer
    if view.my_side == 0:  # dealer side
        if dealer == 0:
            if shown > 0:
                return frozenset({shown})
            return _declared_friend(view, decks)
        return frozenset({dealer})
    if view.my_side == 1 and shown >= 0:  # attackers, and the friend is known
        return frozenset({1, 2, 3} - {dealer, shown})
    card = view.friend_card
    if view.my_side == 1 and card >= 0 and eff is not None:
        return _attackers_before_the_show(view, card, eff, decks)
    if view.my_side == 2 and card >= 0 and view.hand[card] + view.played[0, card] > 0:
        return frozenset({dealer})  # I may well be the friend: back the dealer
    return frozenset()


def _declared_friend(view, decks: int) -> frozenset:
    """The dealer's hidden friend, known to him alone, when the friend card is one a seat
    showed in a declaration and every other copy is the dealer's (in hand, played or buried):
    that seat (``heuristic.shown_friend_card`` names such a card)."""
    card = view.friend_card
    if card < 0:
        return frozenset()
    mine = int(view.hand[card]) + int(view.played[0, card]) + int(view.kitty[card])
    for r in (1, 2, 3):
        if view.shown[r, card] > 0 and int(view.shown[r, card]) + mine >= decks:
            return frozenset({r})
    return frozenset()


def _attackers_before_the_show(view, card: int, eff: np.ndarray, decks: int) -> frozenset:
    """An attacker's partners while the friend is hidden, from public play only. A seat that
    played a copy of the friend card without showing itself, or that is void in the friend
    card's suit, holds no copy and so is not the friend (RULES.md §10.6): it is an attacker.
    When the dealer has played every copy he is alone and all three others are attackers."""
    dealer = view.dealer
    others = [r for r in (1, 2, 3) if r != dealer]
    if view.played[dealer, card] >= decks:
        return frozenset(others)
    suit = int(eff[card])
    proven = [r for r in others if view.played[r, card] > 0 or view.voids[r, suit]]
    return frozenset(proven) if len(proven) == 1 else frozenset()


# -------------------------------------------------------------------------------- leading

def _ruff_danger(t: Table, suit: int) -> bool:
    return any(t.may_ruff(r, suit) for r in t.rivals)


def plan_lead(t: Table) -> np.ndarray:
    """The whole lead ``int64[54]`` (one effective suit, non-empty)."""
    hand, ctx, view = t.hand, t.ctx, t.view
    cost = t.costs["keep"]
    present = [s for s in range(5) if t.suit_cards(hand, s).any()]
    options: list[tuple[float, np.ndarray]] = []
    my_trumps = int(t.suit_cards(hand, TRUMP).sum())
    unseen_trumps = int(t.suit_cards(t.unseen, TRUMP).sum())
    opps_out_of_trump = all(view.voids[r, TRUMP] for r in t.rivals)
    for s in present:
        mine = t.suit_cards(hand, s)
        units = decompose(mine.astype(np.uint8), ctx)
        safe = [u for u in units
                if u.top >= t.unseen_top(s, u.k, u.length)]
        if s != TRUMP:
            if safe and not _ruff_danger(t, s):
                play = sum(u.counts.astype(np.int64) for u in safe)
                options.append((100 + 8 * play.sum() + cards.points(play), play))
            # the partner can ruff: lead my cheapest card of the suit
            if (any(view.voids[p, s] and not view.voids[p, TRUMP] for p in t.partners)
                    and not any(view.voids[r, s] for r in t.rivals)):
                options.append((90, pick_cheapest(mine, 1, cost)))
            # low pairs / tractors (triples, Titanics) without points: make the opponents
            # spend structure; the bigger the tuple, the harder it is to match
            for u in units:
                if u.k >= 2 and not cards.points(u.counts) and not _ruff_danger(t, s):
                    options.append((40 + 4 * u.length + 4 * (u.k - 2) - u.top,
                                    u.counts.astype(np.int64)))
            # a low single from a short suit, working towards a void to ruff in; not from a
            # suit whose point cards would then be caught
            low = pick_cheapest(mine, 1, cost)
            c = int(np.flatnonzero(low)[0])
            if not POINTS[c]:
                options.append((30 - 2 * mine.sum() - 0.5 * t.idx[c] - 3 * (hand[c] >= 2)
                                - 0.3 * cards.points(mine), low))
        else:
            # long in trump: draw the opponents' trumps (the dealer side, or anyone holding
            # more trumps than all the others together)
            strong = (my_trumps >= max(3, unseen_trumps // 2) and not opps_out_of_trump
                      and (t.dealer_side or my_trumps >= unseen_trumps))
            if safe and (strong or (t.dealer_side and t.cards_left <= 6)):
                play = sum(u.counts.astype(np.int64) for u in safe)
                options.append((85 + play.sum(), play))
            low = pick_cheapest(mine, 1, cost)
            if strong:
                for u in units:
                    if u.k >= 2:
                        options.append((50 + 2 * u.length - 0.5 * u.top, u.counts.astype(np.int64)))
                if not cards.points(low):
                    options.append((45 - 0.5 * t.idx[int(low.argmax())], low))
            options.append((10 - 0.5 * cost[int(low.argmax())], low))
    if not options:
        return pick_cheapest(hand, 1, cost)
    return max(options, key=lambda o: o[0])[1]


# ------------------------------------------------------------------------------ following

def _cheap_follow(t: Table, cost: np.ndarray) -> np.ndarray:
    """The cheapest in-suit follow meeting the structure obligation (§8.2), for a player with
    at least n cards of the led suit: the lead's tractors if I have them (longest first), then
    pairs up to the lead's pairs, then single cards — each time the cheapest under ``cost``.
    Checked with ``is_legal_follow``; the slow card-by-card construction is the fallback."""
    suit, n = t.lead_suit, int(t.lead.sum())
    mine = t.suit_cards(t.hand, suit)
    if n == 1 or t.rules.decks == 1:
        return pick_cheapest(mine, n, cost)
    if t.rules.decks >= 3:
        # §8.3: the cheapest committed set of some greedy assignment, then the cheapest rest
        ws = follow_tuples.witnesses(mine, t.lead, t.ctx, t.rules)
        if ws:
            w = min(ws, key=lambda w: float(cost @ w))
            return w + pick_cheapest(mine - w, n - int(w.sum()), cost)
        return _greedy_follow(t, cost)
    units = t.lead_units
    pairs_led = sum(u.length for u in units if u.k == 2)
    rest, play, pairs = mine.copy(), np.zeros(54, dtype=np.int64), 0
    for m in sorted((u.length for u in units if u.k == 2 and u.length >= 2), reverse=True):
        found = units_of_shape(rest, suit, 2, m, t.ctx)
        if found:
            u = min((u for _, u in found), key=lambda u: float(cost @ u))
            play, rest, pairs = play + u, rest - u, pairs + m
    while pairs < pairs_led:
        doubles = np.flatnonzero(rest >= 2)
        if not doubles.size:
            break
        c = int(doubles[np.argmin(cost[doubles])])
        play[c] += 2
        rest[c] -= 2
        pairs += 1
    play += pick_cheapest(rest, n - int(play.sum()), cost)
    if is_legal_follow(t.hand.astype(np.uint8), t.lead.astype(np.uint8), play.astype(np.uint8),
                       t.ctx, t.rules):
        return play
    return _greedy_follow(t, cost)


def _greedy_follow(t: Table, cost: np.ndarray) -> np.ndarray:
    """A legal follow built card by card, cheapest legal card first (``legal_next_cards``)."""
    lead = t.lead.astype(np.uint8)
    hand = t.hand.astype(np.uint8)
    n = int(t.lead.sum())
    sel = np.zeros(54, dtype=np.uint8)
    for _ in range(n):
        legal = legal_next_cards(hand, lead, sel, t.ctx, t.rules)
        c = int(np.flatnonzero(legal)[np.argmin(cost[legal])])
        sel[c] += 1
    return sel.astype(np.int64)


def _in_suit_wins(t: Table, winner: int) -> list[tuple[int, np.ndarray]]:
    """My plays of the lead's (simple) shape that beat the current in-suit winner."""
    units = t.lead_units
    if len(units) != 1:
        return []  # a validated throw cannot be beaten in its suit (§9.3)
    k, length = units[0].shape
    suit = t.lead_suit
    best = unit_tops(t.plays[winner], suit, k, length, t.ctx)
    if not best:
        return []
    mine = units_of_shape(t.suit_cards(t.hand, suit), suit, k, length, t.ctx)
    return [(tp, u) for tp, u in mine if tp > max(best)]


def _ruffs(t: Table, winner: int) -> list[np.ndarray]:
    """My ruffs (all-trump plays reproducing the lead's structure, §9.1) that would win now."""
    units = t.lead_units
    trumps = t.suit_cards(t.hand, TRUMP)
    n = int(t.lead.sum())
    if trumps.sum() < n:
        return []
    if len(units) == 1:
        k, length = units[0].shape
        best = -1  # an in-suit winner is beaten by any ruff; a ruff only by a higher one (§9.2)
        if int(t.eff[np.flatnonzero(t.plays[winner])[0]]) == TRUMP:
            best = max(unit_tops(t.plays[winner], TRUMP, k, length, t.ctx),
                       default=99)
        return [u for tp, u in units_of_shape(trumps, TRUMP, k, length, t.ctx) if tp > best]
    # a throw: the lowest trump units of each shape, singles from the cheapest rest
    rest = trumps.copy()
    play = np.zeros(54, dtype=np.int64)
    for u in units:
        if u.k == 1:
            continue
        found = units_of_shape(rest, TRUMP, u.k, u.length, t.ctx)
        if not found:
            return []
        play += found[0][1]
        rest -= found[0][1]
    play += pick_cheapest(rest, n - int(play.sum()), t.costs["keep"])
    return [play] if t.winner_pos(t.plays + [play]) == len(t.plays) else []


def _choose_ruff(t: Table, winner: int, points_now: int, late: bool,
                 c: dict) -> np.ndarray | None:
    """The ruff to play, or None. A ruff nobody after me can overruff is worth it on a point
    trick, or when my partner still plays (he can add points to it); its point trumps are then
    banked. An uncertain ruff is tried only on a big trick."""
    ruffs = _ruffs(t, winner)
    if not ruffs:
        return None
    safe = [r for r in ruffs if t.safe_against_later(r)]
    if safe:
        cheap = min(safe, key=lambda r: float(c["keep"] @ r))
        banked = min(safe, key=lambda r: float(c["give"] @ r))
        low = float(c["keep"] @ cheap) <= (TRUMP_BONUS + 6) * int(cheap.sum())
        if points_now >= 5 or late or (bool(t.partners & set(t.after_me)) and low):
            return banked if points_now >= 5 or late else cheap
        return None
    if points_now >= 15 or late:
        return max(ruffs, key=lambda r: float(c["keep"] @ r))
    return None


def plan_follow(t: Table) -> np.ndarray:
    """The whole follow ``int64[54]`` (legal by construction; the caller double-checks)."""
    c = t.costs
    n = int(t.lead.sum())
    suit = t.lead_suit
    mine = t.suit_cards(t.hand, suit)
    have = int(mine.sum())
    winner = t.winner_pos()
    winner_rel = t.order[winner]
    partner_wins = winner_rel in t.partners
    partner_safe = partner_wins and t.safe_against_later(t.plays[winner])
    points_now = sum(cards.points(p) for p in t.plays)
    late = t.cards_left <= 2 * n  # one of the last two tricks: the kitty is at stake
    if have == 0:
        if partner_safe:
            return pick_cheapest(t.hand, n, c["give"])
        if suit != TRUMP and not partner_wins:
            ruff = _choose_ruff(t, winner, points_now, late, c)
            if ruff is not None:
                return ruff
        return pick_cheapest(t.hand, n, c["discard"])
    if have < n:
        rest = t.hand - mine
        return mine + pick_cheapest(rest, n - have, c["give"] if partner_safe else c["discard"])
    if partner_safe:
        return _cheap_follow(t, c["give"])
    ruffed = t.lead_suit != TRUMP and int(t.eff[np.flatnonzero(t.plays[winner])[0]]) == TRUMP
    duck = _cheap_follow(t, c["keep"])
    lost = cards.points(duck)  # points I give away by ducking
    if not ruffed:
        wins = _in_suit_wins(t, winner)
        safe = [(tp, u) for tp, u in wins if t.safe_against_later(u)]
        if safe:
            u = min(safe, key=lambda x: (x[0], c["keep"][x[1] > 0].sum()))[1]
            total = points_now + cards.points(u)
            # take over from a partner who may still be beaten only when it secures points
            if partner_wins:
                if total >= 10:
                    return u
            elif total > 0 or lost > 0 or not t.after_me or late:
                return u
        elif wins and not partner_wins:
            u = max(wins, key=lambda x: x[0])[1]
            # a gamble: on a big trick with one player left, or when ducking costs as many
            # points as trying (e.g. K 10 left, a low card led: the K may win)
            if (((points_now >= 10 or late) and len(t.after_me) <= 1)
                    or (lost > 0 and cards.points(u) <= lost)):
                return u
    return duck
