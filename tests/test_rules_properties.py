"""Property tests of the rules package on seeded random hands (RULES.md §6-9)."""

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.rules import (
    Rules,
    TrumpContext,
    decompose,
    is_legal_follow,
    legal_follows,
    legal_next_cards,
    trick_winner,
)
from shengji_env.rules.play import submultisets


def random_context(rng, decks=2):
    return TrumpContext(level=int(rng.integers(13)), trump=int(rng.integers(5)), decks=decks,
                        always_trump_two=bool(rng.integers(2)))


def random_cards(rng, size, decks=2, pool=None):
    """``size`` physical cards drawn without replacement from ``pool`` (default: all decks)."""
    pool = cards.full_deck(decks) if pool is None else pool
    ids = rng.choice(np.repeat(np.arange(54), pool), size=size, replace=False)
    return cards.from_ids(ids, decks)


def random_lead(rng, hand, ctx, max_size=6):
    """A random one-suit lead made of pairs/tractors/singles from ``hand``."""
    suit = ctx.effective_suits[int(rng.choice(np.flatnonzero(hand)))]
    mine = np.where(ctx.effective_suits == suit, hand, 0)
    size = int(rng.integers(1, min(max_size, int(mine.sum())) + 1))
    ids = rng.choice(np.repeat(np.arange(54), mine), size=size, replace=False)
    return cards.from_ids(ids, ctx.decks)


def brute_next_cards(hand, lead, selection, ctx, cfg):
    """Reference for the prefix-closed mask: card c is legal iff some legal follow holds
    selection + c."""
    follows = legal_follows(hand, lead, ctx, cfg)
    out = np.zeros(54, dtype=bool)
    for c in np.flatnonzero(hand.astype(int) - selection > 0):
        trial = selection.astype(int).copy()
        trial[c] += 1
        out[c] = any((f >= trial).all() for f in follows)
    return out


@pytest.mark.parametrize("partial", [False, True])
def test_legal_next_cards_agrees_with_enumeration(partial):
    rng = np.random.default_rng(7 + partial)
    cfg = Rules(follow_partial_tractor=partial)
    checked = 0
    while checked < 300:
        ctx = random_context(rng)
        deal = random_cards(rng, 26)
        leader_cards, hand = random_cards(rng, 13, pool=deal), None
        hand = deal - leader_cards
        lead = random_lead(rng, leader_cards, ctx)
        follows = legal_follows(hand, lead, ctx, cfg)
        assert follows, "a follow always exists"
        # walk a random legal follow card by card, checking the mask at every prefix
        target = follows[int(rng.integers(len(follows)))]
        selection = np.zeros(54, dtype=np.uint8)
        for c in rng.permutation(cards.to_ids(target)):
            mask = legal_next_cards(hand, lead, selection, ctx, cfg)
            assert (mask == brute_next_cards(hand, lead, selection, ctx, cfg)).all()
            assert mask[c]
            selection[c] += 1
        checked += 1


def test_is_legal_follow_agrees_with_legal_follows():
    rng = np.random.default_rng(11)
    cfg = Rules()
    for _ in range(200):
        ctx = random_context(rng)
        deal = random_cards(rng, 24)
        leader_cards = random_cards(rng, 12, pool=deal)
        hand = deal - leader_cards
        lead = random_lead(rng, leader_cards, ctx, max_size=4)
        legal = {cards.format(f) for f in legal_follows(hand, lead, ctx, cfg)}
        for x in submultisets(hand, int(lead.sum())):
            assert is_legal_follow(hand, lead, x, ctx, cfg) == (cards.format(x) in legal)


def test_decomposition_round_trips_the_cards():
    rng = np.random.default_rng(3)
    for _ in range(500):
        ctx = random_context(rng)
        hand = random_cards(rng, 25)
        suit = int(ctx.effective_suits[int(rng.choice(np.flatnonzero(hand)))])
        mine = np.where(ctx.effective_suits == suit, hand, 0).astype(np.uint8)
        units = decompose(mine, ctx)
        total = sum(u.counts.astype(int) for u in units)
        assert (total == mine).all()
        keys = [(-u.k, -u.length, -u.top) for u in units]
        assert keys == sorted(keys)


def test_trick_winner_invariant_to_labels_of_equal_cards():
    """Swapping the suits of the off-suit level cards (equal strength) never changes a winner."""
    rng = np.random.default_rng(5)
    cfg = Rules()
    for _ in range(300):
        level = int(rng.integers(13))
        ctx = TrumpContext(level=level, trump=int(rng.integers(4)))
        off = [s for s in range(4) if s != ctx.trump]
        a, b = (s * 13 + level for s in rng.choice(off, size=2, replace=False))
        deal = random_cards(rng, 52)
        hands = []
        rest = deal.copy()
        for _ in range(4):
            h = random_cards(rng, 13, pool=rest)
            rest = rest - h
            hands.append(h)
        lead = random_lead(rng, hands[0], ctx, max_size=4)
        plays = [lead]
        for h in hands[1:]:
            follows = legal_follows(h, lead, ctx, cfg) if int(lead.sum()) <= 2 else None
            if not follows:
                break
            plays.append(follows[int(rng.integers(len(follows)))])
        if len(plays) < 4:
            continue
        swapped = [p.copy() for p in plays]
        for p in swapped:
            p[a], p[b] = p[b], p[a]
        assert trick_winner(plays, ctx, cfg) == trick_winner(swapped, ctx, cfg)
