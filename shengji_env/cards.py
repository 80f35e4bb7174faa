"""Card identities, the RULES.md §1.2 notation, and deck constants.

A card *identity* is an integer id (DESIGN.md §2)::

    id = suit * 13 + rank      suits S=0, H=1, C=2, D=3; ranks 2..A = 0..12
    LJ = 52 (little joker)     BJ = 53 (big joker)

With ``d`` decks there are ``d`` copies of every identity. A set of cards is a count vector
``uint8[54]`` (batched ``uint8[..., 54]``): entry ``i`` is how many copies of card ``i``.

Notation (RULES.md §1.2): groups by printed suit, jokers under ``Jk``::

    parse("S:A A K, H:10 10, Jk:BJ LJ")   # also ♠♥♣♦ for suits and T for ten
    format(counts) == "S:A A K, H:10 10, Jk:BJ LJ"

Bad input raises an exception naming the value and what is allowed, never a guess (DESIGN.md §7):
``ValueError`` for a bad value (an unknown token, an id outside 0-53, ``decks`` outside 1-4, a
card more often than ``decks``), ``TypeError`` for a wrong type (``parse(None)``, ``parse(b"S:A")``,
a float, bool or str card id). The notation is exactly RULES.md §1.2: look-alike characters
(Cyrillic ``С``, fullwidth ``Ｓ``, outline ``♤``, the long s ``ſ``) are refused, not mapped, and the
message names the character and its code point -- such text was pasted from somewhere else and
deserves a look, and accepting it would widen the notation beyond the rules of record.
"""

from __future__ import annotations

import unicodedata

import numpy as np

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 54  # identities
LJ = 52
BJ = 53

SUITS = "SHCD"
SUIT_SYMBOLS = "♠♥♣♦"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER_NAMES = {LJ: "LJ", BJ: "BJ"}

#: points of one copy of each card identity (RULES.md §3.5): 5 → 5, 10 → 10, K → 10.
POINTS = np.zeros(NUM_CARDS, dtype=np.int16)
for _s in range(NUM_SUITS):
    POINTS[_s * 13 + RANKS.index("5")] = 5
    POINTS[_s * 13 + RANKS.index("10")] = 10
    POINTS[_s * 13 + RANKS.index("K")] = 10
POINTS.flags.writeable = False

#: default kitty size per number of decks (RULES.md §4.1)
DEFAULT_KITTY = {1: 6, 2: 8, 3: 6, 4: 8}

_SUIT_ALIASES = {c: i for i, c in enumerate(SUITS)} | {c: i for i, c in enumerate(SUIT_SYMBOLS)}
_RANK_ALIASES = {r: i for i, r in enumerate(RANKS)} | {"T": RANKS.index("10")}
_SUIT_WORDS = "S, H, C, D, ♠, ♥, ♣, ♦"
_RANK_WORDS = f"{' '.join(RANKS)} (or T)"

#: characters that look like a letter or symbol of the notation but are not one. Only used to
#: explain a refusal (see the module docstring); fullwidth forms, the long s and the like are found
#: by NFKC normalisation instead, so this lists only what NFKC leaves alone.
_LOOKALIKES = dict(zip("АВСЕНІЈКМОРЅТХаеіојрсѕхһΑΒΕΗΙΚΜΝΟΡΤΧΖ♤♡♧♢",
                       "ABCEHIJKMOPSTXaeiojpcsxhABEHIKMNOPTXZ♠♥♣♦", strict=True))


def _upper(text: str) -> str | None:
    """``text`` stripped and upper-cased if it is ASCII, itself if it is a suit symbol, else None.

    ``str.upper`` alone would let non-ASCII letters through ('ſ'.upper() == 'S')."""
    text = text.strip()
    if text.isascii():
        return text.upper()
    return text if text in SUIT_SYMBOLS else None


def _unicode_hint(text: str) -> str:
    """``" (U+0421 CYRILLIC CAPITAL LETTER ES looks like 'C' but is a different character)"`` for
    the first character of ``text`` outside the notation (not ASCII, not ♠♥♣♦, not a space), or
    ``""`` when there is none: a look-alike is invisible in the repr of the offending token."""
    for ch in text:
        if ch.isascii() or ch in SUIT_SYMBOLS or ch.isspace():
            continue
        what = f"U+{ord(ch):04X} {unicodedata.name(ch, '(unnamed character)')}"
        like = _LOOKALIKES.get(ch) or unicodedata.normalize("NFKC", ch)
        if like != ch and like.strip() and (like.isascii() or like in SUIT_SYMBOLS):
            return f" ({what} looks like {like!r} but is a different character)"
        return f" ({what} is not part of the RULES.md §1.2 notation)"
    return ""


def _show(value) -> str:
    """Type and (shortened) repr of a bad argument, for error messages."""
    r = repr(value)
    return f"{type(value).__name__} {r if len(r) <= 60 else r[:57] + '...'}"


def is_int(value) -> bool:
    """A Python or numpy integer, but not a bool (True is an int to Python, never a card here)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_decks(decks) -> int:
    """``decks`` as an int 1-4 (RULES.md §11), or ``TypeError``/``ValueError`` naming it.

    Count vectors are ``uint8``: an unchecked ``decks`` of 256 would wrap to 0 copies."""
    if not is_int(decks):
        raise TypeError(f"decks={decks!r} is not allowed; expected an int 1-4, got {type(decks).__name__}")
    if not 1 <= decks <= 4:
        raise ValueError(f"decks={decks!r} is not allowed; expected an int 1-4 (RULES.md §11)")
    return int(decks)


def _suit_index(suit) -> int:
    """Suit 0-3 from 0-3, a letter (either case) or a symbol."""
    if isinstance(suit, str):
        s = _SUIT_ALIASES.get(_upper(suit))
        if s is None:
            joker = (" (jokers have no suit: use cards.LJ or cards.BJ)"
                     if _upper(suit) in ("JK", "J", "LJ", "BJ") else "")
            raise ValueError(f"unknown suit {suit!r}{_unicode_hint(suit)}; expected {_SUIT_WORDS} "
                             f"or 0-3{joker}")
        return s
    if not is_int(suit):
        raise TypeError(f"suit {suit!r} is not allowed; expected 0-3 or {_SUIT_WORDS}, got "
                        f"{type(suit).__name__}")
    if not 0 <= suit < NUM_SUITS:
        raise ValueError(f"suit index {suit} out of range 0-3")
    return int(suit)


def _card_index(card) -> int:
    """``card`` as an int id 0-53 (a float or bool is refused, not truncated)."""
    if not is_int(card):
        raise TypeError(f"card id {card!r} is not allowed; expected an int 0-53, got {type(card).__name__}")
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} out of range 0-53")
    return int(card)


def card_id(suit: int | str, rank: int | str) -> int:
    """Identity of a suited card; ``suit`` as 0-3 or a letter/symbol, ``rank`` as 0-12 or "2".."A".

    Jokers have no suit (use ``LJ``, ``BJ``). A bad suit or rank raises ``ValueError`` (or
    ``TypeError`` for a float, bool, None, ...) naming both."""
    try:
        return _suit_index(suit) * NUM_RANKS + rank_index(rank)
    except (TypeError, ValueError) as e:
        raise type(e)(f"no card with suit {suit!r} and rank {rank!r}: {e}") from None


def rank_index(rank: str | int) -> int:
    """Rank "2".."A" (or "T" for ten, or an int 0-12) → 0-12."""
    if is_int(rank):
        if 0 <= rank < NUM_RANKS:
            return int(rank)
        raise ValueError(f"rank index {rank} out of range 0-12")
    if not isinstance(rank, str):
        # str(rank) would read a 0-d array 3 as the rank "3" (index 1) and a float 3.0 as "3.0"
        raise TypeError(f"rank {rank!r} is not allowed; expected one of {_RANK_WORDS} or an index 0-12, "
                        f"got {type(rank).__name__}")
    key = _upper(rank)
    if key not in _RANK_ALIASES:
        raise ValueError(f"unknown rank {rank!r}{_unicode_hint(rank)}; expected one of {', '.join(RANKS)} "
                         "(or T)")
    return _RANK_ALIASES[key]


def suit_of(card: int) -> int:
    """Printed suit 0-3 of a suited card, or -1 for a joker."""
    card = _card_index(card)
    return -1 if card >= LJ else card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank 0-12 of a suited card, or -1 for a joker."""
    card = _card_index(card)
    return -1 if card >= LJ else card % NUM_RANKS


def name(card: int) -> str:
    """Short name of one card: ``"S:A"``, ``"H:10"``, ``"BJ"``."""
    card = _card_index(card)
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    return f"{SUITS[card // NUM_RANKS]}:{RANKS[card % NUM_RANKS]}"


def empty() -> np.ndarray:
    """An empty count vector ``uint8[54]``."""
    return np.zeros(NUM_CARDS, dtype=np.uint8)


def parse(text: str, decks: int = 2) -> np.ndarray:
    """Parse RULES.md §1.2 notation into a count vector ``uint8[54]``.

    ``"S:A A K, H:10 10, Jk:BJ LJ"``; suits may be written ``♠♥♣♦``, ten as ``T``; an empty
    string is the empty set. Raises ``ValueError`` naming the offending token (and, for a
    look-alike character, its code point), or the card whose count exceeds ``decks`` (1-4);
    ``TypeError`` if ``text`` is not a ``str``.
    """
    if not isinstance(text, str):
        decode = ("; decode it first, e.g. text.decode('utf-8')"
                  if isinstance(text, (bytes, bytearray)) else "")
        raise TypeError(f"parse() expects a str in RULES.md §1.2 notation (e.g. 'S:A A K, Jk:BJ'), got "
                        f"{_show(text)}{decode}")
    decks = _check_decks(decks)
    counts = np.zeros(NUM_CARDS, dtype=np.int64)
    text = text.strip()
    if text:
        for group in text.split(","):
            group = group.strip()
            if ":" not in group:
                raise ValueError(f"card group {group!r} has no 'SUIT:' prefix (e.g. 'S:A K')"
                                 f"{_unicode_hint(group)}")
            head, body = group.split(":", 1)
            head = head.strip()
            tokens = body.split()
            if not tokens:
                raise ValueError(f"card group {group!r} lists no cards")
            if _upper(head) in ("JK", "J"):
                for tok in tokens:
                    t = _upper(tok)
                    if t not in ("LJ", "BJ"):
                        raise ValueError(f"unknown joker {tok!r} in {group!r}{_unicode_hint(tok)}; "
                                         "expected LJ or BJ")
                    counts[LJ if t == "LJ" else BJ] += 1
            else:
                s = _SUIT_ALIASES.get(_upper(head))
                if s is None:
                    raise ValueError(f"unknown suit {head!r} in {group!r}{_unicode_hint(head)}; "
                                     f"expected {_SUIT_WORDS} or Jk")
                for tok in tokens:
                    r = _RANK_ALIASES.get(_upper(tok))
                    if r is None:
                        raise ValueError(f"unknown rank {tok!r} in {group!r}{_unicode_hint(tok)}; "
                                         f"expected one of {_RANK_WORDS}")
                    counts[s * NUM_RANKS + r] += 1
    too_many = np.flatnonzero(counts > decks)
    if too_many.size:
        c = int(too_many[0])
        raise ValueError(f"{name(c)} appears {counts[c]} times but there are only {decks} decks")
    return counts.astype(np.uint8)


def _count_vector(counts) -> np.ndarray:
    """``counts`` as an array of shape (54,) with whole, non-negative entries (any dtype).

    Without this, a negative count would vanish from :func:`format` and 1.5 would become 1."""
    counts = np.asarray(counts)
    if counts.shape != (NUM_CARDS,):
        raise ValueError(f"expected a count vector of shape (54,), got {counts.shape}")
    if counts.dtype.kind not in "biuf":
        raise TypeError(f"expected a count vector of numbers, got dtype {counts.dtype}")
    bad = counts < 0
    if counts.dtype.kind == "f":
        bad |= ~np.isfinite(counts) | (counts != np.round(counts))
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        raise ValueError(f"count of {name(c)} (entry {c}) is {counts[c]}; counts are whole numbers >= 0")
    return counts


def format(counts: np.ndarray) -> str:
    """Inverse of :func:`parse`: ``uint8[54]`` → ``"S:A A K, H:10 10, Jk:BJ LJ"``.

    Within a suit ranks run high → low; jokers BJ before LJ. The empty set is ``""``.
    """
    counts = _count_vector(counts)
    groups = []
    for s in range(NUM_SUITS):
        toks = []
        for r in range(NUM_RANKS - 1, -1, -1):
            toks += [RANKS[r]] * int(counts[s * NUM_RANKS + r])
        if toks:
            groups.append(f"{SUITS[s]}:{' '.join(toks)}")
    jokers = ["BJ"] * int(counts[BJ]) + ["LJ"] * int(counts[LJ])
    if jokers:
        groups.append(f"Jk:{' '.join(jokers)}")
    return ", ".join(groups)


def from_ids(ids, decks: int = 2) -> np.ndarray:
    """Count vector from an iterable of card ids (one entry per physical card).

    Ids are ints 0-53 (Python or numpy; an integer array is checked as a whole). A float, bool or
    str id raises ``TypeError`` rather than being truncated or converted; an id outside 0-53, or a
    card more often than ``decks`` (1-4), raises ``ValueError``.
    """
    decks = _check_decks(decks)
    if isinstance(ids, np.ndarray) and ids.dtype.kind != "O":
        if ids.ndim != 1:
            raise ValueError(f"card ids must be a 1-D sequence, got an array of shape {ids.shape}")
        if ids.size and ids.dtype.kind not in "iu":
            raise TypeError(f"card ids must be ints 0-53, got an array of dtype {ids.dtype} "
                            f"(first value {ids[0].item()!r})")
        bad = np.flatnonzero((ids < 0) | (ids >= NUM_CARDS))
        if bad.size:
            raise ValueError(f"card id {ids[bad[0]]} (position {bad[0]}) out of range 0-53")
        arr = ids.astype(np.int64, copy=False)
    else:
        if isinstance(ids, (str, bytes, bytearray)) or not hasattr(ids, "__iter__"):
            raise TypeError(f"from_ids() expects an iterable of card ids 0-53, got {_show(ids)}")
        arr = list(ids)
        for i, c in enumerate(arr):
            if not is_int(c):
                raise TypeError(f"card id {c!r} (position {i}) is not allowed; expected an int 0-53, "
                                f"got {type(c).__name__}")
            if not 0 <= c < NUM_CARDS:
                raise ValueError(f"card id {c} (position {i}) out of range 0-53")
        arr = np.asarray(arr, dtype=np.int64)
    counts = np.bincount(arr, minlength=NUM_CARDS)
    if (counts > decks).any():
        c = int(np.flatnonzero(counts > decks)[0])
        raise ValueError(f"{name(c)} appears {counts[c]} times but there are only {decks} decks")
    return counts.astype(np.uint8)


def to_ids(counts: np.ndarray) -> list[int]:
    """Expand a count vector into a sorted list of card ids, one per physical card."""
    counts = _count_vector(counts).astype(np.int64)
    return [int(c) for c in np.repeat(np.arange(NUM_CARDS), counts)]


def full_deck(decks: int = 2) -> np.ndarray:
    """All cards of ``decks`` (1-4) decks: ``uint8[54]`` filled with ``decks``."""
    return np.full(NUM_CARDS, _check_decks(decks), dtype=np.uint8)


def points(counts: np.ndarray) -> int:
    """Points in a set of cards (RULES.md §3.5)."""
    return int(np.asarray(counts, dtype=np.int64) @ POINTS)
