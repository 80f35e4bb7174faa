"""3 and 4 decks in the batched engine: it agrees with the reference ``rules.Game`` on every
decision (mask, observation, winner, score, log) and keeps its invariants (``test_engine``'s
``play_both``: card conservation, non-empty masks, zero-sum rewards; here also 100·decks points
per hand). Leaders prefer tuples and tractors (``structured_pick``) so that triple, Titanic,
quad and carrier leads and failed throws are reached often.

Also: scores beyond the old int16 / int8 state fields (kitty bonus, attackers' points, level
gain), reached with small hands and a scripted last trick.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_engine import play_both

from shengji_env import cards
from shengji_env.core import Engine
from shengji_env.rules import Rules
from shengji_env.rules.actions import END, Phase
from shengji_env.rules.game import Game

DECK_SETS = [  # option sets for 3 and 4 decks (each is run with both)
    {},
    {"titanic_follow_order": "B", "failed_throw_choice": "NEXT_PLAYER", "throw_penalty": "PER_CARD_10"},
    {"titanic_follow_order": "C", "ruff_match": "COUNT_ONLY"},
    {"tuple_beats_chain": True, "throw_comparison": "ALL_UNITS"},
    {"tuple_beats_chain": False, "kitty_multiplier": "POWER", "kitty_multiplier_basis": "WINNING_PLAY"},
    {"tiered_precedence": "LITERAL", "failed_throw_choice": "AUTO_FEWEST_CARDS", "throw_penalty": "FIXED_10"},
    {"follow_partial_tractor": True, "always_trump_two": True, "kitty_multiplier": "LINEAR"},
]


def _ids(o):
    return ",".join(f"{k}={v}" for k, v in o.items()) or "default"


def points_conserved(eng, s):
    """Every hand's 100·decks points: the attackers' captured points plus the dealer side's."""
    d = eng.cfg.decks
    for i in range(s.num_games):
        assert int(s.played[i].sum(0) @ cards.POINTS) + int(s.kitty[i] @ cards.POINTS) == 100 * d


@pytest.mark.parametrize("decks", [3, 4])
def test_agrees_with_reference(decks):
    # ~50 hands per deck count in the default run: 30 with default rules and observations
    # checked, 20 more under option sets
    eng, s = play_both(Rules(decks=decks), seed=10 * decks, n=30, structured=True)
    points_conserved(eng, s)
    for j, options in enumerate(DECK_SETS[1:5]):
        play_both(Rules(decks=decks, **options), seed=100 * decks + j, n=5, check_obs=False,
                  structured=True)


@pytest.mark.slow
@pytest.mark.parametrize("decks", [3, 4])
@pytest.mark.parametrize("options", DECK_SETS, ids=_ids)
def test_agrees_many_hands(decks, options):
    n = 3000 if not options else 300
    for start in range(0, n, 300):  # batches of 300 games
        eng, s = play_both(Rules(decks=decks, **options), seed=5000 * decks + start, n=300,
                           check_obs=start == 0, structured=start % 600 == 0)
        if not options:
            points_conserved(eng, s)


@pytest.mark.slow
def test_count_only_alone_many_hands():
    # ruff_match=COUNT_ONLY without ALL_UNITS (which sends throws to the scalar rules and hid
    # the path where the engine compares ruffs of pairs itself); leaders build pair throws
    play_both(Rules(ruff_match="COUNT_ONLY"), seed=7000, n=300, structured=True)


# ----------------------------------------------------------------------------- big scores

def _scripted_deck(hands: list[str], decks: int) -> np.ndarray:
    """A dealing order (first drawer 0) giving seat i the cards ``hands[i]``; the rest is the
    kitty, in card-id order."""
    counts = [cards.parse(h, decks=decks).astype(np.int64) for h in hands]
    ids = [list(cards.to_ids(c)) for c in counts]
    assert len({len(x) for x in ids}) == 1
    order = [ids[j % 4][j // 4] for j in range(4 * len(ids[0]))]
    rest = np.full(54, decks, dtype=np.int64) - sum(counts)
    return np.array(order + list(cards.to_ids(rest)), dtype=np.int64)


def _play_script(cfg, deck, keep: str, lead2: str):
    """Engine (B = 1 and B = 2) and Game on one scripted hand: the dealer (seat 0) keeps
    ``keep`` and buries the rest, leads one low heart; seat 1 wins it and leads ``lead2``, the
    last trick; everyone else plays the first legal cards."""
    keep_c = cards.parse(keep, decks=cfg.decks).astype(np.int64)
    lead_c = cards.parse(lead2, decks=cfg.decks).astype(np.int64)

    def choose(phase, seat, hand, sel, mask, tricks):
        legal = np.flatnonzero(mask)
        if phase == Phase.BURY:
            bury = hand.astype(np.int64) - keep_c - sel
            return int(np.flatnonzero((bury > 0) & mask[:54])[0])
        if mask[END]:  # a leader: seat 0 leads one card, seat 1 its whole lead
            want = lead_c if seat == 1 else None
            if want is None or (sel.astype(np.int64) >= want).all():
                return END
            return int(np.flatnonzero((want > sel) & mask[:54])[0])
        if seat == 1 and tricks == 1 and not sel.any():
            return int(np.flatnonzero((lead_c > 0) & mask[:54])[0])
        return int(legal[0])

    game = Game(cfg, 0, deck=deck)
    results = []
    for B in (1, 2):
        eng = Engine(cfg, B, 0)
        s = eng.reset(decks=np.stack([deck] * B), first_drawers=np.zeros(B, np.int64))
        while not s.done.all():
            mask = eng.legal_mask(s)
            acts = np.array([choose(int(s.phase[i]), int(s.to_act[i]), s.hands[i, s.to_act[i]],
                                    s.selection[i], mask[i], int(s.tricks_done[i]))
                             for i in range(B)])
            if B == 1:
                assert (game.legal_mask() == mask[0]).all()
                game.step(int(acts[0]))
            s, _, _ = eng.step(s, acts)
        results.append(s)
    return game, results


@pytest.mark.parametrize("decks,option,lead2,keep,hands", [
    # 2 decks, POWER: a 5-pair tractor digs the kitty ×1024 (beyond int16)
    (2, "POWER", "C:3 3 4 4 5 5 6 6 7 7", "H:3 4 4 6 6 7 7 8 8 9 9",
     ["H:3", "H:A, C:3 3 4 4 5 5 6 6 7 7",
      "D:3 3 4 4 6 6 7 7 8 8 9", "D:9 J J Q Q A A 5 5 10 10"]),
    # 4 decks, TIERED: a carrier of 3 quads digs the kitty ×128 (a level gain beyond int8)
    (4, "TIERED", "C:3 3 3 3 4 4 4 4 5 5 5 5", "H:3 4 4 4 4 6 6 6 6 7 7 7 7",
     ["H:3", "H:A, C:3 3 3 3 4 4 4 4 5 5 5 5",
      "D:3 3 3 3 4 4 4 4 6 6 6 6 7", "D:7 7 7 8 8 8 8 9 9 9 9 J J"]),
])
def test_scores_beyond_the_old_int16_limits(decks, option, lead2, keep, hands):
    h = len(cards.to_ids(cards.parse(hands[1], decks=decks)))
    cfg = Rules(decks=decks, kitty_size=54 * decks - 4 * h, declaration_mode="FIXED",
                fixed_trump="S", kitty_multiplier=option)
    seat0 = cards.format(cards.parse(keep, decks=decks))
    deal = [seat0] + hands[1:]
    deck = _scripted_deck(deal, decks)
    game, states = _play_script(cfg, deck, keep, lead2)
    assert game.done and game.kitty_bonus > np.iinfo(np.int16).max
    assert game.outcome.attackers_gain > np.iinfo(np.int8).max
    for s in states:
        for i in range(s.num_games):
            assert int(s.kitty_bonus[i]) == game.kitty_bonus
            assert int(s.attacker_points[i]) == game.attacker_points
            assert s.outcome[i].tolist() == [game.outcome.dealer_side_gain,
                                             int(game.outcome.attackers_take_over),
                                             game.outcome.attackers_gain]
