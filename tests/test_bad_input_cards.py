"""Bad input to ``shengji_env.cards`` (DESIGN.md §7): a clear exception naming the value, never a guess.

Each case is (call, args, exception type, substrings that must all appear in the message); the
first substring is the offending value (its repr, or the code point for a look-alike character).
"""

import copy

import numpy as np
import pytest

from shengji_env import cards

P = cards.parse

CASES = [
    # parse: not a str
    (P, (None,), TypeError, ["NoneType None", "str"]),
    (P, (123,), TypeError, ["int 123", "str"]),
    (P, (b"S:A",), TypeError, ["b'S:A'", "decode"]),
    (P, (cards.full_deck(1),), TypeError, ["ndarray array(", "str"]),
    # parse: look-alike characters are refused, naming the code point (module docstring)
    (P, ("С:A",), ValueError, ["U+0421 CYRILLIC CAPITAL LETTER ES", "looks like 'C'", "S, H, C, D"]),
    (P, ("Ｓ:A",), ValueError, ["U+FF33 FULLWIDTH LATIN CAPITAL LETTER S", "looks like 'S'"]),
    (P, ("♤:A",), ValueError, ["U+2664 WHITE SPADE SUIT", "looks like '♠'", "♠, ♥, ♣, ♦"]),
    (P, ("ſ:A",), ValueError, ["U+017F LATIN SMALL LETTER LONG S"]),  # 'ſ'.upper() == 'S'
    (P, ("♥\ufe0f:A",), ValueError, ["U+FE0F VARIATION SELECTOR-16"]),
    (P, ("S:А",), ValueError, ["U+0410 CYRILLIC CAPITAL LETTER A", "looks like 'A'", "J Q K A"]),
    (P, ("S:１０",), ValueError, ["U+FF11 FULLWIDTH DIGIT ONE", "looks like '1'"]),
    (P, ("S:A，H:10",), ValueError, ["U+FF0C FULLWIDTH COMMA", "looks like ','"]),
    (P, ("S：A",), ValueError, ["U+FF1A FULLWIDTH COLON", "'SUIT:' prefix"]),
    (P, ("S:A\u200bK",), ValueError, ["U+200B ZERO WIDTH SPACE"]),
    (P, ("Jk:ВJ",), ValueError, ["U+0412 CYRILLIC CAPITAL LETTER VE", "LJ or BJ"]),
    # decks: 1-4 only (count vectors are uint8: 256 copies would wrap to 0)
    (P, ("S:A", 0), ValueError, ["decks=0", "1-4"]),
    (P, ("S:A", 256), ValueError, ["decks=256", "1-4"]),
    (P, ("S:A", 2.0), TypeError, ["decks=2.0", "1-4"]),
    (P, ("S:A A", 1), ValueError, ["S:A appears 2 times", "only 1 decks"]),
    (cards.full_deck, (256,), ValueError, ["decks=256"]),
    (cards.full_deck, (float("nan"),), TypeError, ["decks=nan"]),
    (cards.from_ids, ([0] * 256, 256), ValueError, ["decks=256"]),
    # card_id, rank_index
    (cards.card_id, ("X", "A"), ValueError, ["'X'", "S, H, C, D"]),
    (cards.card_id, ("Jk", "A"), ValueError, ["'Jk'", "cards.LJ or cards.BJ"]),
    (cards.card_id, (True, 0), TypeError, ["suit True", "bool"]),
    (cards.card_id, (1.7, 0), TypeError, ["suit 1.7", "0-3"]),
    (cards.card_id, (4, 0), ValueError, ["suit index 4", "0-3"]),
    (cards.card_id, ("S", 13), ValueError, ["rank index 13", "0-12"]),
    (cards.card_id, ("S", 1.5), TypeError, ["rank 1.5", "0-12"]),
    (cards.card_id, ("S", "Т"), ValueError, ["U+0422 CYRILLIC CAPITAL LETTER TE", "looks like 'T'"]),
    (cards.rank_index, (np.array(3),), TypeError, ["array(3)"]),  # str() would make it rank "3"
    # from_ids: ints 0-53 only, nothing truncated or converted
    (cards.from_ids, ([1.7],), TypeError, ["card id 1.7", "int 0-53"]),
    (cards.from_ids, ([3, True],), TypeError, ["card id True", "position 1"]),
    (cards.from_ids, (["5"],), TypeError, ["card id '5'", "str"]),
    (cards.from_ids, ([54],), ValueError, ["card id 54", "0-53"]),
    (cards.from_ids, ([-1],), ValueError, ["card id -1", "0-53"]),
    (cards.from_ids, ([2 ** 70],), ValueError, [f"card id {2 ** 70}"]),
    (cards.from_ids, ("5",), TypeError, ["str '5'", "iterable"]),
    (cards.from_ids, (5,), TypeError, ["int 5", "iterable"]),
    (cards.from_ids, (np.array([1.7, 2.0]),), TypeError, ["float64", "1.7"]),
    (cards.from_ids, (np.array([True]),), TypeError, ["bool"]),
    (cards.from_ids, (np.array([3, -2]),), ValueError, ["card id -2", "position 1"]),
    (cards.from_ids, (np.array([[1, 2]]),), ValueError, ["(1, 2)", "1-D"]),
    (cards.from_ids, ([7, 7, 7],), ValueError, ["S:9 appears 3 times", "only 2 decks"]),
    # single card ids
    (cards.name, (60,), ValueError, ["card id 60", "0-53"]),
    (cards.name, (52.0,), TypeError, ["card id 52.0"]),  # was silently "LJ"
    (cards.suit_of, (-1,), ValueError, ["card id -1"]),  # was silently a joker
    (cards.rank_of, (True,), TypeError, ["card id True"]),
    # count vectors
    (cards.format, (np.full(54, -1),), ValueError, ["is -1", "S:2", ">= 0"]),  # was silently dropped
    (cards.format, (np.full(54, 0.5),), ValueError, ["is 0.5", "whole"]),
    (cards.format, (np.zeros(53),), ValueError, ["(53,)", "(54,)"]),
    (cards.to_ids, (np.full(54, 1.5),), ValueError, ["is 1.5"]),  # was silently 1
]


def _id(case):
    fn, args, exc, _ = case
    return f"{fn.__name__}{tuple(a if np.ndim(a) == 0 else type(a).__name__ for a in args)}-{exc.__name__}"


@pytest.mark.parametrize("fn, args, exc, words", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_names_the_value(fn, args, exc, words):
    with pytest.raises(exc) as info:
        fn(*copy.deepcopy(args))
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


def test_valid_input_is_unchanged():
    """What was accepted before still is, with the same result (only bad input changed)."""
    counts = cards.parse("s:a k, ♥:T 10, jk:bj, D:2")
    assert cards.format(counts) == "S:A K, H:10 10, D:2, Jk:BJ"
    assert cards.parse("S:A A A A", decks=4)[cards.card_id("S", "A")] == 4
    assert cards.card_id("s", "a") == cards.card_id("♠", 12) == cards.card_id(np.uint8(0), np.int64(12)) == 12
    assert cards.name(np.int64(53)) == "BJ" and cards.suit_of(cards.LJ) == -1
    assert cards.rank_index(" t ") == cards.rank_index(np.int16(8)) == 8
    ids = [0, 0, 53, 12]
    expect = np.bincount(ids, minlength=54).astype(np.uint8)
    for form in (ids, tuple(ids), iter(ids), np.array(ids), np.array(ids, np.uint64),
                 np.array(ids, object), [np.int64(i) for i in ids]):
        got = cards.from_ids(form)
        assert got.dtype == np.uint8 and (got == expect).all()
    assert cards.from_ids([]).sum() == 0 and cards.from_ids(np.array([])).sum() == 0
    assert cards.format(np.ones(54, dtype=bool)).startswith("S:A K")  # a mask formats as its cards
    assert cards.to_ids(np.eye(54, dtype=np.float32)[5] * 2) == [5, 5]
    assert (cards.full_deck(4) == 4).all()
