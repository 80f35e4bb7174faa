"""Lookup tables precomputed from ``rules/`` for every (level, trump) context.

A context id is ``level * 5 + trump`` (level rank 0-12, trump 0-3 or NT = 4). The engine stores
one id per game and gathers these rows once per hand (when the trump is fixed), never per card.
"""

from __future__ import annotations

import numpy as np

from .. import cards
from ..rules import declare
from ..rules.order import TRUMP, TrumpContext

NUM_CONTEXTS = 13 * 5


def context_id(level, trump):
    """Context id(s) of level rank(s) and trump(s); works on ints and arrays."""
    return level * 5 + trump


class Tables:
    """Per-context card facts for one ruleset (``cfg``), all read-only:

    * ``eff``: ``int8[65, 54]`` — effective suit of every card (0-3, TRUMP = 4), §3.1;
    * ``idx``: ``int8[65, 54]`` — order index inside the effective suit, §3.3;
    * ``bit``: ``int64[65, 54]`` — ``1 << idx`` (position bit masks, for tractor tests);
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
        self.is_trump = self.eff == TRUMP
        self.points = cards.POINTS.copy()
        acts = declare.declaration_actions(cfg)
        self.decl_kind = np.array([a[0] for a in acts], dtype=np.int8)
        self.decl_suit = np.array([a[1] for a in acts], dtype=np.int8)
        self.decl_k = np.array([a[2] for a in acts], dtype=np.int8)
        self.decl_col = np.where(self.decl_kind == declare.LEVEL, self.decl_suit,
                                 3 + self.decl_kind).astype(np.int8)
        for a in (self.eff, self.idx, self.bit, self.is_trump, self.points, self.decl_kind,
                  self.decl_suit, self.decl_k, self.decl_col):
            a.flags.writeable = False

    def context(self, level: int, trump: int) -> TrumpContext:
        """The scalar ``TrumpContext`` of a context, for rare cases handled by ``rules/``."""
        key = (level, trump)
        if key not in self._contexts:  # cached: a context caches its own derived tables
            self._contexts[key] = TrumpContext(level, trump, self.cfg.decks,
                                               self.cfg.always_trump_two)
        return self._contexts[key]
