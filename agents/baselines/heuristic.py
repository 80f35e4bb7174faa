"""``HeuristicAgent``: a rule-based Shengji player built on ``shengji_env.rules``.

It reads only the observation (decoded with ``core.observe.decode``) and the legal mask, so it
plays the same through the reference ``Game``, the batched engine or the PettingZoo env.

Per phase (DESIGN.md §4):

* **declare**: show level cards of a suit when the cards that suit would make trump are long
  and strong for the cards received so far; reinforce its own declaration; never overturn the
  partner; overturn an opponent only with a suit of its own that is strong.
* **bury**: void the short off-suits (fewest cards, no aces, no points), fill up with low
  off-suit cards; bury trump or points only when nothing else is left (RULES.md §5).
* **play**: ``heuristic_play.plan_lead`` / ``plan_follow`` choose a whole play.
* **friend** (find-friends, RULES.md §10.6): name a trump another seat showed in an overturn and
  holds every other copy of, so that strong seat is the friend and the dealer knows him from the
  start (``shown_friend_card``); else the big joker, so the friend holds the top
  trump (``name_friend_card``); else an ace it lacks (no copy held or buried) of its longest
  off-suit, so the friend is strong where the dealer leads; else one copy held; else a king,
  else the small joker; never a card that would leave it alone. In play it helps the partners the
  observation reveals (the dealer, the shown friend; ``heuristic_play.known_partners``); an
  attacker, while the friend is hidden, counts as partner a seat the play proves is not the
  friend (it played a copy of the friend card unshown, or is void in its suit). Four play rules
  exist only in this mode (``heuristic_friends``): near the end keep its best trump for the last
  trick (the multiplied kitty; the dealer only when he buried points); last cards that form one
  unit are led whole (a bigger kitty multiplier, a harder lead to beat); the friend leads a high
  single rather than a low one that gives the lead away; a point trick is taken with a probable
  winner rather than left to seats it cannot count on.

A multi-card play (a lead, a follow, the bury) is planned once and emitted one ``CARD`` per
call. The plan is a deterministic function of the observation *without* the selection block, so
the agent is stateless: every call re-derives the plan (a small cache keyed by the observation
bytes only saves the work) and emits a card of ``plan - selection``; a leader then ``END``\\ s.
A selection another policy started (epsilon-greedy, say) is completed with the cheapest legal
cards. Every action is checked against the mask; should anything still be inconsistent the agent
falls back to a legal action (and counts it in ``fallbacks``; ``strict=True`` raises instead).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from shengji_env import Rules, cards
from shengji_env.core.observe import decode, layout
from shengji_env.rules import TRUMP, TrumpContext, is_legal_follow
from shengji_env.rules import declare as declare_rules
from shengji_env.rules.actions import END, PASS, Phase, action_layout

from ..base import BasePolicy, check_batch
from . import heuristic_friends
from .heuristic_play import POINTS, Table, pick_cheapest, plan_follow, plan_lead

__all__ = ["HeuristicAgent", "name_friend_card", "plan_bury", "shown_friend_card",
           "trump_strength"]

DECLARE_BASE = declare_rules.DECLARE_BASE


def trump_strength(hand: np.ndarray, trump: int, level: int) -> float:
    """Weighted count of the cards of ``hand`` (uint8[54]) that would be trump if ``trump``
    (0-3, or 4 = no-trump) were chosen: jokers and level cards count more, high ranks a bit."""
    hand = np.asarray(hand, dtype=np.float64)
    score = 1.5 * hand[cards.LJ] + 2.0 * hand[cards.BJ]
    score += 1.4 * sum(hand[s * 13 + level] for s in range(4))
    if trump < 4:
        ranks = np.arange(13)
        suit = hand[trump * 13: trump * 13 + 13] * (ranks != level)
        score += float(suit @ (1.0 + 0.04 * ranks))
    return float(score)


def name_friend_card(view, ctx: TrumpContext, decks: int) -> int:
    """The card id to name as the friend card (RULES.md §10.6) after the bury, in order of
    preference: a trump that makes the seat who showed it in an overturn the friend
    (:func:`shown_friend_card`: he holds at least a pair of trumps, e.g. the joker pair of a
    no-trump overturn, which would otherwise play against the dealer); the big joker — its
    holder has the top trump, a card that wins the trick it is played in whatever his skill,
    draws trumps and can take the last trick (and so keep the kitty away from the attackers),
    while an off-suit ace can be ruffed or wasted on a trick already won; then an off-suit ace,
    in the dealer's longest off-suit, of which he holds (or buried) no copy — its holder then
    backs the suit the dealer leads; an off-suit ace he holds some of; the same for kings; then
    the small joker. Never a card with every copy in his hand or kitty (that would leave him
    alone)."""
    shown = shown_friend_card(view, ctx, decks)
    if shown is not None:
        return shown
    mine = view.hand.astype(np.int64) + view.kitty.astype(np.int64)  # hand and buried cards
    eff = ctx.effective_suits
    length = np.array([int(view.hand[eff == s].sum()) for s in range(5)])
    best, best_score = None, -1e9
    for c in range(54):
        if mine[c] >= decks:
            continue  # I hold (or buried) every copy: alone
        rank = c % 13
        if c == cards.BJ:
            score = 100.0
        elif c >= 52:
            score = -50.0 + c  # the small joker: the friend has trump strength at least
        elif eff[c] == TRUMP:
            continue
        elif rank == 12:
            score = 20.0 + length[eff[c]] - 5.0 * mine[c]
        elif rank == 11:
            score = 0.0 + length[eff[c]] - 5.0 * mine[c]
        else:
            continue
        if score > best_score:
            best, best_score = c, score
    return int(best if best is not None else int(np.argmin(mine)))


def shown_friend_card(view, ctx: TrumpContext, decks: int) -> int | None:
    """A card that makes a known strong seat the friend: a trump (joker or level card) another
    seat showed in a declaration — an overturn, so at least a pair — where that seat holds every
    copy not in the dealer's hand or kitty (RULES.md §10.6: he is then the friend whoever sits
    between). The highest such trump, or None. Shown cards stay in their holder's hand."""
    mine = view.hand.astype(np.int64) + view.kitty.astype(np.int64)
    best, best_idx = None, -1
    for r in (1, 2, 3):
        for c in np.flatnonzero(view.shown[r]).tolist():
            if ctx.effective_suits[c] != TRUMP or mine[c] >= decks:
                continue  # every copy mine: alone
            if int(view.shown[r, c]) + int(mine[c]) < decks:
                continue  # a copy is unaccounted for: its holder may come first
            if ctx.order_indices[c] > best_idx:
                best, best_idx = c, int(ctx.order_indices[c])
    return best


def plan_bury(hand: np.ndarray, ctx: TrumpContext, size: int,
              points_allowed: bool = True) -> np.ndarray:
    """``int64[54]`` — the ``size`` cards to bury from ``hand`` (the dealer's cards, kitty
    included): void short off-suits without aces or points, then fill with low off-suit cards;
    trump only when the off-suits run out. ``points_allowed=False`` (RULES.md §5.2 variant):
    point cards only when nothing else is left."""
    return bury_options(hand, ctx, size, points_allowed)[0]


def bury_options(hand: np.ndarray, ctx: TrumpContext, size: int, points_allowed: bool = True,
                 limit: int = 1) -> list[np.ndarray]:
    """Up to ``limit`` distinct buries ``int64[54]``, best first by the heuristic's own score:
    ``plan_bury``'s choice, then the buries that void another set of off-suits (each filled up
    the same way). The search agent's bury candidates (``PIMCAgent(bury=K)``)."""
    hand = np.asarray(hand, dtype=np.int64)
    eff, idx = ctx.effective_suits, ctx.order_indices
    off = np.where(eff != TRUMP, hand, 0)
    top = ctx.suit_size[np.minimum(eff, 3)].astype(np.int64) - 1  # the ace of each off-suit
    # cost of burying a card: points (the kitty may be multiplied for the attackers), an ace
    # or king, breaking a pair; forbidden points cost more than anything else
    cost = (1.0 * POINTS + np.where(idx >= top, 8.0, 0.0) + np.where(idx == top - 1, 1.5, 0.0)
            + 0.25 * idx + np.where(hand >= 2, 3.0, 0.0))
    if not points_allowed:
        cost = cost + 1000.0 * (POINTS > 0)
    trump_cost = 100.0 + idx + 2.0 * POINTS + (0.0 if points_allowed else 1000.0 * (POINTS > 0))
    if int(off.sum()) <= size:
        return [pick_cheapest(hand, size, np.where(eff == TRUMP, trump_cost, cost))]
    suits = [s for s in range(4) if off[eff == s].sum() > 0]
    scored = []  # (score, enumeration order, voided suits); the first best is plan_bury's
    for chosen_mask in range(1 << len(suits)):
        chosen = [suits[i] for i in range(len(suits)) if chosen_mask >> i & 1]
        n = sum(int(off[eff == s].sum()) for s in chosen)
        if n > size:
            continue
        paid = sum(float((off * cost)[eff == s].sum()) for s in chosen)
        scored.append((12.0 * len(chosen) - paid, chosen_mask, tuple(chosen)))
    scored.sort(key=lambda x: (-x[0], x[1]))
    out: list[np.ndarray] = []
    for _, _, chosen in scored:
        voided = np.where(np.isin(eff, chosen), off, 0)
        rest = hand - voided
        # fill from the shortest remaining suits first (towards the next void); trump last
        suit_len = np.array([rest[eff == s].sum() for s in range(5)], dtype=np.float64)
        fill_cost = np.where(eff == TRUMP, trump_cost, cost + 0.3 * suit_len[eff])
        bury = voided + pick_cheapest(rest, size - int(voided.sum()), fill_cost)
        if not any((bury == b).all() for b in out):
            out.append(bury)
        if len(out) >= limit:
            break
    return out


class HeuristicAgent(BasePolicy):
    """A competent rule-based player for ``rules`` (a ``shengji_env.Rules``).

    ``strict=True`` raises on internal errors instead of falling back to a legal action (tests).
    ``declare=False`` never declares trump (it passes whenever it may): a variant for
    experiments (``heuristic?declare=false``). Against the default it wins 53% of hands,
    because the default declares hands it then loses as the dealer side (README, "Shipped
    bot").
    Deterministic: ``rng`` is not used.
    """

    name = "heuristic"

    def __init__(self, rules: Rules | None = None, strict: bool = False, cache_size: int = 64,
                 declare: bool = True):
        if not isinstance(declare, bool):  # "declare=0" from a spec is not a bool (agents.specs)
            raise ValueError(f"declare={declare!r}; expected true or false")
        if isinstance(cache_size, bool) or not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size={cache_size!r}; expected an int >= 0 (plans kept; 0: "
                             "none)")
        self.rules = rules if rules is not None else Rules()
        self.strict = strict
        self.declare = declare
        self.fallbacks = 0
        at = layout(self.rules)
        self._sel = at["selection"]
        self._table = declare_rules.declaration_actions(self.rules)
        self._layout = action_layout(self.rules)
        self._ctx: dict[tuple[int, int], TrumpContext] = {}
        self._plans: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    # ---------------------------------------------------------------- entry point
    def act(self, obs: dict, rng: np.random.Generator | None = None) -> int:
        observation = np.asarray(obs["observation"], dtype=np.float32)
        mask = np.asarray(obs["action_mask"]).astype(bool)
        try:
            action = self._decide(observation, mask)
        except Exception:
            if self.strict:
                raise
            action = -1
        if not (0 <= action < mask.size and mask[action]):
            if self.strict:
                raise RuntimeError(f"heuristic chose illegal action {action}; legal: "
                                   f"{np.flatnonzero(mask).tolist()}")
            self.fallbacks += 1
            action = self._fallback(mask)
        return int(action)

    def act_with_options(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``act_batch`` plus, per row, every action that makes the same play:
        ``(actions int64[B], options bool[B, A])``. The cards of a planned multi-card play (a
        lead, a follow, the bury) may be selected in any order the mask allows, so all of the
        plan's remaining legal cards are equally the teacher's choice — imitation targets
        (``agents.learners.imitation``) that don't ask a learner to guess the order cards are emitted in.
        Any other decision has the chosen action as its only option."""
        obs, mask = check_batch(obs, mask)
        actions = np.zeros(len(obs), dtype=np.int64)
        options = np.zeros(mask.shape, dtype=bool)
        for i in range(len(obs)):
            a = actions[i] = self.act({"observation": obs[i], "action_mask": mask[i]})
            options[i, a] = True
            if a < 54:  # a card: the plan that chose it was just cached
                o = obs[i]
                plan = self._plans.get(o[:self._sel.start].tobytes() + o[self._sel.stop:].tobytes())
                if plan is not None:
                    rest = plan - np.rint(o[self._sel]).astype(np.int64)
                    if (rest >= 0).all():
                        options[i, :54] |= (rest > 0) & mask[i, :54]
        return actions, options

    @staticmethod
    def _fallback(mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(PASS if mask[PASS] else legal[0])

    def ctx(self, level: int, trump: int) -> TrumpContext:
        key = (level, trump)
        if key not in self._ctx:  # one context per (level, trump): its tables are cached inside
            self._ctx[key] = TrumpContext.from_rules(level, trump, self.rules)
        return self._ctx[key]

    def _decide(self, observation: np.ndarray, mask: np.ndarray) -> int:
        key = observation[:self._sel.start].tobytes() + observation[self._sel.stop:].tobytes()
        plan = self._plans.get(key)
        if plan is not None:  # the rest of a play planned at an earlier call
            selection = np.rint(observation[self._sel]).astype(np.int64)
            return self._emit(plan, selection, mask, observation)
        view = decode(observation, self.rules)
        if view.phase == Phase.DECLARE:
            return self._declare(view, mask)
        if view.phase == Phase.NAME:
            base = self._layout.name_base
            options = [t for t in range(5) if mask[base + t]]
            return base + max(options, key=lambda t: trump_strength(view.hand, t, view.level)
                              - (3.0 if t == 4 else 0.0))
        if view.phase == Phase.CHOOSE:
            # an opponent's throw failed and I pick the unit he must lead (RULES.md §7.4):
            # the one carrying the fewest points, then the fewest cards
            base = self._layout.choose_base
            options = [i for i in range(mask.size - base) if mask[base + i]]
            return base + min(options, key=lambda i: (cards.points(view.candidates[i]),
                                                      int(view.candidates[i].sum())))
        if view.phase == Phase.FRIEND:
            return self._layout.friend_base + name_friend_card(view, self.ctx(view.level, view.trump),
                                                               self.rules.decks)
        if view.phase not in (Phase.BURY, Phase.PLAY):
            return self._fallback(mask)
        plan = self._plan(view)
        self._plans[key] = plan
        if len(self._plans) > self._cache_size:
            self._plans.popitem(last=False)
        return self._emit(plan, view.selection.astype(np.int64), mask, observation)

    def _emit(self, plan: np.ndarray, selection: np.ndarray, mask: np.ndarray,
              observation: np.ndarray) -> int:
        """The next action of ``plan`` (int64[54]) given the cards already selected."""
        rest = plan - selection
        if (rest < 0).any():  # someone else started this selection
            return self._complete(decode(observation, self.rules), mask)
        if not rest.any():
            return END
        legal = np.flatnonzero((rest > 0) & mask[:54])
        if not legal.size:
            raise RuntimeError("no card of the plan is legal")
        return int(legal[0])

    def _complete(self, view, mask: np.ndarray) -> int:
        """Finish a selection that is not ours (another policy chose its first cards, e.g.
        under epsilon-greedy): a leader leads what is selected; otherwise the cheapest card
        the mask allows."""
        if mask[END]:
            return END
        legal = np.flatnonzero(mask[:54])
        t = Table.build(view, self.rules, self.ctx(view.level, view.trump))
        return int(legal[np.argmin(t.costs["keep"][legal])])

    def _plan(self, view) -> np.ndarray:
        ctx = self.ctx(view.level, view.trump)
        if view.phase == Phase.BURY:
            return plan_bury(view.hand, ctx, self.rules.kitty_size,
                             self.rules.kitty_point_cards_allowed)
        t = Table.build(view, self.rules, ctx)
        if view.my_side is not None:  # find-friends: its own rules (heuristic_friends)
            play = heuristic_friends.plan_play(t)
        elif view.leading:
            return plan_lead(t)
        else:
            play = plan_follow(t)
        if view.leading:
            return play
        # single cards are legal by construction; structured follows are checked (§8.2)
        if int(play.sum()) > 1 and not is_legal_follow(view.hand, t.lead.astype(np.uint8),
                                                       play.astype(np.uint8), ctx, self.rules):
            raise RuntimeError("planned follow is illegal")
        return play

    # ---------------------------------------------------------------- declaring
    def _declare(self, view, mask: np.ndarray) -> int:
        legal = [a for a in range(DECLARE_BASE, DECLARE_BASE + len(self._table)) if mask[a]]
        if not self.declare or not legal or (view.declarer == 2 and view.my_side is None):
            return PASS  # never overturn the partner
        held = int(view.hand.sum())
        hand_size = self.rules.hand_size
        best, best_ratio = PASS, 0.0
        for a in legal:
            kind, suit, _ = self._table[a - DECLARE_BASE]
            trump = suit if kind == declare_rules.LEVEL else 4
            ratio = trump_strength(view.hand, trump, view.level) / max(held, 1)
            if trump == 4:
                ratio -= 0.15  # no-trump wastes a long suit: only with many jokers/level cards
            shows = cards.card_id(suit, view.level) if kind == declare_rules.LEVEL else \
                declare_rules.KIND_CARD[kind]
            if view.declarer == 0 and view.shown[0, shows] > 0:
                ratio += 1.0  # reinforcing my own declaration: always worth it
            if ratio > best_ratio:
                best, best_ratio = a, ratio
        # early in the deal few cards say little: ask for a clearer majority
        need = 0.55 if held < 6 else (0.45 if held < 0.6 * hand_size else 0.38)
        return best if best_ratio >= need else PASS
