"""HeuristicAgent's find-friends rules (RULES.md §10.6): who an attacker may count as partner
while the friend is hidden, and a smoke run of the arena's
find-friends metric through ``shengji-eval``."""

from types import SimpleNamespace

import numpy as np

from agents.baselines import heuristic_play as hp
from shengji_env import cards
from shengji_env.rules import Rules, TrumpContext

FF = Rules(partnership="FIND_FRIEND")
H_A = cards.card_id("H", "A")
CTX = TrumpContext.from_rules(0, 0, FF)  # level 2, spades trump
HEARTS = 1  # effective suit of H:A under spades trump


def attacker_view(dealer=2, shown=-1, played=None, voids=None):
    """An attacker's view (my_side 1, relative seats) with the friend card H:A named."""
    return SimpleNamespace(
        my_side=1, dealer=dealer, friend_shown=shown, friend_card=H_A,
        hand=np.zeros(54, dtype=np.uint8),
        played=np.zeros((4, 54), dtype=np.uint8) if played is None else played,
        voids=np.zeros((4, 5), dtype=bool) if voids is None else voids)


def test_attacker_knows_no_partner_while_nothing_is_proven():
    assert hp.known_partners(attacker_view(), CTX.effective_suits, 2) == frozenset()


def test_attacker_void_in_the_friend_suit_is_a_partner():
    voids = np.zeros((4, 5), dtype=bool)
    voids[3, HEARTS] = True  # seat 3 shows void in hearts unshown: it holds no H:A
    assert hp.known_partners(attacker_view(voids=voids), CTX.effective_suits, 2) == {3}


def test_attacker_who_played_a_copy_unshown_is_a_partner():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, H_A] = 1
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == {1}


def test_both_others_proven_means_nothing_consistent_is_claimed():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[1, H_A] = played[3, H_A] = 1  # cannot both be attackers with a friend hidden
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == frozenset()


def test_dealer_played_every_copy_is_alone():
    played = np.zeros((4, 54), dtype=np.uint8)
    played[2, H_A] = 2
    assert hp.known_partners(attacker_view(played=played), CTX.effective_suits, 2) == {1, 3}


def test_shown_friend_decides():
    assert hp.known_partners(attacker_view(shown=1), CTX.effective_suits, 2) == {3}


def test_eval_cli_reports_friend_share(capsys):
    from agents.eval.cli import main
    assert main(["heuristic", "random", "--rule", "partnership=FIND_FRIEND", "--deals", "3",
                 "--no-progress", "--json"]) == 0
    import json
    m = json.loads(capsys.readouterr().out)["matches"][0]
    assert m["a_seat_hands"] == 12 and m["hands"] == 12
    assert 0.0 <= m["a_share"] <= 1.0 and m["a_share_ci"][0] <= m["a_share"] <= m["a_share_ci"][1]
