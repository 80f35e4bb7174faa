"""The throw rules' fast forms agree with their plain statements on many random throws.

``patterns.decompose`` and ``play.judge_throw`` / ``play.beats_unit`` are the rules of record,
written for speed (the batch engine calls them for every lead holding a tractor): one table for
the units' cards, one run test per unit type and hand. Here they are compared with the plain
readings of RULES.md §6.2 and §7.3-7.4 kept below (every unit tested against every hand, the
candidates looked up per failing type) on random throws with chains, 1-4 decks, every trump
context kind and every ``failed_throw_choice`` (and ``tuple_beats_chain`` with 3-4 decks), and
in random play of the engine: every tractor throw a leader ends with, against the hands it was
judged against.
"""

from itertools import product

import numpy as np
import pytest

from shengji_env.cards import NUM_CARDS
from shengji_env.core import Engine, trick
from shengji_env.rules import Rules
from shengji_env.rules import play as rules_play
from shengji_env.rules.actions import Phase
from shengji_env.rules.order import TrumpContext, single_suit
from shengji_env.rules.patterns import decompose, suit_layout

END = 55
STEPS = 1500  # at most: the engine test stops once it has seen every kind of throw
PLAY = int(Phase.PLAY)


def plain_decompose(counts, ctx):
    """§6.2 as stated: for k from decks down to 2, cut the longest chain of k-tuples while
    one exists (ties: higher top; at a position the first identity in suit order with k copies
    left), then the k-tuples left; then singles. ``(k, length, top, counts)`` sorted by (k desc,
    length desc, top desc, suit order of the top identity)."""
    counts = np.asarray(counts, dtype=np.int64)
    layout = suit_layout(single_suit(counts, ctx), ctx)
    rest = counts.copy()
    found = []
    for k in range(ctx.decks, 1, -1):
        while True:
            pick = [next((c for c in ids if rest[c] >= k), -1) for ids in layout]
            best_len, best_top, run = 0, -1, 0
            for i, c in enumerate(pick):
                run = run + 1 if c >= 0 else 0
                if run > 0 and run >= best_len:
                    best_len, best_top = run, i
            if best_len < 2:
                break
            ids = pick[best_top - best_len + 1: best_top + 1]
            rest[ids] -= k
            found.append((k, best_len, best_top, ids))
        for c in range(NUM_CARDS):
            while rest[c] >= k:
                rest[c] -= k
                found.append((k, 1, int(ctx.order_indices[c]), [c]))
    for c in range(NUM_CARDS):
        found += [(1, 1, int(ctx.order_indices[c]), [c])] * int(rest[c])
    found.sort(key=lambda u: (-u[0], -u[1], -u[2], u[3][-1]))
    out = []
    for k, length, top, ids in found:
        unit = np.zeros(NUM_CARDS, dtype=np.uint8)
        unit[ids] = k
        out.append((k, length, top, unit))
    return out


def plain_beats(hand, k, length, top, suit, ctx, larger=False):
    """A (k, length) unit with a top above ``top`` can be cut from ``hand`` in ``suit`` (with
    ``larger``, for a chain: or any unit of larger k with as many cards, §7.3)."""
    most = [max(int(hand[c]) for c in ids) for ids in suit_layout(suit, ctx)]

    def run_from(k_, length_, min_top):
        return any(all(most[p] >= k_ for p in range(t - length_ + 1, t + 1))
                   for t in range(max(min_top, length_ - 1), len(most)))

    if run_from(k, length, top + 1):
        return True
    return larger and length >= 2 and any(
        (k * length) % k2 == 0 and run_from(k2, k * length // k2, 0)
        for k2 in range(k + 1, ctx.decks + 1))


def plain_judge(lead, others, ctx, cfg):
    """§7.3-7.4 as stated: ``(ok, forced, candidates, beater)``; every unit against every hand."""
    units = plain_decompose(lead, ctx)
    if len(units) <= 1:
        return True, None, [], None
    suit = single_suit(lead, ctx)
    failing = []
    for k, length, top, _ in units:
        if (k, length) not in failing and any(
                plain_beats(h, k, length, top, suit, ctx, cfg.tuple_beats_chain) for h in others):
            failing.append((k, length))
    beater = next((j for j, h in enumerate(others)
                   if any(plain_beats(h, k, length, top, suit, ctx) for k, length, top, _ in units)),
                  None)
    if not failing:
        return True, None, [], beater
    candidates = []
    for shape in failing:
        same = [u for u in units if u[:2] == shape]
        low = min(u[2] for u in same)
        candidates.append(next(u for u in same if u[2] == low))
    if len(candidates) == 1:
        forced = candidates[0]
    elif cfg.failed_throw_choice == "NEXT_PLAYER":
        forced = None
    elif cfg.failed_throw_choice == "AUTO_LOWEST_RANK":
        forced = min(candidates, key=lambda u: (u[2], u[0] * u[1]))
    else:
        forced = min(candidates, key=lambda u: (u[0] * u[1], u[2]))
    return False, None if forced is None else forced[3], [u[3] for u in candidates], beater


def random_throw(rng, ctx, suit):
    """A throw of one suit from hand 0 and the three other hands: hand 0 holds one or two
    chains (tuples at consecutive positions) and random cards of the suit, the rest of the
    suit's cards go to the other hands at random (sometimes only those at or below the throw's
    lowest position: the throw stands); the throw is the chains (mostly) and a random part of
    the rest of hand 0."""
    layout = suit_layout(suit, ctx)
    d = ctx.decks
    left = np.zeros(NUM_CARDS, dtype=np.int64)
    for ids in layout:
        left[list(ids)] = d
    hand = np.zeros(NUM_CARDS, dtype=np.int64)
    lead = np.zeros(NUM_CARDS, dtype=np.int64)
    for _ in range(rng.integers(1, 3)):
        if d < 2:
            break
        k = int(rng.integers(2, d + 1))
        length = int(rng.integers(2, min(4, len(layout)) + 1))
        start = int(rng.integers(0, len(layout) - length + 1))
        for ids in layout[start:start + length]:
            c = int(rng.choice(ids))
            take = min(k, int(left[c]))
            hand[c] += take
            left[c] -= take
            if rng.random() < 0.9:
                lead[c] += take
    extra = rng.binomial(left, 0.25)
    hand += extra
    left -= extra
    lead += rng.binomial(extra, 0.6)
    if rng.random() < 0.2:  # the others' cards only up to the throw's lowest position: it stands
        pos = np.array([int(ctx.order_indices[c]) for c in range(NUM_CARDS)])
        low = pos[lead > 0].min() if lead.any() else 0
        left[pos > low] = 0
    seat = rng.integers(0, 3, size=(NUM_CARDS, d))
    others = [np.array([int((seat[c, :left[c]] == j).sum()) for c in range(NUM_CARDS)], dtype=np.uint8)
              for j in range(3)]
    return lead.astype(np.uint8), others


CONTEXTS = [TrumpContext(level, trump, decks, att)
            for decks, (level, trump), att in product(
                (1, 2, 3, 4), ((0, 4), (8, 1), (12, 3), (5, 0), (0, 2)), (False, True))]


def rules_for(decks, choice, tbc):
    return Rules(decks=decks, failed_throw_choice=choice,
                 **({"tuple_beats_chain": tbc} if decks >= 3 else {}))


@pytest.mark.parametrize("ctx", CONTEXTS, ids=str)
def test_judge_throw_matches_plain_reading(ctx):
    rng = np.random.default_rng(ctx.decks * 1000 + ctx.level * 10 + ctx.trump + 7 * ctx.always_trump_two)
    choices = ("AUTO_LOWEST_RANK", "AUTO_FEWEST_CARDS", "NEXT_PLAYER")
    cfgs = [rules_for(ctx.decks, choice, tbc) for choice in choices
            for tbc in ((False, True) if ctx.decks >= 3 else (False,))]
    seen = set()
    for _ in range(30):
        suit = int(rng.choice([e for e in range(5) if len(suit_layout(e, ctx)) >= 4]))
        lead, others = random_throw(rng, ctx, suit)
        if not lead.any():
            continue
        units = decompose(lead, ctx)
        plain = plain_decompose(lead, ctx)
        assert [(u.k, u.length, u.top) for u in units] == [u[:3] for u in plain]
        assert all(np.array_equal(u.counts, p[3]) for u, p in zip(units, plain))
        assert all(u.counts.dtype == np.uint8 and not u.counts.flags.writeable for u in units)
        for u in units:
            for h, larger in product(others, (False, True)):
                assert rules_play.beats_unit(h, u, suit, ctx, larger) == plain_beats(
                    h, u.k, u.length, u.top, suit, ctx, larger)
        for cfg in cfgs:
            res, beater = rules_play.judge_throw(lead, others, ctx, cfg)
            ok, forced, candidates, plain_beater = plain_judge(lead, others, ctx, cfg)
            assert (res.ok, beater) == (ok, plain_beater)
            assert (res.forced is None) == (forced is None)
            if forced is not None:
                assert np.array_equal(res.forced, forced)
            assert len(res.candidates) == len(candidates)
            assert all(np.array_equal(a, b) for a, b in zip(res.candidates, candidates))
            seen.add((len(units) > 1, any(u.length >= 2 for u in units), ok, len(candidates)))
    if ctx.decks >= 2:  # the chain throws that stand and that fail, with 1 and 2+ candidates
        assert {(True, True, True, 0), (True, True, False, 1), (True, True, False, 2)} <= seen


def _tractor_pick(rng, row, hand, sel, eff, idx):
    """A leader's random action that throws tractors often: the second card of a selected pair,
    else the first card of a pair next to another pair of its suit, else one more card (often
    the suit's top card) or END."""
    legal = np.flatnonzero(row[:54])
    finish = legal[sel[legal] == 1]
    if finish.size and rng.random() < 0.95:
        return rng.choice(finish)
    pair = hand >= 2
    near = (pair[None, :] & (eff[None, :] == eff[:, None])
            & (np.abs(idx[None, :].astype(int) - idx[:, None]) == 1)).any(1)
    start = legal[pair[legal] & near[legal] & (sel[legal] == 0)]
    if start.size and rng.random() < 0.9:
        return rng.choice(start)
    rest = legal[sel[legal] == 0]
    if row[END] and (not rest.size or (sel == 1).any() or rng.random() < 0.3):
        return END
    if rest.size and rng.random() < 0.4:  # the top card: the tractor alone may fail
        return rest[idx[rest].argmax()]
    return rng.choice(rest if rest.size else np.flatnonzero(row))


@pytest.mark.parametrize("opts", [{}, {"failed_throw_choice": "NEXT_PLAYER"},
                                  {"failed_throw_choice": "AUTO_FEWEST_CARDS",
                                   "throw_penalty": "PER_CARD_10"}], ids=str)
def test_engine_tractor_throws_match_plain_reading(opts):
    """Random play at B = 64 whose leaders build pairs: every throw holding a tractor that is
    ended is judged as the plain reading says (the lead, forced unit or candidates, the seat
    that beats it, the revealed cards, the penalty) and the trick's facts are the lead's."""
    cfg = Rules(**opts)
    eng = Engine(cfg, 64, 3)
    s = eng.reset()
    rng = np.random.default_rng(5)
    # throws that stand, fail to a single, a pair, a tractor, or wait for the next player's choice
    need = ({"stands", "choice", "forced 1", "forced 2"} if cfg.failed_throw_choice == "NEXT_PLAYER"
            else {"stands", "forced 1", "forced 2", "forced 4"})
    kinds = set()
    for _ in range(STEPS):
        if kinds >= need and _ >= 200:
            break
        mask = eng.legal_mask(s)
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(1)
        leading = np.flatnonzero((s.phase == PLAY) & (s.lead_n == 0))
        for g in leading:
            seat = int(s.to_act[g])
            actions[g] = _tractor_pick(rng, mask[g], s.hands[g, seat], s.selection[g], s.eff[g], s.idx[g])
        ends = [g for g in leading if actions[g] == END]
        before = {}
        for g in ends:
            ctx = eng.tables.context(int(s.level[g]), int(s.trump[g]))
            sel = s.selection[g].copy()
            if len(decompose(sel, ctx)) > 1 and any(u.length >= 2 for u in decompose(sel, ctx)):
                leader = int(s.leader[g])
                others = [s.hands[g, (leader + k) % 4].copy() for k in (1, 2, 3)]
                before[g] = (ctx, sel, leader, others, s.revealed[g, leader].copy(), int(s.penalty[g]))
        s, _, done = eng.step(s, actions)
        for g, (ctx, sel, leader, others, revealed, penalty) in before.items():
            ok, forced, candidates, beater = plain_judge(sel, others, ctx, cfg)
            kinds.add("stands" if ok else "choice" if forced is None
                      else f"forced {min(int(forced.sum()), 4)}")
            if ok:
                assert np.array_equal(s.lead[g], sel) and s.lead_tractor[g]
                continue
            assert s.throw_beater[g] == (leader + 1 + beater) % 4
            assert np.array_equal(s.revealed[g, leader],
                                  np.maximum(revealed, sel) - (0 if forced is None else forced))
            if forced is None:
                assert s.n_candidates[g] == len(candidates)
                assert all(np.array_equal(s.candidates[g, c], cand) for c, cand in enumerate(candidates))
                continue
            assert np.array_equal(s.lead[g], forced)
            size = int(forced.sum())
            assert (s.lead_n[g], s.lead_pairs[g], s.lead_tractor[g]) == (size, size // 2, size >= 4)
            assert s.lead_suit[g] == single_suit(sel, ctx)
            returned = int(sel.sum()) - size
            sign = 1 if s.dealer_side[g, leader] else -1
            fee = {"NONE": 0, "PER_CARD_10": 10 * returned, "FIXED_10": 10}[cfg.throw_penalty]
            assert s.penalty[g] == penalty + sign * fee
        eng.reset_games(s, np.flatnonzero(done))
    assert kinds >= need, kinds


@pytest.mark.parametrize("ctx", [c for c in CONTEXTS if c.decks == 2], ids=str)
def test_engine_chain_throw_matches_judge_throw(ctx):
    """``trick._chain_throw`` (the engine's bit-mask judge of tractor throws, 1-2 decks) gives
    ``judge_throw``'s result, or defers to it (pairs of two identities at one position)."""
    rng = np.random.default_rng(ctx.level * 10 + ctx.trump + 7 * ctx.always_trump_two)
    cfgs = [Rules(failed_throw_choice=c) for c in ("AUTO_LOWEST_RANK", "AUTO_FEWEST_CARDS", "NEXT_PLAYER")]
    judged = deferred = 0
    for _ in range(100):
        suit = int(rng.choice([e for e in range(5) if len(suit_layout(e, ctx)) >= 4]))
        lead, others = random_throw(rng, ctx, suit)
        units = decompose(lead, ctx)
        if len(units) < 2 or all(u.length < 2 for u in units):
            continue  # the engine judges only throws holding a tractor here
        for cfg in cfgs:
            fast = trick._chain_throw(lead, np.array(others), ctx, cfg)
            if fast is None:
                deferred += 1
                continue
            judged += 1
            (res, beater), (ref, ref_beater) = fast, rules_play.judge_throw(lead, others, ctx, cfg)
            assert (res.ok, beater if not res.ok else None) == (ref.ok, ref_beater if not ref.ok else None)
            assert (res.forced is None) == (ref.forced is None)
            if res.forced is not None:
                assert res.forced.dtype == np.uint8 and np.array_equal(res.forced, ref.forced)
            assert len(res.candidates) == len(ref.candidates)
            assert all(np.array_equal(a, b) for a, b in zip(res.candidates, ref.candidates))
    assert judged >= 60
