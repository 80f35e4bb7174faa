"""Lookup tables precomputed from ``rules/`` for every (level, trump) context.

A context id is ``level * 5 + trump`` (level rank 0-12, trump 0-3 or NT = 4). The engine stores
one id per game and gathers these rows once per hand (when the trump is fixed), never per card.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import cards
from ..rules import declare
from ..rules.order import TRUMP, TrumpContext

NUM_CONTEXTS = 13 * 5

_PAIR_FACTOR = {"FLAT2": 2, "LINEAR": 4, "POWER": 4, "TIERED": 4}  # f(pair) of §10.2
_HOLD_NEXT = {"STANDARD": 2, "STAY_WHILE_HOLDING": 0, "ALWAYS_NEXT": 1}  # §10.4, seats onward


@dataclass(frozen=True)
class Switches:
    """Rule options turned into the plain values the batched code uses, computed once per
    ruleset so the phase code has no option ``if`` chains on its common path.

    * ``pairs``: pairs and tractors exist (2+ decks): the §8.2 structure obligation applies;
    * ``tuples``: triples exist (3+ decks): leads holding a triple or quad take the scalar
      rules (§8.3), like leads holding a tractor;
    * ``quads``: 4 decks: one identity can hold two pairs (the closed form counts ``count // 2``);
    * ``scalar_throw_winner``: ``throw_comparison="ALL_UNITS"`` — winners of throws come from
      the scalar rules;
    * ``penalty_fixed`` / ``penalty_per_card``: a failed throw's penalty is ``fixed +
      per_card × cards returned`` points (§7.4.5; both 0 for ``NONE``);
    * ``failed_throw_choice``: who picks the failed unit (§7.4.3), as the option's name;
    * ``pair_factor``: the kitty multiplier of a basis whose best unit is a pair (§10.2);
    * ``hold_next``: seats from the dealer to the next dealer when the dealer side holds;
    * ``vector_levels``: the level change needs no scalar rules (``PASS_A`` without mandatory
      levels or a reset at A, §10.3-10.5).
    """

    pairs: bool
    tuples: bool
    quads: bool
    scalar_throw_winner: bool
    penalty_fixed: int
    penalty_per_card: int
    failed_throw_choice: str
    pair_factor: int
    hold_next: int
    vector_levels: bool

    @classmethod
    def from_rules(cls, cfg) -> Switches:
        return cls(
            pairs=cfg.decks > 1,
            tuples=cfg.decks > 2,
            quads=cfg.decks > 3,
            scalar_throw_winner=cfg.throw_comparison == "ALL_UNITS",
            penalty_fixed=10 if cfg.throw_penalty == "FIXED_10" else 0,
            penalty_per_card=10 if cfg.throw_penalty == "PER_CARD_10" else 0,
            failed_throw_choice=cfg.failed_throw_choice,
            pair_factor=_PAIR_FACTOR[cfg.kitty_multiplier],
            hold_next=_HOLD_NEXT[cfg.dealer_rotation],
            vector_levels=(cfg.win_condition == "PASS_A" and not cfg.mandatory_levels
                           and not cfg.reset_when_dug_at_A))


def context_id(level, trump):
    """Context id(s) of level rank(s) and trump(s); works on ints and arrays."""
    return level * 5 + trump


class Tables:
    """Per-context card facts for one ruleset (``cfg``), all read-only:

    * ``eff``: ``int8[65, 54]`` — effective suit of every card (0-3, TRUMP = 4), §3.1;
    * ``idx``: ``int8[65, 54]`` — order index inside the effective suit, §3.3;
    * ``bit``: ``int64[65, 54]`` — ``1 << idx`` (position bit masks, for tractor tests);
    * ``in_suit``: ``bool[65, 5, 54]`` — ``eff == k`` for each effective suit k (the one-game
      path reads a row instead of comparing one);
    * ``suit_mask``: ``uint8[65·5, 54]`` — ``in_suit`` as 255 / 0 rows ``ctx·5 + k``;
    * ``suit_or_any``: ``uint8[65·6, 54]`` — ``suit_mask`` with a sixth row of 255 (every card)
      per context, rows ``ctx·6 + k`` (the play mask's one gather: a leader may play any card);
    * ``play_key``: ``int8[65·5·54]`` — a one-card play's key for the trick's winner
      (``trick._winners``), entries ``(ctx·5 + E)·54 + card`` for led suit E: its order index,
      plus 64 if it ruffs (trump, E is not), or minus 128 if it neither follows nor ruffs;
    * ``points``: ``int16[54]`` — card points, §3.5;
    * ``decl_kind / decl_suit / decl_k``: ``int8[D]`` — the DECLARE action table (§4.3);
    * ``decl_col``: ``int8[D]`` — which of the 6 declarable counts an action needs
      (0-3: level card of that suit, 4: LJ, 5: BJ).
    """

    def __init__(self, cfg):
        self.cfg = cfg
        self._contexts: dict[tuple[int, int], TrumpContext] = {}
        self.eff = np.zeros((NUM_CONTEXTS, 54), dtype=np.int8)
        self.idx = np.zeros((NUM_CONTEXTS, 54), dtype=np.int8)
        for level in range(13):
            for trump in range(5):
                ctx = TrumpContext(level, trump, cfg.decks, cfg.always_trump_two)
                self.eff[context_id(level, trump)] = ctx.effective_suits
                self.idx[context_id(level, trump)] = ctx.order_indices
        self.bit = np.left_shift(np.int64(1), self.idx.astype(np.int64))
        # one row lookup (~100 ns) instead of comparing a 54-card row (~600 ns) on the one-game path
        self.in_suit = np.stack([self.eff == k for k in range(5)], axis=1)
        # the same as uint8 rows [ctx·5 + k] of 255 / 0, for masks of counts (``trick.suit_rows``)
        self.suit_mask = (self.in_suit.reshape(NUM_CONTEXTS * 5, 54) * np.uint8(255)).astype(np.uint8)
        by_ctx = self.suit_mask.reshape(NUM_CONTEXTS, 5, 54)
        every_card = np.full((NUM_CONTEXTS, 1, 54), 255, dtype=np.uint8)
        self.suit_or_any = np.concatenate([by_ctx, every_card], axis=1).reshape(-1, 54)
        # by (E, the card's suit f): 0 if f = E (a follow), 64 if f is trump and E is not (a
        # ruff: above every follow; order indices are 0-15), -128 otherwise (below both)
        led, own = np.arange(5)[:, None], np.arange(5)
        add = np.where(led == own, 0, np.where(own == TRUMP, 64, -128))  # int64[E, f]
        key = self.idx[:, None, :] + add.take(self.eff, axis=1).transpose(1, 0, 2)  # [65, 5, 54]
        self.play_key = key.astype(np.int8).reshape(-1)
        self.points = cards.POINTS.copy()
        acts = declare.declaration_actions(cfg)
        self.decl_kind = np.array([a[0] for a in acts], dtype=np.int8)
        self.decl_suit = np.array([a[1] for a in acts], dtype=np.int8)
        self.decl_k = np.array([a[2] for a in acts], dtype=np.int8)
        self.decl_col = np.where(self.decl_kind == declare.LEVEL, self.decl_suit,
                                 3 + self.decl_kind).astype(np.int8)
        for a in (self.eff, self.idx, self.bit, self.in_suit, self.suit_mask, self.suit_or_any,
                  self.play_key, self.points, self.decl_kind, self.decl_suit, self.decl_k,
                  self.decl_col):
            a.flags.writeable = False

    def context(self, level: int, trump: int) -> TrumpContext:
        """The scalar ``TrumpContext`` of a context, for rare cases handled by ``rules/``."""
        key = (level, trump)
        if key not in self._contexts:  # cached: a context caches its own derived tables
            self._contexts[key] = TrumpContext(level, trump, self.cfg.decks,
                                               self.cfg.always_trump_two)
        return self._contexts[key]
