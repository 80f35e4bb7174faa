"""Whole plays: every candidate lead and follow of a hand, as count vectors ``int64[54]``.

An agent that reasons about whole plays — the search agent (``agents.search``), a Deep
Monte-Carlo learner scoring plays by action features — needs them enumerated, while the
environment builds a play one card at a time (DESIGN.md §4). This module lists them:

* ``follow_plays``: the legal follows of a hand to a lead (RULES.md §8), by depth-first search
  over the prefix-closed mask of ``rules.legal_next_cards``; each multiset once (cards are added
  in a fixed order of preference), at most ``cap`` of them — the preferred ones first;
* ``lead_plays``: every unit of the hand (singles, pairs, tractors and their shorter runs,
  §6.1) and, given the cards still unseen, the *safe throws*: per suit, all units no unseen
  cards can beat (a throw that cannot fail, §7.3), and the safe units of a suit combined with
  nothing else. A risky throw is never listed.

Plays are legal by construction (leads: one effective suit; follows: the mask).

``seat_plays`` / ``seat_plays_batch`` list the candidates of the seat to act straight from its
observation (``core.observe.decode``): leads with the safe throws its unseen cards allow, or its
follows to the trick's lead — one place for what the search agent and the Deep Monte-Carlo
learner (``agents.learners.dmc``) both need.
"""

from __future__ import annotations

import numpy as np

from shengji_env.rules import TRUMP, TrumpContext, decompose, legal_next_cards

__all__ = ["follow_plays", "lead_plays", "play_key", "risky_throws", "seat_plays",
           "seat_plays_batch", "units_in_suit"]


def play_key(play: np.ndarray) -> bytes:
    """A hashable key of a play (``int[54]`` counts)."""
    return np.asarray(play, dtype=np.uint8).tobytes()


def follow_plays(hand: np.ndarray, lead: np.ndarray, ctx: TrumpContext, rules,
                 cap: int = 64, preference: np.ndarray | None = None) -> list[np.ndarray]:
    """Up to ``cap`` distinct legal follows ``int64[54]`` of ``hand`` (uint8[54]) to ``lead``
    (uint8[54]). ``preference`` (float[54], higher first) orders the search, so with a cap the
    plays built from the preferred cards are the ones kept; default: card id order."""
    hand = np.asarray(hand, dtype=np.uint8)
    lead = np.asarray(lead, dtype=np.uint8)
    n = int(lead.sum())
    pref = np.zeros(54) if preference is None else np.asarray(preference, dtype=np.float64)
    rank = np.empty(54, dtype=np.int64)
    rank[np.argsort(-pref, kind="stable")] = np.arange(54)  # 0 = most preferred card
    out: list[np.ndarray] = []
    sel = np.zeros(54, dtype=np.uint8)

    def rec(depth: int, lowest: int) -> None:
        # cards are added in non-decreasing rank: each multiset is built in exactly one order
        if len(out) >= cap:
            return
        if depth == n:
            out.append(sel.astype(np.int64))
            return
        legal = np.flatnonzero(legal_next_cards(hand, lead, sel, ctx, rules))
        for c in sorted((c for c in legal if rank[c] >= lowest), key=lambda c: rank[c]):
            sel[c] += 1
            rec(depth + 1, int(rank[c]))
            sel[c] -= 1
            if len(out) >= cap:
                return

    rec(0, 0)
    return out


def units_in_suit(counts: np.ndarray, suit: int, ctx: TrumpContext) -> list[np.ndarray]:
    """Every unit ``int64[54]`` that ``counts`` holds in effective ``suit``: each single card,
    each pair (2+ decks), and each tractor — every run of two or more pairs at adjacent
    positions (§6.1; at a position with several identities, each identity's pair counts)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = []
    ids = [c for c in np.flatnonzero(counts) if ctx.effective_suits[c] == suit]
    out += [_one(c, 1) for c in ids]
    pairs = [c for c in ids if counts[c] >= 2]
    out += [_one(c, 2) for c in pairs]
    if len(pairs) >= 2:
        by_pos: dict[int, list[int]] = {}
        for c in pairs:
            by_pos.setdefault(int(ctx.order_indices[c]), []).append(c)
        positions = sorted(by_pos)
        for i, start in enumerate(positions):
            chains = [[c] for c in by_pos[start]]
            prev = start
            for p in positions[i + 1:]:
                if p != prev + 1:
                    break
                chains = [ch + [c] for ch in chains for c in by_pos[p]]
                for ch in chains:
                    u = np.zeros(54, dtype=np.int64)
                    u[ch] = 2
                    out.append(u)
                prev = p
    return out


def _one(c: int, k: int) -> np.ndarray:
    u = np.zeros(54, dtype=np.int64)
    u[c] = k
    return u


def _beaters(unit, suit: int, unseen: np.ndarray, ctx: TrumpContext) -> int:
    """How many higher units of ``unit``'s shape (a ``Unit``: k copies over ``length``
    positions, §6.2) the unseen cards could hold in ``suit``, pessimistically all in one hand
    (§7.3): 0 means no unseen cards can beat it."""
    idx = ctx.order_indices
    held = {int(idx[c]) for c in np.flatnonzero(unseen >= unit.k) if ctx.effective_suits[c] == suit}
    return sum(all(p - j in held for j in range(unit.length)) for p in held if p > unit.top)


def lead_plays(hand: np.ndarray, ctx: TrumpContext, unseen: np.ndarray | None = None
               ) -> list[np.ndarray]:
    """Candidate leads ``int64[54]`` of ``hand`` (uint8[54]): every unit, then — if ``unseen``
    (int[54], cards the leader has not seen) is given — per suit the throw of all its units that
    no unseen cards can beat, when that is more than one unit (a throw that cannot fail)."""
    hand = np.asarray(hand, dtype=np.int64)
    out, seen = [], set()

    def add(p):
        k = play_key(p)
        if k not in seen:
            seen.add(k)
            out.append(p)

    for suit in range(TRUMP + 1):
        units = units_in_suit(hand, suit, ctx)
        for u in units:
            add(u)
        if unseen is None or not units:
            continue
        mine = np.where(ctx.effective_suits == suit, hand, 0)
        safe = [u.counts.astype(np.int64) for u in decompose(mine.astype(np.uint8), ctx)
                if _beaters(u, suit, np.asarray(unseen), ctx) == 0]
        if len(safe) > 1:
            add(sum(safe))
    return out


def risky_throws(hand: np.ndarray, ctx: TrumpContext, unseen: np.ndarray) -> list[np.ndarray]:
    """Throws ``int64[54]`` that may fail (§7.3-7.4): per suit holding two or more units, its
    units that no unseen cards can beat together with the unit that the fewest unseen units could
    beat, and all its units. ``lead_plays`` lists only throws that cannot fail; with the default
    ``throw_penalty = NONE`` a failed throw costs its forced unit's lead and the cards it shows,
    so whether a risky one pays is a question for the search's worlds."""
    hand = np.asarray(hand, dtype=np.int64)
    unseen = np.asarray(unseen)
    out, seen = [], set()
    for suit in range(TRUMP + 1):
        mine = np.where(ctx.effective_suits == suit, hand, 0)
        if mine.sum() < 2:
            continue
        units = decompose(mine.astype(np.uint8), ctx)
        if len(units) < 2:
            continue
        risk = [_beaters(u, suit, unseen, ctx) for u in units]
        safe = [u.counts.astype(np.int64) for u, r in zip(units, risk) if r == 0]
        risky = sorted((r, -u.k * u.length, -u.top, i) for i, (u, r) in enumerate(zip(units, risk))
                       if r > 0)
        if not risky:
            continue  # a throw that cannot fail: lead_plays has it
        throws = [sum(safe, np.zeros(54, dtype=np.int64)) + units[risky[0][3]].counts]
        if len(risky) > 1:
            throws.append(mine)
        for p in throws:  # a throw is two units or more (one unit is a plain lead)
            if len(decompose(p.astype(np.uint8), ctx)) > 1 and play_key(p) not in seen:
                seen.add(play_key(p))
                out.append(p.astype(np.int64))
    return out


def seat_plays(view, rules, cap: int = 64, preference: np.ndarray | None = None
               ) -> list[np.ndarray]:
    """Candidate whole plays ``int64[54]`` of the seat whose observation is ``view`` (an
    ``ObservationView`` in the play phase, nothing selected yet): ``lead_plays`` with the cards it
    has not seen (its hand, everything played, and the kitty if it is the dealer, are seen) when
    it leads, else ``follow_plays`` to the lead of the current trick (``cap``, ``preference``)."""
    ctx = TrumpContext.from_rules(view.level, view.trump, rules)
    if view.leading:
        unseen = rules.decks - view.hand.astype(np.int64) - view.played.sum(0)
        if view.dealer == 0:
            unseen = unseen - view.kitty
        return lead_plays(view.hand, ctx, np.maximum(unseen, 0))
    return follow_plays(view.hand, view.trick[view.trick_leader], ctx, rules, cap=cap,
                        preference=preference)


def seat_plays_batch(obs: np.ndarray, rules, cap: int = 64,
                     preference: np.ndarray | None = None) -> list[np.ndarray]:
    """``seat_plays`` of every row of ``obs`` float32[B, N]: a list of ``int64[K_b, 54]``
    (``preference`` float[B, 54] or None)."""
    from shengji_env.core.observe import decode

    out = []
    for b in range(len(obs)):
        plays = seat_plays(decode(obs[b], rules), rules, cap,
                           None if preference is None else preference[b])
        out.append(np.stack(plays) if plays else np.zeros((0, 54), dtype=np.int64))
    return out
