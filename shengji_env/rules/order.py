"""Trump context, effective suit, card order and adjacency (RULES.md §3).

A ``TrumpContext`` fixes what one hand's cards mean: the level rank ``L``, the trump suit ``T``
(or no-trump), the number of decks and the ``always_trump_two`` variant. From it follow, per card
identity, the **effective suit** (0-3, or ``TRUMP`` = 4) and the dense **order index** of §3.3.
Two cards of one effective suit compare by index; positions with equal index are equal in
strength (e.g. the off-suit level cards). Positions are *consecutive* iff their indices differ
by exactly one inside one effective suit (§3.3, no wrap-around).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import cards
from ..cards import LJ, NUM_CARDS, NUM_RANKS

TRUMP = 4  #: effective suit of every trump card
NT = 4  #: trump "suit" value meaning no-trump
TRUMP_NAMES = ("S", "H", "C", "D", "NT")
TWO = 0  # rank index of the 2


def parse_trump(trump: str | int) -> int:
    """"S", "H", "C", "D", "NT" (or ♠♥♣♦, or 0-4) → 0-4."""
    if isinstance(trump, (int, np.integer)) and not isinstance(trump, bool):
        if 0 <= int(trump) <= 4:
            return int(trump)
    elif isinstance(trump, str):
        key = trump.strip().upper()
        if key in TRUMP_NAMES:
            return TRUMP_NAMES.index(key)
        if key in cards.SUIT_SYMBOLS:
            return cards.SUIT_SYMBOLS.index(key)
    raise ValueError(f"unknown trump {trump!r}; expected one of S, H, C, D, NT")


@dataclass(frozen=True)
class TrumpContext:
    """What the cards mean in one hand: level rank, trump suit, decks, the 常主 variant.

    ``level`` is a rank ("2".."A", or 0-12) and is stored as the rank index 0-12; ``trump`` is
    "S", "H", "C", "D" or "NT" and is stored as 0-4 (``NT`` = 4).
    """

    level: int | str = 0
    trump: int | str = NT
    decks: int = 2
    always_trump_two: bool = False

    def __post_init__(self):
        object.__setattr__(self, "level", cards.rank_index(self.level))
        object.__setattr__(self, "trump", parse_trump(self.trump))
        if not isinstance(self.decks, (int, np.integer)) or not 1 <= int(self.decks) <= 4:
            raise ValueError(f"decks={self.decks!r} is not allowed; expected 1-4")
        object.__setattr__(self, "decks", int(self.decks))
        object.__setattr__(self, "always_trump_two", bool(self.always_trump_two))

    def cache(self, name: str) -> dict:
        """A dict kept on this context for memoising a function of it (``patterns.decompose``,
        the heuristic's tables): faster than a module dict keyed by the context, and gone with
        it. Pickles leave these out; a process refills them as it goes."""
        key = "_cache_" + name
        d = self.__dict__.get(key)
        if d is None:
            d = self.__dict__[key] = {}
        return d

    def memo(self, name: str, key, compute, limit: int = 1 << 16):
        """``compute()``, memoised under ``key`` in :meth:`cache` ``name``; the cache starts
        over when it holds ``limit`` entries (a few MB at most). The value must not be changed
        by callers (make its arrays read-only)."""
        d = self.cache(name)
        value = d.get(key)
        if value is None:
            value = compute()
            if len(d) >= limit:
                d.clear()
            d[key] = value
        return value

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_cache_")}

    @classmethod
    def from_rules(cls, level, trump, rules) -> TrumpContext:
        """The context of a hand played under ``rules`` (a ``Rules``)."""
        return cls(level=level, trump=trump, decks=rules.decks,
                   always_trump_two=rules.always_trump_two)

    @property
    def is_no_trump(self) -> bool:
        return self.trump == NT

    @cached_property
    def twos_are_trump(self) -> bool:
        """True when the 常主 variant makes every 2 a trump (RULES.md §3.4)."""
        return self.always_trump_two and self.level != TWO

    @cached_property
    def plain_ranks(self) -> tuple[int, ...]:
        """plain(L) of §3.3: ranks low → high, without the level rank (and the 2 under 常主)."""
        return tuple(r for r in range(NUM_RANKS)
                     if r != self.level and not (self.twos_are_trump and r == TWO))

    @cached_property
    def effective_suits(self) -> np.ndarray:
        """``int8[54]`` — effective suit of every identity (0-3, or TRUMP)."""
        return _tables(self)[0]

    @cached_property
    def order_indices(self) -> np.ndarray:
        """``int8[54]`` — the §3.3 order index of every identity inside its effective suit."""
        return _tables(self)[1]

    @cached_property
    def suit_size(self) -> np.ndarray:
        """``int8[5]`` — number of positions (distinct indices) in each effective suit."""
        out = np.zeros(5, dtype=np.int8)
        for e in range(5):
            members = self.order_indices[self.effective_suits == e]
            out[e] = members.max() + 1 if members.size else 0
        return out

    @cached_property
    def position_cards(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """(effective suit, index) → the identities at that position, in suit order S, H, C, D."""
        out: dict[tuple[int, int], list[int]] = {}
        for c in range(NUM_CARDS):  # ids run S, H, C, D, jokers: suit order for free
            out.setdefault((int(self.effective_suits[c]), int(self.order_indices[c])), []).append(c)
        return {k: tuple(v) for k, v in out.items()}

    def suit_mask(self, suit: int) -> np.ndarray:
        """``bool[54]`` — identities whose effective suit is ``suit``."""
        return self.effective_suits == suit

    def __str__(self) -> str:
        return f"L={cards.RANKS[self.level]} T={TRUMP_NAMES[self.trump]} decks={self.decks}"


def _tables(ctx: TrumpContext) -> tuple[np.ndarray, np.ndarray]:
    key = (ctx.level, ctx.trump, ctx.always_trump_two)
    if key not in _TABLE_CACHE:
        eff = np.empty(NUM_CARDS, dtype=np.int8)
        idx = np.empty(NUM_CARDS, dtype=np.int8)
        for c in range(NUM_CARDS):
            eff[c] = _effective_suit(c, ctx)
            idx[c] = _order_index(c, ctx)
        eff.flags.writeable = False
        idx.flags.writeable = False
        _TABLE_CACHE[key] = (eff, idx)
    return _TABLE_CACHE[key]


_TABLE_CACHE: dict = {}


def _effective_suit(card: int, ctx: TrumpContext) -> int:
    # §3.1: trump iff joker, level rank, trump suit, or (常主) a 2.
    if card >= LJ:
        return TRUMP
    suit, rank = divmod(card, NUM_RANKS)
    if rank == ctx.level or suit == ctx.trump or (ctx.twos_are_trump and rank == TWO):
        return TRUMP
    return suit


def _order_index(card: int, ctx: TrumpContext) -> int:
    # RULES.md §3.3: plain cards (off-suit or trump suit) by rank; then, for trumps, the 2s
    # (常主), the level cards, LJ, BJ — each layer one position (NT) or two (suit trump:
    # the trump-suit copy one higher than the other three suits).
    plain = ctx.plain_ranks
    suited = ctx.trump != NT
    suit, rank = divmod(card, NUM_RANKS) if card < LJ else (-1, -1)
    if rank in plain:
        return plain.index(rank)
    base = len(plain) if suited else 0
    if ctx.twos_are_trump:
        if rank == TWO:
            return base + (1 if suited and suit == ctx.trump else 0)
        base += 2 if suited else 1
    if card < LJ:  # a level card
        return base + (1 if suited and suit == ctx.trump else 0)
    base += 2 if suited else 1
    return base if card == LJ else base + 1


def effective_suit(card_id: int, ctx: TrumpContext) -> int:
    """Effective suit of a card: 0-3 (S, H, C, D) or ``TRUMP`` (4). RULES.md §3.1."""
    return int(ctx.effective_suits[card_id])


def order_index(card_id: int, ctx: TrumpContext) -> int:
    """Order index of a card inside its effective suit (RULES.md §3.3); higher is stronger."""
    return int(ctx.order_indices[card_id])


def is_trump(card_id: int, ctx: TrumpContext) -> bool:
    return int(ctx.effective_suits[card_id]) == TRUMP


def suits_present(counts: np.ndarray, ctx: TrumpContext) -> set[int]:
    """Effective suits of the cards in ``counts`` (``uint8[54]``)."""
    return set(ctx.effective_suits[np.asarray(counts) > 0].tolist())  # (np.unique is slower)


def single_suit(counts: np.ndarray, ctx: TrumpContext) -> int:
    """The one effective suit of a non-empty set of cards; ``ValueError`` if mixed or empty."""
    present = suits_present(counts, ctx)
    if len(present) != 1:
        what = "is empty" if not present else (
            "mixes effective suits " + ", ".join(TRUMP_NAMES[s] if s < 4 else "trump"
                                                 for s in sorted(present)))
        raise ValueError(f"{cards.format(counts) or 'the play'} {what}; one effective suit is "
                         "required (RULES.md §7.2)")
    return present.pop()


def canonical_order(level, trump, always_trump_two: bool = False) -> np.ndarray:
    """``int16[54]`` — card ids in the trump-relative order agents use to present cards.

    Off-suits first, in suit order starting after the trump suit (S, H, C, D under no-trump),
    each high → low; then trump high → low (BJ, LJ, level cards, trump-suit cards; equal cards in
    suit order starting after the trump suit). Slot ``j`` then means the same thing in every hand
    with the same kind of trump, whatever the trump suit and level. DESIGN.md §4.
    """
    ctx = TrumpContext(level=level, trump=trump, always_trump_two=always_trump_two)
    start = 0 if ctx.trump == NT else ctx.trump + 1
    suit_rank = {s: (s - start) % 4 for s in range(4)}

    def key(c: int):
        e = int(ctx.effective_suits[c])
        group = 4 if e == TRUMP else suit_rank[e]
        tie = 0 if c >= LJ else suit_rank[c // NUM_RANKS]
        return (group, -int(ctx.order_indices[c]), tie)

    return np.array(sorted(range(NUM_CARDS), key=key), dtype=np.int16)
