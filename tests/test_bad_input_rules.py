"""Bad ``Rules`` options (RULES.md §11, DESIGN.md §7) and ``replace`` re-deriving deck defaults.

Bad-value cases are (options, substrings that must all appear in the ``ValueError`` message); the
first substring is the option and its offending value.
"""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from shengji_env import Rules
from shengji_env.rules import make_rules

NAN, INF = float("nan"), float("inf")

BAD_OPTIONS = [
    ({"decks": NAN}, ["decks=nan", "int 1-4"]),
    ({"decks": 2.0}, ["decks=2.0", "int 1-4"]),
    ({"decks": True}, ["decks=True", "bool"]),
    ({"decks": np.int64(2)}, ["decks=np.int64(2)", "int()"]),
    ({"kitty_size": NAN}, ["kitty_size=nan", "int >= 0"]),
    ({"kitty_size": 8.0}, ["kitty_size=8.0", "got float"]),
    ({"kitty_size": True}, ["kitty_size=True", "bool"]),
    ({"kitty_size": -4}, ["kitty_size=-4", "multiple of 4"]),
    ({"level_step": INF}, ["level_step=inf", "positive int"]),
    ({"level_step": False}, ["level_step=False", "bool"]),
    ({"level_step": 0}, ["level_step=0", "positive int"]),
    ({"min_jokers_for_nt": NAN}, ["min_jokers_for_nt=nan", ">= 2"]),
    ({"initial_first_drawer": True}, ["initial_first_drawer=True", "seat 0-3"]),
    ({"initial_first_drawer": 1.0}, ["initial_first_drawer=1.0", "'RANDOM'"]),
    ({"always_trump_two": 1}, ["always_trump_two=1", "True or False"]),
    ({"allow_reinforce": np.True_}, ["allow_reinforce=np.True_", "True or False"]),
    ({"tuple_beats_chain": 1}, ["tuple_beats_chain=1", "True, False or None"]),
    ({"mandatory_levels": "KA"}, ["mandatory_levels='KA'", "not a single string"]),
    ({"mandatory_levels": [True]}, ["mandatory_levels=[True]", "bool"]),
    ({"mandatory_levels": [NAN]}, ["mandatory_levels=[nan]"]),
    ({"kitty_multiplier": "РОWER"}, ["U+0420 CYRILLIC CAPITAL LETTER ER", "'РОWER'", "POWER"]),
    ({"win_condition": "paſs_a"}, ["U+017F LATIN SMALL LETTER LONG S", "PASS_A"]),  # 'ſ'.upper() == 'S'
]


@pytest.mark.parametrize("options, words", BAD_OPTIONS, ids=[repr(o) for o, _ in BAD_OPTIONS])
def test_bad_option_names_the_field_and_value(options, words):
    with pytest.raises(ValueError) as info:
        Rules(**options)
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


BAD_REPLACE = [
    (Rules(), {"decks": 5}, ["decks=5", "1-4"]),
    (Rules(), {"decks": NAN}, ["decks=nan"]),
    (Rules(), {"bogus": 1}, ["bogus", "known options"]),
    (Rules(), {"level_step": NAN}, ["level_step=nan"]),
    # an explicit kitty is kept, and 54*1 - 12 is not a multiple of 4: say so, do not re-derive
    (Rules(kitty_size=12), {"decks": 1}, ["kitty_size=12", "given explicitly", "kitty_size=None"]),
    (Rules(decks=1, kitty_size=10), {"decks": 2}, ["kitty_size=10", "2-deck default"]),
]


@pytest.mark.parametrize("rules, changes, words", BAD_REPLACE, ids=[repr(c) for _, c, _ in BAD_REPLACE])
def test_bad_replace_names_the_field_and_value(rules, changes, words):
    with pytest.raises(ValueError) as info:
        rules.replace(**changes)
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


@pytest.mark.parametrize("start", [1, 2, 3, 4])
@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_replace_decks_rederives_what_was_not_given(start, decks):
    got = Rules(decks=start).replace(decks=decks)
    assert got == Rules(decks=decks)
    assert (got.kitty_size, got.level_step, got.tuple_beats_chain) == \
        ({1: 6, 2: 8, 3: 6, 4: 8}[decks], 20 * decks, decks == 4)
    assert make_rules(Rules(decks=start), decks=decks) == got


def test_replace_keeps_what_was_given():
    r = Rules(decks=1, kitty_size=10, level_step=30, tuple_beats_chain=True)
    three = r.replace(decks=3)
    assert (three.kitty_size, three.level_step, three.tuple_beats_chain) == (10, 30, True)
    # the record survives replace chains, pickling and copying
    chained = Rules(kitty_size=12).replace(kitty_multiplier="power").replace(ruff_match="count_only")
    for r in (chained, pickle.loads(pickle.dumps(chained)), copy.copy(chained), copy.deepcopy(chained)):
        four = r.replace(decks=4)
        assert (four.kitty_size, four.level_step, four.tuple_beats_chain) == (12, 80, True)
    assert Rules(kitty_size=12).replace(decks=1, kitty_size=None).kitty_size == 6  # None re-derives
    assert Rules(tuple_beats_chain=None).replace(decks=4).tuple_beats_chain is True
    # dataclasses.replace passes every field, so it keeps them all (as before)
    assert dataclasses.replace(Rules(), decks=4).level_step == 40


def test_explicit_record_is_not_part_of_the_value():
    """Same values → equal, same hash, same repr/asdict/vars: a Rules is a cache key."""
    a, b = Rules(), Rules(kitty_size=8, level_step=40, tuple_beats_chain=False)
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert repr(a) == repr(b) and dataclasses.asdict(a) == dataclasses.asdict(b) and vars(a) == vars(b)
    assert Rules() == Rules() and hash(Rules()) == hash(Rules())
    assert set(vars(a)) == {f.name for f in dataclasses.fields(Rules)}
    assert Rules(**dataclasses.asdict(Rules(decks=3))) == Rules(decks=3)
    assert a.replace(decks=1).kitty_size == 6  # they differ only in what replace keeps:
    with pytest.raises(ValueError, match="kitty_size=8 was given explicitly"):
        b.replace(decks=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a._explicit = frozenset()
