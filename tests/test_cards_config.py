"""Card notation (RULES.md §1.2) and the Rules options (§11): round trips and teaching errors."""

import numpy as np
import pytest

from shengji_env import Rules, cards
from shengji_env.rules import TrumpContext, validate_throw


def test_parse_format_round_trip_and_aliases():
    counts = cards.parse("S:A A K, H:10 10, Jk:BJ LJ")
    assert cards.format(counts) == "S:A A K, H:10 10, Jk:BJ LJ"
    assert (cards.parse("♠:A A K, ♥:T 10, Jk:LJ BJ") == counts).all()
    assert cards.parse("").sum() == 0
    rng = np.random.default_rng(0)
    for _ in range(200):
        c = rng.integers(0, 3, 54).astype(np.uint8)
        assert (cards.parse(cards.format(c)) == c).all()


@pytest.mark.parametrize("text, token", [("S:A 1", "'1'"), ("X:A", "'X'"), ("S A", "'S A'"),
                                         ("Jk:SJ", "'SJ'"), ("H:", "'H:'")])
def test_parse_names_the_bad_token(text, token):
    with pytest.raises(ValueError, match=token):
        cards.parse(text)


def test_counts_above_decks_are_rejected():
    with pytest.raises(ValueError, match="H:A appears 3 times but there are only 2 decks"):
        cards.parse("H:A A A")
    with pytest.raises(ValueError, match="only 1 decks"):
        cards.parse("Jk:BJ BJ", decks=1)


def test_points_total_per_deck():
    assert cards.points(cards.full_deck(1)) == 100
    assert cards.points(cards.full_deck(2)) == 200


def test_rules_defaults_follow_the_decks():
    assert (Rules().kitty_size, Rules().level_step, Rules().hand_size) == (8, 40, 25)
    one = Rules(decks=1)
    assert (one.kitty_size, one.level_step, one.hand_size) == (6, 20, 12)
    assert Rules(kitty_multiplier="power").kitty_multiplier == "POWER"
    assert Rules(mandatory_levels={"5", "K"}).mandatory_levels == (3, 11)


def test_unknown_option_lists_known_ones():
    with pytest.raises(ValueError, match="unknown rules option.*bogus.*known options:.*decks"):
        Rules(bogus=1)


@pytest.mark.parametrize("options, words", [
    ({"kitty_multiplier": "DOUBLE"}, "kitty_multiplier='DOUBLE'.*FLAT2, LINEAR, POWER, TIERED"),
    ({"decks": 5}, "decks=5"),
    ({"kitty_size": 7}, "kitty_size=7.*multiple of 4"),
    ({"allow_reinforce": "yes"}, "allow_reinforce='yes'.*True or False"),
    ({"initial_first_drawer": 4}, "initial_first_drawer=4"),
    ({"mandatory_levels": ["11"]}, "mandatory_levels"),
    ({"declaration_mode": "FIXED"}, "fixed_trump"),
])
def test_bad_values_name_the_option_and_what_is_allowed(options, words):
    with pytest.raises(ValueError, match=words):
        Rules(**options)


def test_mixed_suit_lead_is_rejected_by_name():
    ctx = TrumpContext("10", "S")
    with pytest.raises(ValueError, match="mixes effective suits"):
        validate_throw(cards.parse("H:A, H:10"), [cards.empty()] * 3, ctx, Rules())


def test_rules_functions_do_not_write_to_inputs():
    ctx = TrumpContext("10", "S")
    lead = cards.parse("H:A A K")
    hands = [cards.parse("H:Q Q J"), cards.parse("C:2"), cards.parse("D:3")]
    for a in [lead, *hands]:
        a.flags.writeable = False
    validate_throw(lead, hands, ctx, Rules())
