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
"""

from __future__ import annotations

import numpy as np

from ..rules import seats
from ..rules.actions import Phase
from .state import BatchState
from .tables import context_id
from .trick import _has_tractor

__all__ = ["world_states"]


def world_states(eng, view, hands: np.ndarray, kitty: np.ndarray, *,
                 own_hand: bool = True) -> BatchState:
    """A ``BatchState`` of W games, one per world, at ``view``'s PLAY decision.

    ``view``: the deciding seat's ``ObservationView`` (phase PLAY, fixed partnership);
    ``hands``: ``uint8[W, 4, 54]`` — cards of each *relative* seat (row 0 must be the view's
    hand, unless ``own_hand=False``: the dealer's bury candidates, each world with the cards
    its bury keeps); ``kitty``: ``uint8[W, 54]`` — the buried kitty of each world.
    """
    cfg = eng.cfg
    if view.phase != Phase.PLAY:
        raise ValueError(f"world_states needs a PLAY decision, got phase {view.phase.name}")
    if cfg.partnership != "FIXED":
        raise ValueError(f"world_states supports partnership='FIXED' only, not {cfg.partnership!r}")
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
    mine, theirs = view.team_levels
    s.seat_levels[:] = np.where(seats.team(np.arange(4)) == seats.team(0), mine, theirs)
    s.dealer_side[:] = seats.FIXED_DEALER_SIDE[view.dealer]
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
    s.captured[:] = int(round(view.attacker_points))
    s.winner_team[:] = -1
    s.next_dealer[:] = -1
    s.last_winner[:] = -1
    s.rngs = [None] * W       # never drawn from: a hand episode deals no further hand
    s.setup_rngs = [None] * W
    s.mask = None
    return s
