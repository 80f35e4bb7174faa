"""``BatchState.copy()`` and ``take()`` are full, independent snapshots (DESIGN.md §5): the
random streams, the decision log and history and the mask cache live in the state, so playing
a copy — across hand boundaries, where new decks are drawn — leaves the original's future
masks, observations and deals unchanged, and a copy fed the same actions replays it exactly."""

import hashlib

import numpy as np
import pytest

from shengji_env.core import Engine
from shengji_env.rules import Rules

B = 8
KW = {"episode": "match", "levels": ("J", "J"), "dealer": 0}


def random_actions(eng, s, rng):
    mask = eng.legal_mask(s)
    return np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in mask])


def advance(eng, s, steps, rng, trace=None):
    """Random legal play for ``steps`` steps; finished matches start again (drawing from the
    games' streams). ``trace``: list collecting a digest of every step."""
    for _ in range(steps):
        if trace is not None:
            h = hashlib.sha256()
            for a in (eng.legal_mask(s), eng.observe(s), s.deck, s.hands, s.seat_levels):
                h.update(np.ascontiguousarray(a).tobytes())
            trace.append(h.hexdigest())
        s, _, done = eng.step(s, random_actions(eng, s, rng))
        if done.any():
            eng.reset_games(s, np.flatnonzero(done))
    return s


def future(eng, s, seed=1):
    trace = []
    advance(eng, s, 400, np.random.default_rng(seed), trace)
    return trace


@pytest.fixture(scope="module")
def setting():
    eng = Engine(Rules(), B, seed=3, **KW)
    start = advance(eng, eng.reset(), 120, np.random.default_rng(0))
    return eng, start, future(eng, start.copy())


@pytest.mark.parametrize("how", ["copy", "take"])
def test_playing_a_copy_leaves_the_original_unchanged(setting, how):
    eng, start, want = setting
    original = start.copy()
    other = original.copy() if how == "copy" else original.take(np.arange(B)[::-1])
    advance(eng, other, 400, np.random.default_rng(99))  # other actions, several new deals
    assert future(eng, original) == want


def test_a_copy_replays_the_original_exactly(setting):
    eng, start, want = setting
    assert future(eng, start.copy()) == want
    assert future(eng, start.take(np.arange(B))) == want


def test_take_of_some_games_equals_those_games(setting):
    eng, start, _ = setting
    games = np.array([5, 1])
    part = start.take(games)
    small = Engine(Rules(), len(games), seed=3, **KW)
    whole = start.copy()
    rng = np.random.default_rng(4)
    for _ in range(300):  # the same actions for the taken games inside the full batch
        acts = random_actions(eng, whole, rng)
        part, _, _ = small.step(part, acts[games])
        whole, _, done = eng.step(whole, acts)
        finished = np.flatnonzero(done)  # before the resets: `done` is the state's own array
        eng.reset_games(whole, finished)
        small.reset_games(part, np.flatnonzero(np.isin(games, finished)))
        assert np.array_equal(small.legal_mask(part), eng.legal_mask(whole)[games])
        assert np.array_equal(small.observe(part), eng.observe(whole)[games])
        assert np.array_equal(part.deck, whole.deck[games])
    assert [small.game_log(part, i) for i in range(2)] == [eng.game_log(whole, g) for g in games]


def test_the_engine_holds_no_game_state():
    """Two states of one engine played in turns behave as if each had its own engine."""
    eng = Engine(Rules(decks=1), 4, seed=7, **KW)
    a, b = eng.reset(), eng.reset(seeds=np.arange(100, 104))
    alone = Engine(Rules(decks=1), 4, seed=7, **KW)
    ref = alone.reset()
    ra, rr, rb = (np.random.default_rng(1) for _ in range(3))
    for _ in range(300):
        a = advance(eng, a, 1, ra)
        b = advance(eng, b, 1, rb)
        ref = advance(alone, ref, 1, rr)
        assert np.array_equal(eng.observe(a), alone.observe(ref))
    assert [eng.game_log(a, g) for g in range(4)] == [alone.game_log(ref, g) for g in range(4)]
