"""Worlds to engine states: a seat's view plus sampled hidden cards → a ``BatchState``.

A search agent (``agents.search``) samples *worlds* — the hidden cards of the other seats and of
the kitty, consistent with what one seat knows — and plays them out in the batched engine. This
module turns W worlds into a W-game ``BatchState`` at the seat's PLAY decision. Everything comes
from the seat's decoded observation (``observe.ObservationView``) and the given hidden cards;
nothing from any real game's state. The seat sits at absolute seat 0 of every world, so the
relative seats of its view are the worlds' absolute seats (and ``observe`` of a world for seat 0
gives back the seat's own observation: tested).

Facts an observation does not hold and the rest of a hand does not need are neutral: the deal
order and declaration history (the deal is over), the decision log, random streams (a hand
episode never deals again), the last finished trick. The attackers' points so far are stored as
``captured`` (the observation gives ``captured + penalty``; only their sum is scored, §10).

Find-friends (RULES.md §10.6): each world's friend is resolved from its own holdings when the
card was named — every seat's cards in the world plus what it has played since (the kitty
belongs to nobody) — by :func:`friend_of_worlds`, which equals ``rules.scoring.resolve_friend``
(tested); :func:`friend_consistent` tells which worlds agree with what the seat knows of the
friend (a search keeps only those). The observation gives the points won by the seats not known
to be on the dealer side, not each seat's: before the friend shows himself the points of the
tricks he won are counted for the attackers, as the table counts them (``attacker_points``), so a
world's attackers' score would be that many points too high until then. A searching seat that
saw the whole hand rebuilds each seat's points from it (``agents.search.history.trick_points``:
each trick's cards and its winner, who leads the next) and passes them (``points_won``): each
world then scores its own attackers' trick points exactly. Without them each world credits the observed points
to one of its true attackers (and leaves out a throw penalty, which the observation adds only
once the friend is shown). Either way the seat's observation of every world is exactly its own.
"""

from __future__ import annotations

import numpy as np

from ..rules import seats
from ..rules.actions import Phase
from .state import BatchState
from .tables import context_id
from .trick import _has_tractor

__all__ = ["friend_consistent", "friend_of_worlds", "world_states"]


def friend_of_worlds(view, hands: np.ndarray) -> np.ndarray:
    """``int64[W]`` — each world's friend in find-friends mode (relative seat; -1: the dealer
    plays alone), by RULES.md §10.6 on the holdings when the friend card was named: the first
    seat after the dealer, in playing order, holding a copy (its hand ``hands uint8[W, 4, 54]``
    plus the copies it has played since, the current trick included)."""
    card = int(view.friend_card)
    W = len(hands)
    if card < 0:
        return np.full(W, -1, dtype=np.int64)
    held = hands[:, :, card].astype(np.int64) + view.played[:, card].astype(np.int64)[None]
    order = (int(view.dealer) + np.arange(1, 4)) % 4
    has = held[:, order] > 0                                   # bool[W, 3]
    return np.where(has.any(1), order[has.argmax(1)], -1)


def friend_consistent(view, hands: np.ndarray) -> np.ndarray:
    """``bool[W]`` — the worlds whose friend (:func:`friend_of_worlds`) agrees with what the seat
    knows: the friend it saw show himself; else a friend who has not played a copy yet (his
    first copy shows him) or none; and its own side when it knows it (``my_side``)."""
    return _agrees(view, friend_of_worlds(view, hands))


def _agrees(view, f: np.ndarray) -> np.ndarray:
    """``bool[W]`` — worlds whose friend ``f`` (``int64[W]``) agrees with the seat's view."""
    if view.friend_card < 0:
        return np.ones(len(f), dtype=bool)
    if view.friend_shown >= 0:
        ok = f == view.friend_shown
    else:
        ok = (f < 0) | (view.played[np.maximum(f, 0), view.friend_card] == 0)
    if view.dealer != 0 and view.my_side == seats.KNOWN_DEALER_SIDE:
        ok &= f == 0
    elif view.dealer != 0 and view.my_side == seats.KNOWN_ATTACKER:
        ok &= f != 0
    return ok


def world_states(eng, view, hands: np.ndarray, kitty: np.ndarray, *,
                 own_hand: bool = True, points_won=None) -> BatchState:
    """A ``BatchState`` of W games, one per world, at ``view``'s PLAY decision.

    ``view``: the deciding seat's ``ObservationView`` (phase PLAY); ``hands``: ``uint8[W, 4,
    54]`` — cards of each *relative* seat (row 0 must be the view's hand, unless
    ``own_hand=False``: the dealer's bury candidates, each world with the cards its bury keeps);
    ``kitty``: ``uint8[W, 54]`` — the buried kitty of each world. Find-friends: every world
    must agree with what the seat knows of the friend (:func:`friend_consistent`);
    ``points_won`` (``int[4]``, relative seats, optional): the points of the tricks each seat has
    won, when the caller knows them from the hand's play (``agents.search.history.trick_points``)
    — then each world scores its own attackers exactly.
    """
    cfg = eng.cfg
    if view.phase != Phase.PLAY:
        raise ValueError(f"world_states needs a PLAY decision, got phase {view.phase.name}")
    hands = np.asarray(hands, dtype=np.uint8)
    kitty = np.asarray(kitty, dtype=np.uint8)
    W = hands.shape[0]
    if hands.shape != (W, 4, 54) or kitty.shape != (W, 54):
        raise ValueError(f"hands must be uint8[W, 4, 54] and kitty uint8[W, 54]; got "
                         f"{hands.shape} and {kitty.shape}")
    if own_hand and not (hands[:, 0] == view.hand).all():
        raise ValueError("row 0 of every world's hands must be the seat's own hand")
    s = BatchState.zeros(W, cfg)
    s.hands[:] = hands
    s.kitty[:] = kitty
    s.picked_up[:] = kitty
    s.selection[:] = view.selection
    s.trick[:] = view.trick
    s.played[:] = view.played - view.trick  # the observation's played includes this trick
    s.shown[:] = view.shown
    s.revealed[:] = view.revealed
    s.voids[:] = view.voids
    s.dealt[:] = view.cards_dealt
    s.window_seat[:] = -1
    s.decl_player[:] = view.declarer
    s.decl_kind[:] = view.declaration_kind
    s.decl_suit[:] = view.trump if view.declaration_kind == 0 else -1
    s.decl_k[:] = view.declaration_count
    s.first_declarer[:] = view.declarer
    s.phase[:] = Phase.PLAY
    s.to_act[:] = 0
    s.dealer[:] = view.dealer
    s.level[:] = view.level
    s.trump[:] = view.trump
    ctx = context_id(view.level, view.trump)
    s.ctx[:] = ctx
    s.eff[:] = eng.tables.eff[ctx]
    s.idx[:] = eng.tables.idx[ctx]
    if cfg.partnership == "FIND_FRIEND":
        f = friend_of_worlds(view, hands)
        if not _agrees(view, f).all():
            raise ValueError("a find-friends world disagrees with what the seat knows of the "
                             "friend: pass only the worlds friend_consistent keeps")
        _friend_fields(s, view, f, points_won)
    else:
        mine, theirs = view.team_levels
        s.seat_levels[:] = np.where(seats.team(np.arange(4)) == seats.team(0), mine, theirs)
        s.dealer_side[:] = seats.FIXED_DEALER_SIDE[view.dealer]
        s.captured[:] = int(round(view.attacker_points))
    in_trick = int((view.trick.sum(1) > 0).sum())
    leader = view.trick_leader if in_trick else 0
    s.leader[:] = leader
    s.in_trick[:] = in_trick
    if in_trick:
        lead = view.trick[leader]
        s.lead[:] = lead
        s.lead_n[:] = int(lead.sum())
        s.lead_suit[:] = eng.tables.eff[ctx, int(np.flatnonzero(lead)[0])]
        if eng.switches.pairs:
            s.lead_pairs[:] = int((lead >= 2).sum())
            s.lead_tractor[:] = _has_tractor(lead[None], s.idx[:1])[0]
    s.tricks_done[:] = view.tricks_done
    s.winner_team[:] = -1
    s.next_dealer[:] = -1
    s.last_winner[:] = -1
    s.rngs = [None] * W       # never drawn from: a hand episode deals no further hand
    s.setup_rngs = [None] * W
    s.mask = None
    return s


def _friend_fields(s: BatchState, view, f: np.ndarray, points_won) -> None:
    """Find-friends fields of the worlds ``s``: the friend card, each world's friend ``f``
    (``int64[W]``) and whether he has shown himself, the sides, per-seat levels, and the points
    so far (module docstring; ``points_won``: each relative seat's, if known)."""
    W = s.num_games
    s.friend_card[:] = view.friend_card
    s.friend[:] = f
    s.friend_trick[:] = view.friend_trick if view.friend_shown >= 0 else -1
    seat = np.arange(4)
    s.dealer_side[:] = (seat[None] == view.dealer) | (seat[None] == f[:, None])
    s.seat_levels[:] = np.asarray(view.seat_levels, dtype=np.int8)
    points = int(round(view.attacker_points))
    attacker = ~s.dealer_side                                    # bool[W, 4]
    if points_won is not None:
        won = np.asarray(points_won, dtype=np.int64)
        public = (seat != view.dealer) & (seat != view.friend_shown)
        extra = points - int(won[public].sum())  # a throw penalty, once the friend is shown
        if extra == 0 or view.friend_shown >= 0:
            s.points_won[:] = won
            s.captured[:] = (won[None] * attacker).sum(1)
            s.penalty[:] = extra
            return
    # the observed points (the seats not known to be on the dealer side) go to the first true
    # attacker of each world: public in the observation, and scored for the attackers
    s.points_won[np.arange(W), attacker.argmax(1)] = points
    s.captured[:] = points
