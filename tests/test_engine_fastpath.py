"""The single-game fast paths (``Engine`` at B = 1, ``core.one_game``) agree exactly with the
vectorised batch code:

* the same games played alone and inside a batch of 8 have the same masks, observations,
  rewards and every state field after every step;
* from every state along a game, every legal action gives the same state at B = 1 and in a
  batch (this reaches failed throws, tractor leads and their follows often);
* staged tricks reach the rarest branches on purpose (level pairs at one position,
  ``throw_comparison="ALL_UNITS"``).
"""

import numpy as np
import pytest
from test_engine import LATER_HAND_SETS, OPTION_SETS

from shengji_env import cards
from shengji_env.core import Engine
from shengji_env.core.state import ARRAY_FIELDS
from shengji_env.core.tables import context_id
from shengji_env.rules import Rules
from shengji_env.rules.actions import Phase

B = 8
END = 55
PLAY = int(Phase.PLAY)
HEARTS = 1


def pick(rng, row, hand, sel, leading):
    """A random legal action; leaders mostly build pairs, tractors and throws of pairs (uniform
    play rarely leads a tractor, and the rare paths must be compared too)."""
    legal = np.flatnonzero(row)
    if leading and rng.random() < 0.8:
        cards_ = legal[legal < 54]
        finish = cards_[sel[cards_] >= 1]  # another copy of a selected card
        if finish.size:
            return rng.choice(finish)
        if row[END] and (sel != 1).all() and rng.random() < 0.4:
            return END
        start = cards_[hand[cards_] >= 2]
        if start.size:
            return rng.choice(start)
    return rng.choice(legal)


def game_facts(s, g):
    """Every fact of game ``g``: its array fields, history and random-stream states."""
    facts = {name: getattr(s, name)[g] for name in ARRAY_FIELDS if name != "rng_owned"}
    facts["history"] = s.history[g]
    facts["rngs"] = (s.rngs[g].bit_generator.state, s.setup_rngs[g].bit_generator.state)
    return facts


def assert_same_facts(a, b, where=""):
    assert a.keys() == b.keys()
    for name in a:
        same = a[name] == b[name] if name in ("history", "rngs") else np.array_equal(a[name], b[name])
        assert same, f"{name} differs {where}"


def assert_same_game(big, i, one, where):
    """Every field of game ``i`` of ``big`` equals game 0 of ``one``."""
    assert_same_facts(game_facts(big, i), game_facts(one, 0), f"in game {i} {where}")


def play_alone_and_batched(cfg, seed, **kw):
    """Random legal play of games ``seed + i`` in one ``Engine(cfg, B)`` and in B one-game
    engines fed the same actions; compares everything at every step. Returns the number of
    decisions compared."""
    big = Engine(cfg, B, seed, **kw)
    S = big.reset()
    ones = [Engine(cfg, 1, seed + i, **kw) for i in range(B)]
    singles = [e.reset() for e in ones]
    rng = np.random.default_rng(seed)
    decisions = t = 0
    while not S.done.all():
        mask = big.legal_mask(S)
        obs = big.observe(S)
        seats = rng.integers(4, size=B)
        obs_seat = big.observe(S, seats=seats)
        actions = np.zeros(B, dtype=np.int64)
        for i, (e, s) in enumerate(zip(ones, singles)):
            assert_same_game(S, i, s, f"at step {t}")
            assert np.array_equal(e.legal_mask(s)[0], mask[i]), f"mask differs in game {i}"
            assert np.array_equal(e.observe(s)[0], obs[i]), f"observation differs in game {i}"
            assert np.array_equal(e.observe(s, seats=seats[i:i + 1])[0], obs_seat[i])
            if not S.done[i]:
                seat = int(S.to_act[i])
                leading = S.phase[i] == PLAY and S.lead_n[i] == 0
                actions[i] = pick(rng, mask[i], S.hands[i, seat], S.selection[i], leading)
                decisions += 1
        S, rewards, done = big.step(S, actions)
        for i, (e, s) in enumerate(zip(ones, singles)):
            s, r, d = e.step(s, actions[i:i + 1])
            assert np.array_equal(r[0], rewards[i]), f"rewards differ in game {i} at step {t}"
            assert d[0] == done[i]
        t += 1
    for i, (e, s) in enumerate(zip(ones, singles)):
        assert_same_game(S, i, s, "at the end")
        assert e.game_log(s, 0) == big.game_log(S, i)
    return decisions


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
def test_one_game_agrees_with_batch(options):
    assert play_alone_and_batched(Rules(**options), seed=800) > 50 * B


@pytest.mark.parametrize("options", LATER_HAND_SETS, ids=lambda o: ",".join(o))
def test_one_game_agrees_with_batch_later_hands(options):
    play_alone_and_batched(Rules(**options), seed=900, levels=(3, 3), dealer=1)


def test_one_game_agrees_with_batch_match_and_auto_forced():
    play_alone_and_batched(Rules(decks=1), seed=1000, episode="match", levels=(10, 10),
                           auto_forced=True)
    play_alone_and_batched(Rules(), seed=1100, auto_forced=True, reward="points")


def test_one_game_bad_input_raises_like_the_batch_and_leaves_state_unchanged():
    eng = Engine(Rules(), 1, seed=0)
    s = eng.reset()
    before = s.copy()
    illegal = int(np.flatnonzero(~eng.legal_mask(s)[0])[0])
    with pytest.raises(ValueError, match=f"illegal action {illegal} in game 0"):
        eng.step(s, np.array([illegal]))
    with pytest.raises(ValueError, match="illegal action -1"):
        eng.step(s, np.array([-1]))
    with pytest.raises(ValueError, match="illegal action 999"):
        eng.step(s, np.array([999]))
    with pytest.raises(ValueError, match="shape"):
        eng.step(s, np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        eng.step(s, np.zeros(1, dtype=np.float32))
    assert_same_facts(game_facts(s, 0), game_facts(before, 0))


def test_one_game_finished_ignores_actions():
    eng = Engine(Rules(decks=1), 1, seed=2)
    s = eng.reset()
    rng = np.random.default_rng(0)
    while not s.done[0]:
        s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(eng.legal_mask(s)[0]))]))
    before = s.copy()
    assert not eng.legal_mask(s).any()
    s, r, d = eng.step(s, np.array([12345]))
    assert d[0] and not r.any()
    assert_same_facts(game_facts(s, 0), game_facts(before, 0))


def every_action_agrees(cfg, seed, **kw):
    """Along one game (leaders building pairs and throws), try every legal action from every
    state at B = 1 and in a batch of two copies of the state; both must end in the same state.
    This reaches the rare branches (tractor leads, failed throws, level pairs) far more often
    than playing on."""
    one = Engine(cfg, 1, seed, **kw)
    s = one.reset()
    two = Engine(cfg, 2, seed, **kw)
    two.reset()
    rng = np.random.default_rng(seed)
    tried = 0
    while not s.done[0]:
        row = one.legal_mask(s)[0]
        for a in np.flatnonzero(row):
            alone, r1, _ = one.step(s.copy(), np.array([a]))
            pair, r2, _ = two.step(s.take([0, 0]), np.array([a, a]))
            where = f"after action {a} at decision {int(s.log_len[0])}"
            assert_same_game(pair, 0, alone, where)
            assert np.array_equal(r1[0], r2[0]), where
            tried += 1
        seat = int(s.to_act[0])
        leading = s.phase[0] == PLAY and s.lead_n[0] == 0
        s, _, _ = one.step(s, np.array([pick(rng, row, s.hands[0, seat], s.selection[0], leading)]))
    return tried


@pytest.mark.parametrize("options", [
    {}, {"decks": 1}, {"failed_throw_choice": "NEXT_PLAYER"},
    {"failed_throw_choice": "AUTO_FEWEST_CARDS", "throw_penalty": "PER_CARD_10"},
    {"throw_comparison": "ALL_UNITS", "ruff_match": "COUNT_ONLY"},
    {"kitty_point_cards_allowed": False, "kitty_multiplier": "POWER",
     "kitty_multiplier_basis": "WINNING_PLAY"},
    {"follow_partial_tractor": True, "always_trump_two": True},
], ids=lambda o: ",".join(o) or "default")
def test_every_action_agrees_with_batch(options):
    for seed in range(4):
        assert every_action_agrees(Rules(**options), seed) > 200


@pytest.mark.parametrize("decks", [3, 4])
def test_one_game_agrees_with_batch_more_decks(decks):
    # triples, quads, Titanics and carriers: leads, throws and follows alone and in a batch
    assert play_alone_and_batched(Rules(decks=decks), seed=1200 + decks) > 50 * B
    assert every_action_agrees(Rules(decks=decks, failed_throw_choice="NEXT_PLAYER"),
                               seed=decks) > 200


@pytest.mark.slow
@pytest.mark.parametrize("decks", [3, 4])
@pytest.mark.parametrize("options", [
    {}, {"failed_throw_choice": "AUTO_FEWEST_CARDS", "throw_penalty": "PER_CARD_10"},
    {"ruff_match": "COUNT_ONLY", "tuple_beats_chain": True},
    {"titanic_follow_order": "C", "kitty_multiplier": "POWER", "kitty_multiplier_basis": "WINNING_PLAY"},
], ids=lambda o: ",".join(o) or "default")
def test_every_action_agrees_with_batch_more_decks(decks, options):
    for seed in range(3):
        assert every_action_agrees(Rules(decks=decks, **options), seed) > 200


def staged_trick(cfg, hands, level, trump, leader, seed=0):
    """A one-game state at the start of a trick with the given hands (``cards.parse`` strings,
    by seat), level and trump: a real game played to its first lead, then rewritten."""
    eng = Engine(cfg, 1, seed)
    s = eng.reset()
    rng = np.random.default_rng(seed)
    while s.phase[0] != PLAY:
        s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(eng.legal_mask(s)[0]))]))
    s.hands[0] = [cards.parse(h) for h in hands]
    ctx = context_id(level, trump)
    s.level[0], s.trump[0], s.ctx[0] = level, trump, ctx
    s.eff[0], s.idx[0] = eng.tables.eff[ctx], eng.tables.idx[ctx]
    s.leader[0] = s.to_act[0] = leader
    s.mask = None  # the state was edited by hand
    return eng, s


def play_staged(cfg, hands, level, trump, leader, first_actions):
    """Play ``first_actions`` then on at random until the hand ends, at B = 1 and in a batch of
    two copies; the states must agree after every step. Returns the final one-game state."""
    one, s = staged_trick(cfg, hands, level, trump, leader)
    two = Engine(cfg, 2, 0)
    two.reset()
    pair = s.take([0, 0])
    rng = np.random.default_rng(1)
    for t in range(200):
        if s.done[0]:
            return s
        mask = one.legal_mask(s)[0]
        assert np.array_equal(two.legal_mask(pair)[0], mask), f"mask differs at step {t}"
        a = first_actions[t] if t < len(first_actions) else rng.choice(np.flatnonzero(mask))
        s, r1, _ = one.step(s, np.array([a]))
        pair, r2, _ = two.step(pair, np.array([a, a]))
        assert_same_game(pair, 0, s, f"at step {t}")
        assert np.array_equal(r1[0], r2[0])
    raise AssertionError("the staged hand did not end")


def ids(text):
    """Card ids of ``"S:2 2, C:2 2"``, in the order written (for action lists)."""
    out = []
    for group in text.split(","):
        suit, ranks = group.strip().split(":")
        out += [cards.card_id(suit, r) for r in ranks.split()]
    return out


def test_staged_throw_of_level_pairs_at_one_position():
    """Two pairs of off-suit level cards share one order position: not a tractor, not one unit
    but a throw; a higher trump pair elsewhere makes it fail."""
    hands = ["S:2 2, C:2 2", "Jk:BJ BJ, D:5 6", "C:3 4 5 6", "D:7 8 9 10"]
    lead = ids("S:2 2, C:2 2") + [END]  # level 2, trump H
    for options in ({}, {"failed_throw_choice": "NEXT_PLAYER"}, {"throw_penalty": "PER_CARD_10"}):
        s = play_staged(Rules(**options), hands, 0, HEARTS, 0, lead)
        assert s.tricks_done[0] > 1, "the throw failed: one pair was led, the other went back"


def test_staged_all_units_ruff_of_a_throw():
    """Under ``throw_comparison="ALL_UNITS"`` a second ruff with a higher pair but a lower
    single does not take the trick (the scalar rules decide; the top-pair shortcut would)."""
    hands = ["S:3 3 A", "H:5 5 6", "H:9 9 4", "C:7 8 9"]
    # seat 0 throws a pair and a single of spades; seats 1 and 2 (void) ruff with hearts
    first = ids("S:3 3 A") + [END] + ids("H:5 5 6") + ids("H:9 9 4")
    winners = []
    for options in ({}, {"throw_comparison": "ALL_UNITS"},
                    {"throw_comparison": "ALL_UNITS", "ruff_match": "COUNT_ONLY"}):
        s = play_staged(Rules(**options), hands, 0, HEARTS, 0, first)
        winners.append(int(s.last_winner[0]))
    assert winners[0] != winners[1], "the scenario must reach the scalar rules"


def test_pair_positions_plain_ints_agree_with_the_numpy_bits():
    """``trick._pair_positions`` answers up to 16 leads with plain ints and more with numpy
    position bits (``_pair_bits``): both must give the same simple and tractor flags. Random
    leads of one suit with two pairs or more (2 decks), in random trump contexts."""
    from types import SimpleNamespace

    from shengji_env.core import trick
    from shengji_env.core.tables import Tables
    from shengji_env.rules import Rules

    T = Tables(Rules())
    rng = np.random.default_rng(7)
    g = 400
    ctx = rng.integers(0, T.idx.shape[0], g)
    idx = T.idx[ctx]  # int8[g, 54]
    eff = T.eff[ctx]
    sel = np.zeros((g, 54), dtype=np.uint8)
    for i in range(g):  # 2-5 pairs and 0-3 singles of one effective suit
        suit = rng.integers(0, 5)
        cards = np.flatnonzero(eff[i] == suit)
        picked = rng.choice(cards, min(cards.size, rng.integers(2, 9)), replace=False)
        sel[i, picked] = 1
        sel[i, picked[:rng.integers(2, 6)]] = 2
    n = sel.sum(1, dtype=np.int16)
    pairs = (sel >= 2).sum(1).astype(np.int16)
    s = SimpleNamespace(idx=idx)
    G = np.arange(g)
    R = (pairs >= 2).nonzero()[0]
    assert R.size > 300  # the numpy path (more than 16 rows)
    answers = []
    for chunks in ([R], np.array_split(R, -(-R.size // 16))):  # numpy bits; plain ints
        simple, tractor = (n == 2 * pairs) | (n == 1), np.zeros(g, dtype=bool)
        for part in chunks:
            trick._pair_positions(s, G, sel, pairs, part, simple, tractor)
        answers.append((simple.copy(), tractor.copy()))
    (s1, t1), (s2, t2) = answers
    assert np.array_equal(s1, s2) and np.array_equal(t1, t2)
    assert t1.any() and (~t1[R]).any() and s1[R].any()  # both answers occur
