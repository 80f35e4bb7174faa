"""The search agent (``agents.search``): world sampler, worlds → states, plays, rollouts, agent.

* the sampler is exactly uniform over physical deals (against enumeration on small problems,
  with voids, known cards and a kitty) and every sampled world is consistent with the view,
  over random mid-hand states; the true hidden cards always satisfy the view's constraints;
* a world becomes a ``BatchState`` whose observation for seat 0 *is* the seat's observation and
  whose mask is its mask (so nothing the engine adds can differ from what the seat sees);
* no peeking: the agent's decision is a function of the observation only — states with other
  hidden cards but the same observation give the same search;
* whole plays: ``follow_plays`` is ``rules.legal_follows``; leads hold every unit;
* the agent plays only legal actions, one world and one candidate make the rollout policy's
  play, and a seeded decision is reproducible.
"""

import itertools
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from scipy import stats

from agents import HeuristicAgent
from agents.checkpoint import load_checkpoint
from agents.plays import follow_plays, lead_plays, play_key, risky_throws
from agents.search import PIMCAgent, UniformSampler, constraints_from_view, sample_deals
from agents.search.history import PlayHistory, trick_points
from agents.search.rollout import (
    NearRollout,
    NetRollout,
    SampledRollout,
    default_weights,
    load_rollout_net,
    play_out,
)
from agents.search.sampler import Constraints, consistent
from shengji_env import Rules, cards
from shengji_env.core import Engine
from shengji_env.core.observe import decode, observe_game
from shengji_env.core.world import friend_consistent, friend_of_worlds, world_states
from shengji_env.rules import TrumpContext, decompose, legal_follows, scoring, seats
from shengji_env.rules.actions import Phase, action_layout
from shengji_env.rules.game import Game

PLAY = int(Phase.PLAY)


# ------------------------------------------------------------------------------ helpers

def mid_hand_states(cfg, seeds, every=0.25, rng_seed=0):
    """``(engine, state, observation, mask)`` at PLAY decisions with an empty selection, from
    hands played by HeuristicAgent (one game per seed), a share ``every`` of them."""
    h = HeuristicAgent(cfg)
    rng = np.random.default_rng(rng_seed)
    for seed in seeds:
        eng = Engine(cfg, 1, seed=seed)
        s = eng.reset()
        while not s.done[0]:
            mask = eng.legal_mask(s)[0]
            obs = eng.observe(s)[0]
            if s.phase[0] == PLAY and not s.selection[0].any() and rng.random() < every:
                yield eng, s, obs, mask
            a = h.act({"observation": obs, "action_mask": mask.astype(np.int8)})
            s, _, _ = eng.step(s, np.array([a]))


def true_holders(s, view):
    """The real hidden cards as the sampler's holders (relative seats 1-3, kitty if unknown)."""
    seat = int(s.to_act[0])
    rows = [s.hands[0, (seat + r) % 4] for r in (1, 2, 3)]
    return np.stack(rows + ([] if view.dealer == 0 else [s.kitty[0]])).astype(np.int64)


def enumerate_deals(cons: Constraints) -> Counter:
    """Exact distribution: every physical deal (each copy labelled) satisfying ``cons``,
    counted by the count-vector deal it makes."""
    copies = [c for c in range(54) for _ in range(int(cons.pool[c]))]
    H = cons.num_holders
    out = Counter()
    for assign in itertools.product(range(H), repeat=len(copies)):
        deal = np.zeros((H, 54), dtype=np.int64)
        for c, h in zip(copies, assign):
            deal[h, c] += 1
        if consistent(cons, deal):
            out[deal.tobytes()] += 1
    return out


def small_problem(with_kitty: bool) -> Constraints:
    """Seven unseen cards (three identities twice, as with two decks) in three effective suits,
    a void, known cards (one for a seat, one for 'dealer or kitty')."""
    pool = np.zeros(54, dtype=np.int64)
    pool[[0, 1, 13, 26]] = [2, 1, 2, 2]                       # S2 S2 S3 H2 H2 C2 C2
    group = np.repeat(np.arange(4), 13)
    group = np.concatenate([group, [4, 4]])
    if with_kitty:
        capacity = np.array([2, 2, 1, 2])
        allowed = np.ones((4, 5), dtype=bool)
        allowed[1, 1] = False                                 # seat 2 is void in hearts
        known = [((2,), 26, 1), ((0, 3), 0, 1)]
    else:
        capacity = np.array([3, 2, 2])
        allowed = np.ones((3, 5), dtype=bool)
        allowed[0, 1] = False                                 # seat 1 is void in hearts
        known = [((1,), 0, 1), ((2,), 13, 1)]
    return Constraints(pool, group, capacity, allowed, known)


# ------------------------------------------------------------------------------ sampler

def small_problem_three_decks() -> Constraints:
    """Seven unseen cards with three copies of one identity (as with three decks: the
    multiplicities of count-vector deals then go up to 3! per identity), a void, a known card."""
    pool = np.zeros(54, dtype=np.int64)
    pool[[0, 13, 26]] = [3, 2, 2]                              # S2 S2 S2 H2 H2 C2 C2
    group = np.concatenate([np.repeat(np.arange(4), 13), [4, 4]])
    allowed = np.ones((3, 5), dtype=bool)
    allowed[2, 2] = False                                     # seat 3 is void in clubs
    return Constraints(pool, group, np.array([3, 2, 2]), allowed, [((0,), 13, 1)])


@pytest.mark.parametrize("problem", [lambda: small_problem(False), lambda: small_problem(True),
                                     small_problem_three_decks],
                         ids=["two_decks", "two_decks_kitty", "three_decks"])
def test_sampler_is_exactly_uniform_over_physical_deals(problem):
    cons = problem()
    exact = enumerate_deals(cons)
    assert len(exact) > 5
    assert len(set(exact.values())) > 1, "multiplicities must differ for the test to mean much"
    n = 30000
    deals = sample_deals(cons, n, np.random.default_rng(1)).astype(np.int64)
    seen = Counter(d.tobytes() for d in deals)
    assert set(seen) <= set(exact), "a sampled deal breaks the constraints"
    keys = sorted(exact)
    total = sum(exact.values())
    expected = np.array([exact[k] / total * n for k in keys])
    observed = np.array([seen[k] for k in keys])
    assert stats.chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("decks, seeds, every, least", [(2, range(3), 0.3, 30), (1, [0], 0.5, 5),
                                                        (3, [0], 0.3, 10), (4, [0], 0.25, 10)])
def test_sampled_worlds_are_consistent_mid_hand(decks, seeds, every, least):
    cfg = Rules(decks=decks)
    sampler = UniformSampler(cfg)
    rng = np.random.default_rng(0)
    checked = 0
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=seeds, every=every):
        view = decode(obs, cfg)
        cons = constraints_from_view(view, cfg)
        assert consistent(cons, true_holders(s, view)), "the true deal must be possible"
        hands, kitty = sampler.sample(view, 8, rng)
        for w in range(8):
            holders = hands[w, 1:] if view.dealer == 0 else np.concatenate([hands[w, 1:],
                                                                             kitty[w][None]])
            assert consistent(cons, holders)
            # conservation: every card once per deck over hands, kitty and everything played
            total = hands[w].astype(int).sum(0) + kitty[w] + view.played.astype(int).sum(0)
            assert (total == cfg.decks).all()
        # the world as an engine state: the seat sees exactly its observation and mask
        W = world_states(eng, view, hands, kitty)
        assert (eng.observe(W, seats=np.zeros(8, dtype=np.int64)) == obs[None]).all()
        assert (eng.legal_mask(W) == mask[None]).all()
        checked += 1
    assert checked > least


def test_friend_of_worlds_is_the_rules_friend():
    rng = np.random.default_rng(3)
    for decks in (1, 2, 3, 4):
        for _ in range(200):
            dealer, card = int(rng.integers(4)), int(rng.integers(54))
            held = rng.multinomial(decks, [0.2] * 5)[:4]     # copies per seat; the rest buried
            hands = np.zeros((1, 4, 54), dtype=np.uint8)
            hands[0, :, card] = held
            played = np.zeros((4, 54), dtype=np.uint8)
            # a copy already played counts as held when the card was named
            moved = [r for r in range(4) if hands[0, r, card] and rng.random() < 0.3]
            for r in moved:
                hands[0, r, card] -= 1
                played[r, card] += 1
            view = SimpleNamespace(friend_card=card, dealer=dealer, played=played)
            want = scoring.resolve_friend(dealer, card, hands[0] + played, decks)
            assert friend_of_worlds(view, hands)[0] == (-1 if want is None else want)


def test_friend_consistent_keeps_only_worlds_that_agree_with_the_friends_facts():
    played = np.zeros((4, 54), dtype=np.uint8)
    card = 12                                                    # S:A, two decks
    hands = np.zeros((4, 4, 54), dtype=np.uint8)
    hands[0, 1, card] = hands[1, 2, card] = hands[2, 3, card] = 1  # worlds 0-2: seats 1, 2, 3
    hands[3, 3, card] = 2                              # world 3: the dealer holds both (alone)
    base = dict(friend_card=card, dealer=3, played=played, friend_shown=-1,
                my_side=seats.SIDE_UNKNOWN)
    # nothing shown, nothing played: every friend is possible (the dealer's next seat is 0)
    assert friend_consistent(SimpleNamespace(**base), hands).all()
    # seat 2 showed himself: only the worlds where he is the first holder after the dealer
    shown = played.copy()
    shown[2, card] = 1
    view = SimpleNamespace(**base | dict(played=shown, friend_shown=2))
    hands_shown = hands.copy()
    hands_shown[1, 2, card] = 0                                  # world 1: his copy is played
    hands_shown[3, 3, card], hands_shown[3, 0, card] = 0, 1      # world 3: seat 0 holds one
    # world 0: seat 1, before him, holds the other copy; world 2: the dealer holds it
    assert friend_consistent(view, hands_shown).tolist() == [False, True, True, False]
    # seat 1 played a copy without showing himself: a seat before him holds one (seat 0)
    quiet = played.copy()
    quiet[1, card] = 1
    view = SimpleNamespace(**base | dict(played=quiet))
    two = np.zeros((2, 4, 54), dtype=np.uint8)
    two[0, 0, card] = 1                                          # seat 0 holds the other copy
    two[1, 2, card] = 1                                          # seat 2 does: seat 1 is friend
    assert friend_consistent(view, two).tolist() == [True, False]
    # what I (seat 0) know of my own side is kept too (card conservation implies it in real
    # views; the check guards a sampler hook's worlds): the dealer is seat 1, I hold a copy
    mine = np.zeros((2, 4, 54), dtype=np.uint8)
    mine[:, 0, card] = 1
    mine[0, 2, card] = 1                                         # seat 2, before me, holds one
    mine[1, 1, card] = 1                                         # the dealer holds it
    view = SimpleNamespace(**base | dict(dealer=1, my_side=seats.KNOWN_DEALER_SIDE))
    assert friend_consistent(view, mine).tolist() == [False, True]
    view = SimpleNamespace(**base | dict(dealer=1, my_side=seats.KNOWN_ATTACKER))
    assert friend_consistent(view, mine).tolist() == [True, False]


@pytest.mark.parametrize("decks, seeds", [(2, range(3)), (1, range(2)), (3, [1])])
def test_find_friends_worlds_give_the_seat_its_own_observation(decks, seeds):
    cfg = Rules(decks=decks, partnership="FIND_FRIEND")
    sampler = UniformSampler(cfg)
    rng = np.random.default_rng(0)
    checked = shown = 0
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=seeds, every=0.3):
        view = decode(obs, cfg)
        seat = int(s.to_act[0])
        true = s.hands[0, [(seat + r) % 4 for r in range(4)]][None]
        assert friend_consistent(view, true).all(), "the true deal must agree"
        f = int(friend_of_worlds(view, true)[0])
        assert (-1 if f < 0 else (seat + f) % 4) == int(s.friend[0])
        hands, kitty = sampler.sample(view, 16, rng)
        keep = friend_consistent(view, hands)
        W = world_states(eng, view, hands[keep], kitty[keep])
        assert (eng.observe(W, seats=np.zeros(int(keep.sum()), dtype=np.int64)) == obs[None]).all()
        assert (eng.legal_mask(W) == mask[None]).all()
        assert (W.dealer_side.sum(1) >= 1).all() and (W.captured == round(view.attacker_points)).all()
        checked += 1
        shown += view.friend_shown >= 0
    assert checked > 10 and shown


@pytest.mark.parametrize("decks", [2, 3])
def test_trick_points_rebuild_each_seats_points_and_make_worlds_exact(decks):
    """A seat that records every decision of a find-friends hand knows each seat's trick points
    (which its observation does not state); with them the true deal's world scores exactly as
    the real game does, and the seat still sees its own observation."""
    cfg = Rules(decks=decks, partnership="FIND_FRIEND")
    h = HeuristicAgent(cfg)
    checked = hidden = 0
    for seed in range(2):
        eng = Engine(cfg, 1, seed=seed)
        s, history, me = eng.reset(), PlayHistory(), seed % 4
        compact = PlayHistory(full=False)  # the agent's record in find-friends
        while not s.done[0]:
            mask, obs = eng.legal_mask(s)[0], eng.observe(s)[0]
            if s.phase[0] == PLAY and int(s.to_act[0]) == me and not s.selection[0].any():
                view = decode(obs, cfg)
                won = trick_points(history.record(view, obs))
                rel = [(me + r) % 4 for r in range(4)]
                assert (won == s.points_won[0, rel]).all()
                assert len(compact.record(view, obs)) == 1
                assert (compact.points(view) == won).all() and (history.points(view) == won).all()
                W = world_states(eng, view, s.hands[0, rel][None], s.kitty[0][None],
                                 points_won=won)
                assert W.captured[0] == s.captured[0] and (W.points_won[0] == won).all()
                assert (eng.observe(W, seats=np.zeros(1, dtype=np.int64))[0] == obs).all()
                checked += 1
                # the cases the observation alone gets wrong: a hidden friend's won points
                hidden += view.friend_shown < 0 and s.captured[0] != round(view.attacker_points)
            a = h.act({"observation": obs, "action_mask": mask.astype(np.int8)})
            s, _, _ = eng.step(s, np.array([a]))
    assert checked > 20 and hidden, "the hidden friend's points must matter somewhere"
    assert trick_points([]) is None


def test_play_history_keeps_every_hand_of_a_large_batch_and_counts_the_dropped_ones():
    """One agent plays many find-friends hands at once in ``shengji-eval`` (every seat-hand of
    its deals in one batch): interleaved decisions of 100 hands keep their own trick points
    when the record holds them all; a record too small for them drops hands, and says so."""
    cfg = Rules(partnership="FIND_FRIEND")
    h = HeuristicAgent(cfg)
    n = 100
    eng = Engine(cfg, n, seed=7)
    s = eng.reset()
    big, small = PlayHistory(128, full=False), PlayHistory(16, full=False)
    checked = 0
    while not s.done.all():
        mask, obs = eng.legal_mask(s), eng.observe(s)
        for g in np.flatnonzero((s.phase == PLAY) & (s.to_act == 0) & ~s.selection.any(1)):
            view = decode(obs[g], cfg)
            big.record(view, obs[g])
            small.record(view, obs[g])
            assert (big.points(view) == s.points_won[g]).all()
            checked += 1
        s, _, _ = eng.step(s, h.act_batch(obs, mask, np.random.default_rng(0)))
    assert checked > 10 * n and big.dropped == 0 and small.dropped > n // 2


def test_plays_of_several_cards_are_made_whole_in_a_large_lockstep_batch(monkeypatch):
    """A play is searched at its first card and made over the next steps; in a lockstep batch
    of many games (``shengji-eval``'s find-friends metric plays hundreds at once) every game's
    plan must last until its play is complete, not be evicted by the other games' searches (the
    heuristic then completed it its own way)."""
    cfg = Rules()
    n = 120
    agent = PIMCAgent(cfg)
    h = HeuristicAgent(cfg)
    monkeypatch.setattr(agent, "_search", lambda view, *_: h._plan(view))  # fast, legal plans
    eng = Engine(cfg, n, seed=11)
    s = eng.reset()
    rng = np.random.default_rng(0)
    while not (s.phase == PLAY).all():
        s, _, _ = eng.step(s, h.act_batch(eng.observe(s), eng.legal_mask(s), rng))
    own = np.zeros(n, dtype=bool)  # the agent chose the first card of the play being made
    multi = lost = 0
    for _ in range(40):
        obs, mask = eng.observe(s), eng.legal_mask(s)
        selecting = obs[:, agent._sel].sum(1) > 0
        for g in np.flatnonzero(selecting & own):
            multi += 1
            lost += agent._plans.get(agent._plan_key(obs[g])) is None
        own |= ~selecting
        s, _, _ = eng.step(s, agent.act_batch(obs, mask, rng))
    assert multi > n and lost == 0


def test_sampler_respects_voids_and_known_cards_late_in_the_hand():
    cfg = Rules()
    rng = np.random.default_rng(2)
    hit_void = hit_known = 0
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=range(3, 6), every=0.5):
        view = decode(obs, cfg)
        if view.tricks_done < 12:
            continue
        cons = constraints_from_view(view, cfg)
        hit_void += int((~cons.allowed).any())
        hit_known += int(bool(cons.known))
        deals = sample_deals(cons, 16, rng).astype(np.int64)
        assert all(consistent(cons, d) for d in deals)
    assert hit_void and hit_known


def test_no_peeking_same_observation_same_search():
    """A state with other hidden cards but the same observation gives the same decision: the
    search reads nothing but the observation."""
    cfg = Rules()
    agent_a = PIMCAgent(cfg, worlds=4, candidates=3, recheck=4, seed=5)
    agent_b = PIMCAgent(cfg, worlds=4, candidates=3, recheck=4, seed=5)
    sampler = UniformSampler(cfg)
    done = 0
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=[11], every=0.2):
        view = decode(obs, cfg)
        hands, kitty = sampler.sample(view, 1, np.random.default_rng(done))
        other = world_states(eng, view, hands, kitty)   # another deal of the hidden cards
        if np.array_equal(true_holders(s, view)[:3], hands[0, 1:]):
            continue  # late in a hand the sampled deal may be the true one
        obs_other = eng.observe(other)[0]
        assert np.array_equal(obs_other, obs)
        a = agent_a.act({"observation": obs, "action_mask": mask.astype(np.int8)})
        b = agent_b.act({"observation": obs_other, "action_mask": eng.legal_mask(other)[0]})
        assert a == b
        va, vb = agent_a.last["values"], agent_b.last["values"]
        assert (va is None and vb is None) or np.array_equal(va, vb)
        done += 1
        if done == 4:
            break
    assert done == 4


# ------------------------------------------------------------------------------ plays

def test_follow_plays_are_the_legal_follows():
    cfg = Rules()
    ctx = TrumpContext.from_rules(0, 0, cfg)  # level 2, spades trump
    cases = [("H:A A K 9 9 8 5, C:3", "H:Q Q"), ("H:9 8 5, S:3 3, C:4", "H:K K J J"),
             ("H:10 9 9 8 8 7, D:6", "H:K K Q Q"), ("D:A, C:7 7 6, S:4", "H:3 3")]
    for hand, lead in cases:
        h, ld = cards.parse(hand), cards.parse(lead)
        want = {play_key(p) for p in legal_follows(h, ld, ctx, cfg)}
        got = [play_key(p) for p in follow_plays(h, ld, ctx, cfg, cap=1000)]
        assert len(got) == len(set(got)) and set(got) == want, (hand, lead)
        assert len(follow_plays(h, ld, ctx, cfg, cap=2)) == min(2, len(want))


def test_lead_plays_hold_every_unit_and_only_safe_throws():
    cfg = Rules()
    ctx = TrumpContext.from_rules(0, 0, cfg)
    hand = cards.parse("H:A A K K Q 5, C:9, S:3 3 4 4")
    unseen = np.full(54, 2, dtype=np.int64) - hand
    plays = {play_key(p) for p in lead_plays(hand, ctx, unseen)}
    for unit in ("H:A", "H:5", "H:A A", "H:K K", "H:A A K K", "C:9", "S:3 3 4 4", "S:4 4"):
        assert play_key(cards.parse(unit)) in plays, unit
    assert play_key(cards.parse("H:A A K K Q")) in plays  # nothing unseen beats any of it
    assert play_key(cards.parse("H:A A K K Q 5")) not in plays  # the 5 would be beaten


def test_risky_throws_are_the_throws_that_may_fail():
    cfg = Rules()
    ctx = TrumpContext.from_rules(0, 0, cfg)  # level 2, spades trump: hearts are off-suit
    for hand, want in (
        # the 5 is the one unit an unseen card beats: the safe units with it (= the whole suit)
        ("H:A A K K Q 5, C:9, S:3 3 4 4", {"H:A A K K Q 5"}),
        # the 7 is beaten by fewer unseen singles (8 to Q) than the 5 (6 to Q): safe + 7, and all
        ("H:A A K K Q 7 5, C:9", {"H:A A K K Q 7", "H:A A K K Q 7 5"}),
        # one unit per suit, or every unit safe: no risky throw
        ("H:A A K K, C:9, S:3 3 4 4", set()),
    ):
        h = cards.parse(hand)
        unseen = np.full(54, 2, dtype=np.int64) - h
        got = risky_throws(h, ctx, unseen)
        assert {play_key(p) for p in got} == {play_key(cards.parse(w)) for w in want}, hand
        safe = {play_key(p) for p in lead_plays(h, ctx, unseen)}
        for p in got:
            assert (p <= h).all() and len(set(ctx.effective_suits[p > 0])) == 1
            assert len(decompose(p.astype(np.uint8), ctx)) > 1 and play_key(p) not in safe


@pytest.mark.slow  # ~6 s for an option off by default (its candidates are checked above)
def test_the_search_may_throw_and_still_plays_only_legal_actions():
    """With ``throws=1`` the search makes risky throws, legal in the reference game (which
    judges each throw against the real hands)."""
    cfg = Rules()
    agent = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, seed=0, throws=1)
    heur = HeuristicAgent(cfg)
    risky = 0
    for seed in (5, 6):
        game = Game(cfg, seed)
        while game.phase != Phase.OVER:
            seat, legal = game.to_act, game.legal_actions()
            mask = np.zeros(66, dtype=np.int8)
            mask[legal] = 1
            obs = {"observation": observe_game(game, seat), "action_mask": mask}
            a = (agent if seat % 2 == 0 else heur).act(obs, np.random.default_rng(0))
            assert a in legal
            record = agent.last_search if seat % 2 == 0 else None
            if record is not None and record.chosen is not None:
                view = decode(obs["observation"], cfg)
                ctx = TrumpContext.from_rules(view.level, view.trump, cfg)
                unseen = cfg.decks - view.hand.astype(np.int64) - view.played.sum(0)
                unseen = np.maximum(unseen - (view.kitty if view.dealer == 0 else 0), 0)
                keys = {play_key(p) for p in risky_throws(view.hand, ctx, unseen)}
                risky += view.leading and play_key(record.candidates[record.chosen]) in keys
            game.step(a)
    assert risky >= 1
    with pytest.raises(ValueError, match="throws=-1"):
        PIMCAgent(cfg, throws=-1)


# ------------------------------------------------------------------------------ rollouts, agent

def test_fast_logits_equal_the_network():
    cfg = Rules()
    net = load_rollout_net(None, cfg)
    fast = NetRollout(net)
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=[21], every=0.2):
        batch = np.repeat(obs[None], 7, 0)
        with torch.no_grad():
            ref = net(torch.from_numpy(batch))[0]
        assert torch.allclose(fast.logits(batch), ref, atol=1e-4)


def play_hand_with(agent, cfg, seed):
    """One hand through the reference game: ``agent`` in seats 0 and 2, HeuristicAgent in 1
    and 3; every action must be legal (``Game.step`` raises otherwise)."""
    game = Game(cfg, seed)
    heur = HeuristicAgent(cfg)
    while game.phase != Phase.OVER:
        seat = game.to_act
        mask = np.zeros(action_layout(cfg).size, dtype=np.int8)
        legal = game.legal_actions()
        mask[legal] = 1
        obs = {"observation": observe_game(game, seat), "action_mask": mask}
        a = (agent if seat % 2 == 0 else heur).act(obs, np.random.default_rng(0))
        assert a in legal
        game.step(a)


def test_agent_plays_only_legal_actions():
    cfg = Rules()
    agent = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, seed=0)
    play_hand_with(agent, cfg, seed=3)
    assert agent.stats["searched"] > 10


def test_agent_names_the_problem_when_the_network_does_not_fit_the_rules():
    # a failed throw's unit chosen by the next player adds CHOOSE actions: no shipped network
    with pytest.raises(ValueError, match="does not fit these rules"):
        PIMCAgent(Rules(failed_throw_choice="NEXT_PLAYER"))
    with pytest.raises(ValueError, match="does not fit these rules"):
        PIMCAgent(Rules(partnership="FIND_FRIEND", failed_throw_choice="NEXT_PLAYER"))


@pytest.mark.slow
@pytest.mark.parametrize("decks", [1, 3, 4])
def test_agent_plays_every_deck_count_with_its_shipped_network(decks):
    cfg = Rules(decks=decks)
    assert load_checkpoint(default_weights(cfg))["rules"]["decks"] == decks
    agent = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, bury_worlds=2, seed=0)
    play_hand_with(agent, cfg, seed=decks)
    assert agent.stats["searched"] > 10


@pytest.mark.parametrize("decks", [2, pytest.param(1, marks=pytest.mark.slow),
                                   pytest.param(3, marks=pytest.mark.slow),
                                   pytest.param(4, marks=pytest.mark.slow)])
def test_agent_plays_find_friends_with_its_shipped_network(decks):
    cfg = Rules(decks=decks, partnership="FIND_FRIEND")
    saved = load_checkpoint(default_weights(cfg))["rules"]
    assert (saved["decks"], saved["partnership"]) == (decks, "FIND_FRIEND")
    agent = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, seed=0)
    play_hand_with(agent, cfg, seed=decks)
    assert agent.stats["searched"] > 10 and agent.stats["kept"] > 0
    with pytest.raises(ValueError, match="replays the fixed partnership"):
        PIMCAgent(cfg, belief="consistent")


def test_one_world_one_candidate_makes_the_rollout_policys_play():
    cfg = Rules()
    agent = PIMCAgent(cfg, worlds=1, candidates=1, seed=0)
    net = NetRollout(load_rollout_net(None, cfg))
    checked = 0
    for eng, s, obs, mask in mid_hand_states(cfg, seeds=[31], every=0.3):
        # the network's own play, card by card in the engine
        t = s.copy()
        seat, before = int(t.to_act[0]), t.tricks_done[0]
        hand0 = t.hands[0, seat].copy()
        while int(t.to_act[0]) == seat and t.tricks_done[0] == before and t.phase[0] == PLAY:
            a = net(eng.observe(t), eng.legal_mask(t))
            t, _, _ = eng.step(t, a)
            if a[0] == 55:
                break
        made = hand0 - t.hands[0, seat]
        agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})
        assert np.array_equal(agent.last["candidates"][agent.last["chosen"]], made)
        checked += 1
    assert checked > 10


def test_seeded_decision_is_reproducible():
    cfg = Rules()
    states = list(itertools.islice(mid_hand_states(cfg, seeds=[41], every=0.5), 6))
    runs = []
    for _ in range(2):
        agent = PIMCAgent(cfg, worlds=4, candidates=4, recheck=4, seed=9)
        out = []
        for eng, s, obs, mask in states:
            agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})
            out.append((agent.last["chosen"], None if agent.last["values"] is None
                        else agent.last["values"].tobytes()))
        runs.append(out)
    assert runs[0] == runs[1]
    assert any(v is not None for _, v in runs[0])


def test_sampled_rollouts_share_noise_within_a_world_and_follow_the_temperature():
    cfg = Rules()
    net = NetRollout(load_rollout_net(None, cfg))
    (eng, s, obs, mask), *_ = list(mid_hand_states(cfg, seeds=[43], every=0.5))
    obs, mask = np.repeat(obs[None], 600, 0), np.repeat(mask[None], 600, 0).astype(bool)
    # three candidates per world: the rows of one world draw the same noise, so make one play
    sampler = SampledRollout(net, 1.0, group=3)
    sampler.rng = np.random.default_rng(0)
    acts = sampler(obs, mask).reshape(200, 3)
    assert (acts == acts[:, :1]).all() and mask[0, acts].all()
    # at temperature 1 the plays follow the network's own distribution; near 0 its greedy play
    p = np.exp(net.log_probs(obs[:1], mask[:1])[0])
    top = int(p.argmax())
    share = (SampledRollout(net, 1.0)(obs, mask) == top).mean()
    assert abs(share - p[top]) < 4 * np.sqrt(p[top] * (1 - p[top]) / 600) + 1e-9
    assert (SampledRollout(net, 1e-6)(obs, mask) == net(obs[:1], mask[:1])[0]).all()


def test_sampled_rollout_decisions_are_reproducible_and_legal():
    cfg = Rules()
    with pytest.raises(ValueError, match="network rollout"):
        PIMCAgent(cfg, rollout="heuristic", rollout_temperature=1.0)
    states = list(itertools.islice(mid_hand_states(cfg, seeds=[47], every=0.5), 5))
    runs = []
    for _ in range(2):
        agent = PIMCAgent(cfg, worlds=4, candidates=4, recheck=4, seed=3, rollout_temperature=1.0)
        out = []
        for eng, s, obs, mask in states:
            a = agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})
            assert mask[a]
            out.append((a, None if agent.last["values"] is None
                        else agent.last["values"].tobytes()))
        runs.append(out)
    assert runs[0] == runs[1] and any(v is not None for _, v in runs[0])


class _Seen:
    """A rollout policy that plays ``inner`` and keeps every observation it was asked about."""

    def __init__(self, inner):
        self.inner, self.rows = inner, []

    def __call__(self, obs, mask):
        self.rows.append(obs.copy())
        return self.inner(obs, mask)


def _unplanned_worlds(agent, cfg, seed: int, states: int, n: int, rng_seed: int):
    """``(view, worlds, plans)`` at ``states`` mid-hand decisions of one heuristic-played hand:
    ``n`` of the agent's sampled worlds as a ``BatchState`` and plans ``int64[n, 1]`` that leave
    every action to the rollout policy."""
    rng = np.random.default_rng(rng_seed)
    for _, _, obs, _ in itertools.islice(mid_hand_states(cfg, seeds=[seed], every=0.3), states):
        view = decode(obs, cfg)
        hands, kitty = agent.sampler.sample(view, n, rng)
        yield (view, world_states(agent.plan_engine, view, hands, kitty),
               np.full((n, 1), -1, dtype=np.int64))


def test_play_out_with_others_asks_each_model_for_its_own_seats_only():
    """``others`` plays seats 1-3 and the rollout policy seat 0 (the searcher): every
    observation the rollout policy sees is the searcher's (its dealer is the world's dealer seen
    from seat 0), every one ``others`` sees is another seat's; and the same model as both gives
    the outcome of the policy alone."""
    cfg = Rules()
    agent = PIMCAgent(cfg, worlds=4, candidates=3, recheck=0)
    checked = 0
    for view, S, plans in _unplanned_worlds(agent, cfg, seed=51, states=4, n=6, rng_seed=5):
        me, rest = _Seen(agent.prior), _Seen(agent.prior)
        out, _ = play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(6)), plans, me,
                          rest)
        alone, _ = play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(6)), plans,
                            agent.prior)
        np.testing.assert_array_equal(out, alone)
        dealer = [decode(o, cfg).dealer for o in np.concatenate(me.rows)]
        others = [decode(o, cfg).dealer for o in np.concatenate(rest.rows)]
        assert set(dealer) == {view.dealer} and view.dealer not in set(others)
        assert len(set(others)) == 3
        checked += 1
    assert checked == 4


def _searched_values(agent, states) -> list:
    """The agent's decision at each of ``states`` (each legal), as the bytes of its search's
    mean values (None where it ran no search)."""
    out = []
    for _, _, obs, mask in states:
        a = agent.act({"observation": obs, "action_mask": mask.astype(np.int8)})
        assert mask[a]
        out.append(None if agent.last is None or agent.last["values"] is None
                   else agent.last["values"].tobytes())
    return out


def test_others_option_plays_legal_reproducible_and_different_searches():
    cfg = Rules(partnership="FIND_FRIEND")
    with pytest.raises(ValueError, match="others='nope'.*'same'"):
        PIMCAgent(cfg, others="nope")
    with pytest.raises(ValueError, match="greedy rollouts"):
        PIMCAgent(Rules(), others="random", rollout_temperature=1.0)
    states = list(itertools.islice(mid_hand_states(cfg, seeds=[53], every=0.4), 4))
    runs = [_searched_values(PIMCAgent(cfg, worlds=4, candidates=4, recheck=4, seed=3,
                                       others=others), states)
            for others in ("random", "random", "same")]
    assert runs[0] == runs[1] and any(v is not None for v in runs[0])
    assert runs[0] != runs[2]  # random players are another model: other values


def test_value_options_agree_with_the_hand_won():
    """``"win"`` and ``"soft"`` scores are positive exactly for a hand won (level reward > 0):
    the take-over threshold is 2 level steps of attacker points, seen from either side."""
    cfg = Rules()
    step = cfg.level_step
    rows = []
    for side in (1.0, -1.0):  # +1: seat 0 attacks; -1: seat 0 is the dealer side
        for p in (0, 5, 2 * step - 5, 2 * step, 2 * step + 5, 4 * step):
            won_by_attackers = p >= 2 * step
            reward = (1.0 if won_by_attackers else -1.0) * side
            rows.append((reward, side * p, side))
    v = np.array(rows)
    for value in ("win", "soft"):
        agent = PIMCAgent(cfg, value=value, points_weight=0.0)
        assert ((agent._value(v) > 0) == (v[:, 0] > 0)).all(), value
    with pytest.raises(ValueError):
        PIMCAgent(cfg, value="nope")


def test_recheck_play_pair_makes_the_same_decisions_as_all():
    """``recheck_play="pair"`` plays the recheck worlds only for the best play and the incumbent,
    in a second batch: the same worlds and plays are compared, so the decision, the selection
    values and the recheck's verdict are those of ``"all"``; the record's other rows are NaN."""
    cfg = Rules()
    rechecked = 0
    for _, _, obs, mask in mid_hand_states(cfg, seeds=[21], every=0.3):
        o = {"observation": obs, "action_mask": mask.astype(np.int8)}
        full = PIMCAgent(cfg, worlds=4, candidates=3, recheck=4, seed=3, recheck_play="all")
        pair = PIMCAgent(cfg, worlds=4, candidates=3, recheck=4, seed=3, recheck_play="pair")
        assert full.act(o) == pair.act(o)
        a, b = full.last, pair.last
        if a.values is None:
            continue
        assert (a.best, a.incumbent, a.chosen) == (b.best, b.incumbent, b.chosen)
        np.testing.assert_allclose(a.values, b.values)
        if a.best == a.incumbent:
            assert b.recheck is None and b.outcomes.shape[0] == 4
            continue
        rechecked += 1
        np.testing.assert_allclose(a.recheck, b.recheck)
        played = [a.best, a.incumbent]
        np.testing.assert_allclose(a.outcomes[:, played], b.outcomes[:, played])
        others = [k for k in range(len(a.candidates)) if k not in played]
        assert np.isnan(b.outcomes[4:, others]).all() and not np.isnan(b.outcomes[:4]).any()
        np.testing.assert_allclose(a.values_all[played], b.values_all[played])
        if rechecked == 2:
            break
    assert rechecked >= 1
    with pytest.raises(ValueError, match="recheck_play"):
        PIMCAgent(cfg, recheck_play="some")


def test_endgame_rollouts_are_the_heuristics_own_play():
    """``endgame=n``: from ``n`` cards in hand down (6 here) the rollouts are
    ``HeuristicAgent``'s, so a play's outcomes in each world are those of
    ``rollout="heuristic"`` (same seed, same worlds); with more cards in hand the search is that
    of ``endgame=0``, outcome for outcome."""
    cfg = Rules()
    late = early = 0
    for _, s, obs, mask in mid_hand_states(cfg, seeds=[23], every=0.5):
        o = {"observation": obs, "action_mask": mask.astype(np.int8)}
        held = int(s.hands[0, s.to_act[0]].sum())
        if held > 6 and early >= 2:
            continue
        end = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, seed=3, endgame=6)
        other = PIMCAgent(cfg, worlds=2, candidates=3, recheck=2, seed=3, endgame=0,
                          rollout="heuristic" if held <= 6 else "net")
        end.act(o)
        other.act(o)
        a, b = end.last, other.last
        if a is None or a.values is None or b.values is None:
            continue
        keys_b = [play_key(c) for c in b.candidates]
        shared = [(i, keys_b.index(play_key(c))) for i, c in enumerate(a.candidates)
                  if play_key(c) in keys_b]
        assert shared
        for i, j in shared:
            np.testing.assert_allclose(a.outcomes[:, i], b.outcomes[:, j])
        late += held <= 6
        early += held > 6
        if late >= 2 and early >= 2:
            break
    assert late >= 2 and early >= 2
    with pytest.raises(ValueError, match="endgame"):
        PIMCAgent(cfg, endgame=-1)


def test_near_rollout_answers_the_decisions_trick_and_hands_the_rest_on():
    """``NearRollout``: the near policy is asked only about the decision's own trick
    (``tricks_done`` below ``until``), the far one only about later tricks, and routing alone
    changes no play (one model as both gives the outcome of that model alone)."""
    cfg = Rules()
    agent = PIMCAgent(cfg, worlds=4, candidates=3, recheck=0)
    checked = 0
    for view, S, plans in _unplanned_worlds(agent, cfg, seed=61, states=2, n=4, rng_seed=7):
        near, far = _Seen(agent.heuristic_rollout), _Seen(agent.prior)
        play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(4)), plans,
                 NearRollout(near, far, cfg, view.tricks_done + 1))
        done = [decode(o, cfg).tricks_done for o in np.concatenate(near.rows)]
        later = [decode(o, cfg).tricks_done for o in np.concatenate(far.rows)]
        assert set(done) == {view.tricks_done} and min(later) == view.tricks_done + 1
        both, _ = play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(4)), plans,
                           NearRollout(agent.prior, agent.prior, cfg, view.tricks_done + 1))
        alone, _ = play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(4)), plans,
                            agent.prior)
        np.testing.assert_array_equal(both, alone)
        checked += 1
    assert checked == 2


def test_exact_tricks_searches_with_the_heuristics_answers_legally_and_reproducibly():
    cfg = Rules()
    with pytest.raises(ValueError, match="exact_tricks=-1"):
        PIMCAgent(cfg, exact_tricks=-1)
    # leads: the other three seats answer in the decision's trick
    states = list(itertools.islice((st for st in mid_hand_states(cfg, seeds=[67], every=0.5)
                                    if decode(st[2], cfg).leading), 4))
    runs = [_searched_values(PIMCAgent(cfg, worlds=4, candidates=4, recheck=4, seed=3,
                                       exact_tricks=exact), states)
            for exact in (1, 1, 0)]
    assert runs[0] == runs[1] and any(v is not None for v in runs[0])
    assert runs[0] != runs[2]  # the heuristic's answers in the trick: other values


def _to_bury(cfg, seed):
    """(engine, state) at the dealer's first bury decision of a hand HeuristicAgent plays."""
    h = HeuristicAgent(cfg)
    eng = Engine(cfg, 1, seed=seed)
    s = eng.reset()
    while s.phase[0] != Phase.BURY:
        mask, obs = eng.legal_mask(s)[0], eng.observe(s)[0]
        s, _, _ = eng.step(s, np.array([h.act({"observation": obs, "action_mask": mask})]))
    return eng, s


def test_bury_search_starts_from_the_real_position_after_each_bury():
    """``bury=K``: a candidate bury played in the true deal of the other hands gives exactly
    the engine's state after that bury — the dealer's observation and mask at the first lead —
    and the agent makes the bury it chose, card by card (``bury=1``: the heuristic's)."""
    from dataclasses import replace

    from agents.baselines.heuristic import bury_options, plan_bury

    cfg = Rules()
    for seed in (0, 1):
        eng, s = _to_bury(cfg, seed)
        seat = int(s.to_act[0])
        obs0, mask0 = eng.observe(s)[0], eng.legal_mask(s)[0]
        view = decode(obs0, cfg)
        ctx = TrumpContext.from_rules(view.level, view.trump, cfg)
        cands = bury_options(view.hand, ctx, cfg.kitty_size, True, 6)
        assert (cands[0] == plan_bury(view.hand, ctx, cfg.kitty_size)).all()
        assert len({c.tobytes() for c in cands}) == len(cands)
        agent = PIMCAgent(cfg, seed=1, bury=6, bury_worlds=4)
        first = agent.act({"observation": obs0, "action_mask": mask0})
        chosen = agent.last_search.candidates[agent.last_search.chosen]
        assert any((chosen == c).all() for c in cands) and chosen[first] > 0
        t = s.copy()
        while t.phase[0] == Phase.BURY:  # the agent completes its bury
            a = agent.act({"observation": eng.observe(t)[0], "action_mask": eng.legal_mask(t)[0]})
            assert eng.legal_mask(t)[0, a]
            t, _, _ = eng.step(t, np.array([a]))
        assert (t.kitty[0] == chosen).all()
        after = replace(view, phase=Phase.PLAY, hand=(view.hand - chosen).astype(np.uint8),
                        kitty=chosen.astype(np.uint8), selection=np.zeros(54, np.uint8),
                        leading=True)
        hands = np.stack([s.hands[0, (seat + r) % 4] for r in range(4)])
        hands[0] = after.hand
        w = world_states(Engine(cfg, 1), after, hands[None], chosen[None].astype(np.uint8),
                         own_hand=False)
        assert (eng.observe(w)[0] == eng.observe(t)[0]).all()
        assert (eng.legal_mask(w)[0] == eng.legal_mask(t)[0]).all()
        one = PIMCAgent(cfg, seed=1, bury=1)
        one.act({"observation": obs0, "action_mask": mask0})
        assert one.last_search is None or one.last_search.chosen == 0
    with pytest.raises(ValueError, match="bury"):
        PIMCAgent(cfg, bury=-1)
