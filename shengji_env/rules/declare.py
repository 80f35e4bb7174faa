"""Trump declarations: what can be shown, its strength, acceptance, and the DECLARE actions.

RULES.md §4.3-4.6. A **declaration** is ``k`` identical cards a player shows (they stay in his
hand): ``k`` level cards of one suit (proposes that suit as trump) or ``k`` identical jokers
(proposes no-trump). Its strength is ``(k, kind)`` compared lexicographically with
``kind`` LEVEL = 0 < LJ = 1 < BJ = 2 (§4.3), which gives the ladder

    1 level card < 2 level cards < 2 LJ < 2 BJ < 3 level cards < 3 LJ < 3 BJ < ...

Note: ``LEVEL``, ``LJ`` and ``BJ`` here are declaration *kinds* (0, 1, 2), not the card ids
``cards.LJ`` (52) and ``cards.BJ`` (53); ``KIND_CARD`` maps a joker kind to its card id.

DECLARE action ids (DESIGN.md §4), ``id = DECLARE_BASE + i`` for ``declaration_actions(cfg)[i]``:

    ====================  =========================================  ==========================
    ids (2 decks)         meaning                                    general rule
    ====================  =========================================  ==========================
    56 + s*d + (k-1)      show k level cards of suit s (S,H,C,D)     s = 0..3, k = 1..d
    64, 65                LJ pair, BJ pair (no-trump)                k = min_jokers_for_nt..d,
                                                                     LJ before BJ at each k
    ====================  =========================================  ==========================

The table depends only on ``decks`` and ``min_jokers_for_nt`` (never on
``allow_no_trump_declaration``: the legal mask handles that), so the action space is fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import cards
from .config import Rules
from .order import NT

LEVEL = 0  #: declaration kind: k level cards of one suit
LJ = 1  #: declaration kind: k little jokers (no-trump)
BJ = 2  #: declaration kind: k big jokers (no-trump)
KIND_NAMES = ("LEVEL", "LJ", "BJ")
KIND_CARD = {LJ: cards.LJ, BJ: cards.BJ}  #: joker kind → card id

DECLARE_BASE = 56  #: action id of ``declaration_actions(cfg)[0]`` (DESIGN.md §4)


@dataclass(frozen=True)
class Declaration:
    """One declaration: ``player`` 0-3 shows ``k`` identical cards of ``kind``.

    ``suit`` is 0-3 (S, H, C, D) for a level declaration and -1 for a joker declaration.
    A single joker is never a declaration (§4.3), so a joker kind needs ``k >= 2``; whether ``k``
    fits the number of decks and the options is checked by :func:`is_accepted`.
    """

    player: int
    kind: int
    suit: int
    k: int

    def __post_init__(self):
        if not 0 <= self.player <= 3:
            raise ValueError(f"player={self.player!r} is not a seat; expected 0-3")
        if self.kind not in (LEVEL, LJ, BJ):
            raise ValueError(f"kind={self.kind!r} is not allowed; expected LEVEL=0, LJ=1 or BJ=2")
        if self.kind == LEVEL and not 0 <= self.suit <= 3:
            raise ValueError(f"a level declaration needs suit 0-3 (S, H, C, D), got {self.suit!r}")
        if self.kind != LEVEL and self.suit != -1:
            raise ValueError(f"a joker declaration has suit -1, got {self.suit!r}")
        if self.k < 1:
            raise ValueError(f"k={self.k!r} cards shown; expected k >= 1")
        if self.kind != LEVEL and self.k < 2:
            raise ValueError("a single joker is never a declaration (RULES.md §4.3); "
                             "a joker declaration needs k >= 2 identical jokers")

    @property
    def strength(self) -> tuple[int, int]:
        """``(k, kind)``, compared lexicographically (§4.3)."""
        return (self.k, self.kind)

    @property
    def trump(self) -> int:
        """Proposed trump: the suit 0-3 for a level declaration, ``NT`` (4) for jokers."""
        return self.suit if self.kind == LEVEL else NT

    def same_identity(self, other: Declaration) -> bool:
        """True iff both show the same card identity (reinforcement, §4.4 case 2)."""
        return (self.kind, self.suit) == (other.kind, other.suit)

    def cards(self, level: int | str) -> np.ndarray:
        """``uint8[54]`` — the shown cards, for the hand's level rank (0-12 or "2".."A")."""
        out = cards.empty()
        if self.kind == LEVEL:
            out[cards.card_id(self.suit, cards.rank_index(level))] = self.k
        else:
            out[KIND_CARD[self.kind]] = self.k
        return out

    def __str__(self) -> str:
        what = cards.SUITS[self.suit] + " level" if self.kind == LEVEL else KIND_NAMES[self.kind]
        return f"seat {self.player} shows {self.k}x {what}"


@dataclass(frozen=True)
class DeclareState:
    """Declaration state of one deal (§4.4).

    ``current``: the last accepted declaration, or None; ``first_declarer``: the seat whose
    declaration was accepted first (kept even when overturned), or None.
    """

    current: Declaration | None = None
    first_declarer: int | None = None


def declaration_from_cards(player: int, shown: np.ndarray, level: int | str) -> Declaration | None:
    """The declaration made by showing ``shown`` (``uint8[54]``), or None if it is not one.

    Valid shows (§4.3): ``k`` copies of the level card of one suit, or ``k >= 2`` copies of one
    joker. Anything else (mixed cards, ``Jk:BJ LJ``, a single joker, non-level cards) → None.
    """
    shown = np.asarray(shown)
    ids = np.flatnonzero(shown)
    if ids.size != 1:
        return None  # nothing, or several identities (e.g. BJ + LJ, §4.3)
    c, k = int(ids[0]), int(shown[ids[0]])
    if c >= cards.LJ:
        kind = LJ if c == cards.LJ else BJ
        return Declaration(player, kind, -1, k) if k >= 2 else None
    if cards.rank_of(c) != cards.rank_index(level):
        return None
    return Declaration(player, LEVEL, cards.suit_of(c), k)


def rejection(state: DeclareState, decl: Declaration, cfg: Rules) -> str | None:
    """Why ``decl`` would be refused in ``state`` under ``cfg`` (§4.3-4.4), or None if accepted."""
    if decl.k > cfg.decks:
        return f"{decl}: only {cfg.decks} copies of a card exist with {cfg.decks} decks"
    if decl.kind != LEVEL:
        if not cfg.allow_no_trump_declaration:
            return f"{decl}: joker declarations are off (allow_no_trump_declaration=False)"
        if decl.k < cfg.min_jokers_for_nt:
            return f"{decl}: a joker declaration needs k >= min_jokers_for_nt={cfg.min_jokers_for_nt}"
    cur = state.current
    if cur is None:
        return None  # §4.4 case 1: the first declaration
    if decl.player == cur.player:
        if decl.same_identity(cur):  # §4.4 case 2: reinforcement
            if not cfg.allow_reinforce:
                return f"{decl}: reinforcement is off (allow_reinforce=False)"
            if decl.k <= cur.k:
                return f"{decl}: a reinforcement must show more than the current {cur.k} cards"
            return None
        if not cfg.allow_self_overturn:  # §4.4 case 3: self-overturn
            return (f"{decl}: the current declarer may not overturn himself "
                    "(allow_self_overturn=False)")
    if decl.strength <= cur.strength:  # §4.4 cases 3-4: strictly stronger only
        return f"{decl}: strength {decl.strength} does not beat the current {cur.strength}"
    return None


def is_accepted(state: DeclareState, decl: Declaration, cfg: Rules) -> bool:
    """True iff ``decl`` is accepted in ``state`` (RULES.md §4.4)."""
    return rejection(state, decl, cfg) is None


def accept(state: DeclareState, decl: Declaration, cfg: Rules) -> DeclareState:
    """The state after accepting ``decl``; ``ValueError`` saying why if it is not accepted."""
    reason = rejection(state, decl, cfg)
    if reason is not None:
        raise ValueError(f"declaration rejected: {reason} (RULES.md §4.4)")
    first = decl.player if state.first_declarer is None else state.first_declarer
    return DeclareState(current=decl, first_declarer=first)


def declaration_actions(cfg: Rules) -> list[tuple[int, int, int]]:
    """The DECLARE action table: entry ``i`` = ``(kind, suit, k)`` of action ``DECLARE_BASE + i``.

    Level declarations for suit 0..3 and k = 1..decks (``i = s*decks + k-1``), then joker
    declarations for k = min_jokers_for_nt..decks, LJ before BJ at each k.
    """
    d = cfg.decks
    table = [(LEVEL, s, k) for s in range(cards.NUM_SUITS) for k in range(1, d + 1)]
    for k in range(cfg.min_jokers_for_nt, d + 1):
        table += [(LJ, -1, k), (BJ, -1, k)]
    return table


def num_declare_actions(cfg: Rules) -> int:
    """Number of DECLARE action ids (2 decks: 10, ids 56-65)."""
    return len(declaration_actions(cfg))


def legal_declarations(hand: np.ndarray, player: int, state: DeclareState, level: int | str,
                       cfg: Rules) -> list[int]:
    """Indices into ``declaration_actions(cfg)`` that ``player`` may declare now.

    ``hand``: ``uint8[54]`` — the cards the player holds at this moment of the deal (§4.2).
    A declaration is legal iff the player holds the ``k`` cards it shows and it would be accepted.
    """
    hand = np.asarray(hand)
    if hand.shape != (cards.NUM_CARDS,):
        raise ValueError(f"hand must be a count vector of shape (54,), got {hand.shape}")
    lvl = cards.rank_index(level)
    out = []
    for i, (kind, suit, k) in enumerate(declaration_actions(cfg)):
        card = cards.card_id(suit, lvl) if kind == LEVEL else KIND_CARD[kind]
        if hand[card] >= k and is_accepted(state, Declaration(player, kind, suit, k), cfg):
            out.append(i)
    return out


def action_declaration(action: int, player: int, cfg: Rules) -> Declaration:
    """The declaration of action id ``action`` (``DECLARE_BASE`` ≤ id < base + table size)."""
    table = declaration_actions(cfg)
    i = action - DECLARE_BASE
    if not 0 <= i < len(table):
        raise ValueError(f"action {action} is not a DECLARE action; expected "
                         f"{DECLARE_BASE}-{DECLARE_BASE + len(table) - 1} with {cfg.decks} decks")
    return Declaration(player, *table[i])


def flip_kitty_trump(kitty_cards_in_order: list[int], cfg: Rules) -> int:
    """Trump chosen by turning the kitty up from its first card (§4.6 FLIP_KITTY): 0-3 or NT.

    A suited card (a level card included) makes its printed suit trump. A joker gives NT when
    ``flip_joker_result == "NO_TRUMP"``; with ``"NEXT_CARD"`` the next card is examined, and a
    kitty of jokers only gives NT. An empty kitty (``kitty_size=0``) has nothing to flip: NT.
    """
    for card in kitty_cards_in_order:
        card = int(card)
        if not 0 <= card < cards.NUM_CARDS:
            raise ValueError(f"kitty card id {card} out of range 0-53")
        if card < cards.LJ:
            return cards.suit_of(card)
        if cfg.flip_joker_result == "NO_TRUMP":
            return NT
    return NT


def final_trump(state: DeclareState) -> int | None:
    """Trump when the window closes (§4.4): the last accepted declaration's suit or NT.

    None when nobody declared; the caller then applies the §4.6 fallback.
    """
    return None if state.current is None else state.current.trump


def first_hand_dealer(state: DeclareState, cfg: Rules) -> int | None:
    """Dealer of the first hand chosen by the declarations (§4.5).

    ``FIRST_DECLARER``: the first accepted declarer, even if overturned; ``FINAL_DECLARER``: the
    holder of the final declaration. None when nobody declared (§4.6 ``first_hand_no_declaration``
    then decides, e.g. the first drawer deals).
    """
    if state.current is None:
        return None
    if cfg.first_hand_dealer == "FIRST_DECLARER":
        return state.first_declarer
    return state.current.player
