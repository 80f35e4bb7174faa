"""RULES.md §13.5 kitty exchange (KX-1) as a scenario test on the reference game.

``declaration_mode="FIXED"`` skips the declaration phase, so the game goes straight to the
dealer's bury: 8 ``CARD`` decisions (DESIGN §4).
"""

from __future__ import annotations

import numpy as np

from shengji_env import cards
from shengji_env.rules.config import Rules

END = 55


def _deck_with_kitty(kitty_cards: list[int], seed: int = 7) -> np.ndarray:
    """A dealing order (2 decks) whose last 8 cards (the kitty) start with ``kitty_cards``."""
    rest = np.repeat(np.arange(54), 2).tolist()
    for c in kitty_cards:
        rest.remove(c)
    rest = np.random.default_rng(seed).permutation(np.array(rest)).tolist()
    body, tail = rest[:100], rest[100:]
    return np.array(body + kitty_cards + tail, dtype=np.int64)


def test_KX_1():
    from shengji_env.rules.actions import Phase
    from shengji_env.rules.game import Game

    cfg = Rules(declaration_mode="FIXED", fixed_trump="S")
    assert cfg.kitty_size == 8 and cfg.hand_size == 25 and cfg.kitty_point_cards_allowed
    hk, d5 = cards.card_id("H", "K"), cards.card_id("D", "5")
    g = Game(cfg, seed=0, deck=_deck_with_kitty([hk, hk, d5]))
    assert g.phase == Phase.BURY
    dealer = g.to_act
    assert int(g.hands[dealer].sum()) == 33          # 25 + the 8-card kitty
    assert all(int(g.hands[s].sum()) == 25 for s in range(4) if s != dealer)

    # bury H:K K, D:5 (25 points) and five zero-point cards
    hand = g.hands[dealer].copy()
    zero = [int(c) for c in np.flatnonzero(hand) if cards.POINTS[c] == 0
            for _ in range(int(hand[c]))][:5]
    bury = [hk, hk, d5] + zero
    for i, c in enumerate(bury):
        assert g.phase == Phase.BURY and g.to_act == dealer
        mask = g.legal_mask()
        assert mask[c], cards.name(c)
        assert not mask[END]          # no way to stop early: burying 7 (or fewer) is illegal
        g.step(c)
        if i < 7:
            assert g.phase == Phase.BURY   # 7 cards buried is not enough
    # exactly 8 buried → the bury is over (a 9th card cannot be buried)
    assert g.phase == Phase.PLAY
    assert int(g.hands[dealer].sum()) == 25
    assert cards.format(g.kitty) == cards.format(cards.from_ids(bury))
    assert cards.points(g.kitty) == 25
