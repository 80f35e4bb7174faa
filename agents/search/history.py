"""The public play of a hand, rebuilt from one seat's own observations, and the world filter
that replays it.

``UniformSampler`` draws deals consistent with what one observation states: hand sizes, cards
seen, voids by effective suit, known cards. An observation does not say everything the seat has
seen, though. When a pair is led, a seat that follows with two singles of the suit showed that
it held no pair of that suit then (RULES.md §8.2), and a tractor lead tells as much about pairs
and tractors; the observation keeps no such record. On heuristic-played hands about 40% of the
uniform worlds contradict the play so far in this way (measured on 150 decisions of six hands).

**The record** (``PlayHistory``): at each PLAY decision the seat searches (its first card of a
play), the observation is appended to the chain of its hand; the hand is recognised by the
seat's cards at the start of play (its hand plus what it has played) with level, trump and
dealer. Between two consecutive decisions of the seat exactly one trick ends (``tricks_done``
goes up by one), so the chain fixes every play in between: the rest of the earlier trick in
seat order (the difference of the ``played`` blocks, less what those seats have put in the new
trick), then the new trick's plays before the seat (its ``trick`` block). A gap (a decision the
seat was not asked, e.g. an engine with ``auto_forced``) starts a new chain.

**The filter** (``consistent_worlds``): a world at the latest decision is rewound to the chain's
first decision (every seat's hand plus the cards it has played since), rebuilt as an engine
state there (``core.world.world_states``) and played forward through the recorded plays — each
card id in ascending order (the play mask is prefix-closed, so a legal play's cards are legal in
any order), then ``END`` for a lead. A world is kept when every recorded action is legal in it
and, at every later decision of the chain, the seat's observation of the world equals the one it
received. The kept worlds are exactly the uniform sampler's worlds conditioned on the whole
public play: rejection from a uniform proposal keeps the distribution uniform over the deals that
pass. What the reconstruction cannot express — a failed throw (its attempted cards and the
choice of the unit are not in the chain) — makes every world fail the observation test: the
filter then keeps all worlds and the chain restarts at the latest decision.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from shengji_env.cards import POINTS
from shengji_env.core.world import world_states
from shengji_env.rules.actions import END

__all__ = ["PlayHistory", "consistent_worlds", "interval_actions", "interval_plays",
           "trick_points"]


def _hand_key(view) -> bytes:
    start = view.hand.astype(np.int16) + view.played[0]
    return start.astype(np.uint8).tobytes() + bytes([view.level, view.trump + 1, view.dealer + 1])


class PlayHistory:
    """Chains of one seat's PLAY-decision observations, one chain per hand being played.

    ``record(view, observation)`` appends the decision to its hand's chain (or starts one) and
    returns the chain: a list of ``(view, observation float32[N])``, oldest first. Each chain
    also carries the trick points each relative seat has won so far (``points``; None when the
    chain starts after the hand's first trick), updated as it grows. One agent can play many
    games at once (``act_batch`` rows of different games: ``shengji-eval``'s find-friends
    metric plays every seat-hand of its deals in one batch), so at most ``hands`` chains are
    kept, the least recently used dropped: a dropped hand that is asked about again restarts
    with a gap (counted in ``dropped``). ``full=False`` keeps only each chain's latest decision
    and its points (what find-friends needs, about 6 kB a hand instead of 6 kB a decision), so
    that many more hands fit."""

    def __init__(self, hands: int = 64, full: bool = True):
        self.hands, self.full = int(hands), bool(full)
        if self.hands < 1:
            raise ValueError(f"hands={hands!r}; expected at least 1 hand")
        self._chains: OrderedDict[bytes, tuple[list, np.ndarray | None]] = OrderedDict()
        self.dropped = 0  # hands dropped while still being played (asked about again later)
        self._gone: OrderedDict[bytes, None] = OrderedDict()

    def record(self, view, observation: np.ndarray) -> list:
        key = _hand_key(view)
        chain, won = self._chains.pop(key, (None, None))
        if chain and np.array_equal(chain[-1][1], observation):
            pass  # the same decision asked again
        elif chain and interval_plays(chain[-1][0], view) is not None:
            if won is not None:
                won = won + _ended_trick_points(chain[-1][0], view)
            if self.full:
                chain.append((view, observation))
            else:
                chain = [(view, observation)]  # the points carry what the rest would say
        else:
            if chain is None and key in self._gone:  # its earlier decisions were dropped
                del self._gone[key]
                self.dropped += 1
            chain = [(view, observation)]
            won = np.zeros(4, dtype=np.int64) if view.tricks_done == 0 else None
        self._chains[key] = (chain, won)
        if len(self._chains) > self.hands:
            gone, _ = self._chains.popitem(last=False)
            self._gone[gone] = None
            if len(self._gone) > 4 * self.hands:  # the count is of the recently dropped
                self._gone.popitem(last=False)
        return chain

    def points(self, view) -> np.ndarray | None:
        """``int64[4]`` — the trick points each relative seat has won so far in ``view``'s hand
        (``trick_points`` of its whole chain, kept as the chain grows), or None when its chain
        starts after the first trick or the hand is not recorded."""
        _, won = self._chains.get(_hand_key(view), (None, None))
        return None if won is None else won.copy()

    def restart(self, view, observation: np.ndarray) -> None:
        """Start the hand's chain again at this decision (its earlier play cannot be replayed);
        its trick points, which do not depend on the replay, are kept."""
        _, won = self._chains.get(_hand_key(view), (None, None))
        self._chains[_hand_key(view)] = ([(view, observation)], won)

    def clear(self) -> None:
        self._chains.clear()
        self._gone.clear()


def interval_plays(before, after) -> list[tuple[int, np.ndarray, bool]] | None:
    """The plays ``(relative seat, cards uint8[54], leads)`` made between two consecutive PLAY
    decisions of one seat (views ``before`` and ``after``, selections empty), in order, or
    ``None`` if the views are not consecutive (not exactly one trick apart, or the cards do not
    add up)."""
    if after.tricks_done != before.tricks_done + 1:
        return None
    moved = after.played.astype(np.int16) - before.played  # int16[4, 54]: cards played since
    new_trick = after.trick.astype(np.int16)
    rest = moved - new_trick  # the earlier trick's remaining plays (seat 0's included)
    if (moved < 0).any() or (rest < 0).any():
        return None
    leader = before.trick_leader if before.trick.any() else 0
    size = int(rest[0].sum())
    plays = [(0, rest[0], leader == 0)]
    followers = range(1, (leader - 1) % 4 + 1)  # the seats after me in the earlier trick
    for r in range(1, 4):
        if (r in followers) != bool(rest[r].any()) or (r in followers
                                                       and int(rest[r].sum()) != size):
            return None
    plays += [(r, rest[r], False) for r in followers]
    if new_trick.any():
        new_leader = after.trick_leader
        if new_leader <= 0:
            return None
        n = int(new_trick[new_leader].sum())
        if any(int(new_trick[r].sum()) != n for r in range(new_leader, 4)):
            return None
        plays += [(r, new_trick[r], r == new_leader) for r in range(new_leader, 4)]
    return [(r, cards.astype(np.uint8), leads) for r, cards, leads in plays]


def trick_points(chain: list) -> np.ndarray | None:
    """``int64[4]`` — the card points of the tricks each relative seat has won so far this hand,
    from a chain that starts at the hand's first trick, or None when it starts later (a gap).
    Between two consecutive decisions one trick ends: its cards are the earlier view's trick
    plus what was played after it less the later view's trick, and its winner leads the next
    one — the later view's trick leader, or the seat itself when it is to lead. The observation
    states only the sum for the seats not known to be on the dealer side; in find-friends a world
    needs each seat's (``core.world.world_states``)."""
    if not chain or chain[0][0].tricks_done != 0:
        return None
    won = np.zeros(4, dtype=np.int64)
    for (before, _), (after, _) in zip(chain, chain[1:]):
        if interval_plays(before, after) is None:
            return None
        won += _ended_trick_points(before, after)
    return won


def _ended_trick_points(before, after) -> np.ndarray:
    """``int64[4]`` — the points of the trick that ended between two consecutive decisions
    (``interval_plays`` is not None), credited to its winner: who leads the next trick."""
    total = [v.astype(np.int64).sum(0) for v in (before.trick, before.played, after.played,
                                                    after.trick)]
    ended = total[0] + total[2] - total[1] - total[3]      # int64[54]: the trick that ended
    won = np.zeros(4, dtype=np.int64)
    won[after.trick_leader if after.trick.any() else 0] = int(POINTS.astype(np.int64) @ ended)
    return won


def interval_actions(before, after) -> list[tuple[int, int]] | None:
    """``interval_plays`` as engine actions ``(relative seat, action)``: each play's card ids in
    ascending order, then ``END`` for a lead."""
    plays = interval_plays(before, after)
    if plays is None:
        return None
    acts = []
    for r, cards, leads in plays:
        acts += [(r, a) for a in np.repeat(np.arange(54), cards).tolist()]
        if leads:
            acts.append((r, END))
    return acts


def consistent_worlds(eng, chain: list, hands: np.ndarray, kitty: np.ndarray, model=None,
                      window: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """``(keep bool[W], loglik float64[W])`` — which of the worlds (``hands uint8[W, 4, 54]``
    relative seats and ``kitty uint8[W, 54]`` at the chain's latest decision) agree with the
    chain's whole public play (module docstring), and with ``model`` (``(obs, mask) ->
    log-probabilities float64[B, A]``, e.g. ``NetRollout.log_probs``) the log-likelihood of the
    other seats' actions of the last ``window`` intervals under it (0 without a model; -inf
    where not kept). ``eng``: an ``Engine`` with ``auto_forced=False``."""
    W = len(hands)
    loglik = np.zeros(W)
    if len(chain) < 2:
        return np.ones(W, dtype=bool), loglik
    first, last = chain[0][0], chain[-1][0]
    back = last.played.astype(np.int16) - first.played  # cards each seat played since
    s = world_states(eng, first, (hands + back[None]).astype(np.uint8), kitty)
    rows = np.arange(W)
    scored = len(chain) - 1 - window  # intervals from this one on are scored by the model
    for i, ((before, _), (after, observation)) in enumerate(zip(chain, chain[1:])):
        for seat, a in interval_actions(before, after):
            mask = eng.legal_mask(s)
            ok = mask[:, a] & (s.to_act == seat)
            if model is not None and seat != 0 and i >= scored:
                lp = model(eng.observe(s), mask)[:, a]
                loglik[rows] += np.where(ok, lp, 0.0)
            if not ok.all():
                s, rows = s.take(np.flatnonzero(ok)), rows[ok]
                if not rows.size:
                    return np.zeros(W, dtype=bool), np.full(W, -np.inf)
            s, _, _ = eng.step(s, np.full(len(rows), a, dtype=np.int64))
        ok = (s.to_act == 0) & (eng.observe(s) == observation).all(1)
        if not ok.all():
            s, rows = s.take(np.flatnonzero(ok)), rows[ok]
            if not rows.size:
                return np.zeros(W, dtype=bool), np.full(W, -np.inf)
    keep = np.zeros(W, dtype=bool)
    keep[rows] = True
    return keep, np.where(keep, loglik, -np.inf)
