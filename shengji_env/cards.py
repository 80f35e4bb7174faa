"""Card identities, the RULES.md §1.2 notation, and deck constants.

A card *identity* is an integer id (DESIGN.md §2)::

    id = suit * 13 + rank      suits S=0, H=1, C=2, D=3; ranks 2..A = 0..12
    LJ = 52 (little joker)     BJ = 53 (big joker)

With ``d`` decks there are ``d`` copies of every identity. A set of cards is a count vector
``uint8[54]`` (batched ``uint8[..., 54]``): entry ``i`` is how many copies of card ``i``.

Notation (RULES.md §1.2): groups by printed suit, jokers under ``Jk``::

    parse("S:A A K, H:10 10, Jk:BJ LJ")   # also ♠♥♣♦ for suits and T for ten
    format(counts) == "S:A A K, H:10 10, Jk:BJ LJ"
"""

from __future__ import annotations

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


def card_id(suit: int | str, rank: int | str) -> int:
    """Identity of a suited card; ``suit`` as 0-3 or a letter/symbol, ``rank`` as 0-12 or "2".."A"."""
    s = _SUIT_ALIASES[suit.upper()] if isinstance(suit, str) else int(suit)
    r = rank_index(rank) if isinstance(rank, str) else int(rank)
    if not (0 <= s < NUM_SUITS and 0 <= r < NUM_RANKS):
        raise ValueError(f"no card with suit {suit!r} and rank {rank!r}")
    return s * NUM_RANKS + r


def rank_index(rank: str | int) -> int:
    """Rank "2".."A" (or "T" for ten, or an int 0-12) → 0-12."""
    if isinstance(rank, (int, np.integer)):
        if 0 <= int(rank) < NUM_RANKS:
            return int(rank)
        raise ValueError(f"rank index {rank} out of range 0-12")
    key = str(rank).strip().upper()
    if key not in _RANK_ALIASES:
        raise ValueError(f"unknown rank {rank!r}; expected one of {', '.join(RANKS)} (or T)")
    return _RANK_ALIASES[key]


def suit_of(card: int) -> int:
    """Printed suit 0-3 of a suited card, or -1 for a joker."""
    return -1 if card >= LJ else card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank 0-12 of a suited card, or -1 for a joker."""
    return -1 if card >= LJ else card % NUM_RANKS


def name(card: int) -> str:
    """Short name of one card: ``"S:A"``, ``"H:10"``, ``"BJ"``."""
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} out of range 0-53")
    return f"{SUITS[card // NUM_RANKS]}:{RANKS[card % NUM_RANKS]}"


def empty() -> np.ndarray:
    """An empty count vector ``uint8[54]``."""
    return np.zeros(NUM_CARDS, dtype=np.uint8)


def parse(text: str, decks: int = 2) -> np.ndarray:
    """Parse RULES.md §1.2 notation into a count vector ``uint8[54]``.

    ``"S:A A K, H:10 10, Jk:BJ LJ"``; suits may be written ``♠♥♣♦``, ten as ``T``; an empty
    string is the empty set. Raises ``ValueError`` naming the offending token, or the card whose
    count exceeds ``decks``.
    """
    counts = np.zeros(NUM_CARDS, dtype=np.int64)
    text = text.strip()
    if text:
        for group in text.split(","):
            group = group.strip()
            if ":" not in group:
                raise ValueError(f"card group {group!r} has no 'SUIT:' prefix (e.g. 'S:A K')")
            head, body = group.split(":", 1)
            head = head.strip()
            tokens = body.split()
            if not tokens:
                raise ValueError(f"card group {group!r} lists no cards")
            if head.upper() in ("JK", "J"):
                for tok in tokens:
                    t = tok.upper()
                    if t not in ("LJ", "BJ"):
                        raise ValueError(f"unknown joker {tok!r} in {group!r}; expected LJ or BJ")
                    counts[LJ if t == "LJ" else BJ] += 1
            else:
                if head.upper() not in _SUIT_ALIASES and head not in _SUIT_ALIASES:
                    raise ValueError(f"unknown suit {head!r} in {group!r}; expected S, H, C, D, "
                                     "♠, ♥, ♣, ♦ or Jk")
                s = _SUIT_ALIASES.get(head.upper(), _SUIT_ALIASES.get(head))
                for tok in tokens:
                    if tok.upper() not in _RANK_ALIASES:
                        raise ValueError(f"unknown rank {tok!r} in {group!r}; expected one of "
                                         f"{' '.join(RANKS)} (or T)")
                    counts[s * NUM_RANKS + _RANK_ALIASES[tok.upper()]] += 1
    too_many = np.flatnonzero(counts > decks)
    if too_many.size:
        c = int(too_many[0])
        raise ValueError(f"{name(c)} appears {counts[c]} times but there are only {decks} decks")
    return counts.astype(np.uint8)


def format(counts: np.ndarray) -> str:
    """Inverse of :func:`parse`: ``uint8[54]`` → ``"S:A A K, H:10 10, Jk:BJ LJ"``.

    Within a suit ranks run high → low; jokers BJ before LJ. The empty set is ``""``.
    """
    counts = np.asarray(counts)
    if counts.shape != (NUM_CARDS,):
        raise ValueError(f"expected a count vector of shape (54,), got {counts.shape}")
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
    """Count vector from an iterable of card ids (one entry per physical card)."""
    counts = np.bincount(np.asarray(list(ids), dtype=np.int64), minlength=NUM_CARDS)
    if counts.size > NUM_CARDS:
        raise ValueError(f"card ids must be 0-53, got {np.flatnonzero(counts)[-1]}")
    if (counts > decks).any():
        c = int(np.flatnonzero(counts > decks)[0])
        raise ValueError(f"{name(c)} appears {counts[c]} times but there are only {decks} decks")
    return counts.astype(np.uint8)


def to_ids(counts: np.ndarray) -> list[int]:
    """Expand a count vector into a sorted list of card ids, one per physical card."""
    return [int(c) for c in np.repeat(np.arange(NUM_CARDS), np.asarray(counts, dtype=np.int64))]


def full_deck(decks: int = 2) -> np.ndarray:
    """All cards of ``decks`` decks: ``uint8[54]`` filled with ``decks``."""
    return np.full(NUM_CARDS, decks, dtype=np.uint8)


def points(counts: np.ndarray) -> int:
    """Points in a set of cards (RULES.md §3.5)."""
    return int(np.asarray(counts, dtype=np.int64) @ POINTS)
