"""JSON views of a table for the web page: what one seat may see (play), or everything (watch).

Card ids are ``cards`` ids 0-53 (one entry per copy); the page names them with ``CARD_NAMES``.
Hands are groups by effective suit in trump order (``rules.order.canonical_order``: off-suits
high → low, then trump high → low), as the terminal table shows them.
"""

from __future__ import annotations

import numpy as np

from shengji_env import cards
from shengji_env.events import card_ids, group_rounds, tricks_won, trump_word
from shengji_env.gamelog import GameLog, replay
from shengji_env.render import suit_groups
from shengji_env.rules.actions import Phase, action_layout, describe_action

CARD_NAMES = [cards.name(c) for c in range(54)]
MAX_FRAMES = 2000  # a replayed episode longer than this is cut (a long match)


def hand_groups(counts: np.ndarray, level: int, trump: int, always_trump_two: bool = False):
    """``[[label, [ids…]], …]``: ``counts`` ``uint8[54]`` grouped by effective suit, trump
    last (``trump`` -1: grouped as under no-trump; ``shengji_env.render.suit_groups``)."""
    return [[name, ids] for name, ids in suit_groups(counts, level, trump, always_trump_two)]


def table_view(sess_or_eng, s, seat: int | None, events=()) -> dict:
    """The table of game 0 of ``s`` as seen by ``seat`` (``None``: every hand shown)."""
    eng = sess_or_eng
    cfg = eng.cfg
    level, trump, dealer = int(s.level[0]), int(s.trump[0]), int(s.dealer[0])
    phase = Phase(int(s.phase[0]))
    seats = range(4) if seat is None else [seat]
    hands = {i: hand_groups(s.hands[0, i] - (s.selection[0] if i == int(s.to_act[0]) and
                                             seat is not None else 0),
                            level, trump, cfg.always_trump_two) for i in seats}
    view = {
        "phase": phase.name, "level": cards.RANKS[level], "trump": trump,
        "trump_text": trump_word(trump), "dealer": dealer, "to_act": int(s.to_act[0]),
        "leader": int(s.leader[0]), "in_trick": int(s.in_trick[0]),
        "trick": [card_ids(s.trick[0, i]) for i in range(4)],
        "hands": {str(i): h for i, h in hands.items()},
        "hand_sizes": [int(s.hands[0, i].sum()) for i in range(4)],
        "attacker_points": int(s.captured[0]) + int(s.penalty[0]),
        "tricks_done": int(s.tricks_done[0]), "team_levels": [cards.RANKS[int(x)]
                                                             for x in s.team_levels[0]],
        "attackers": -1 if dealer < 0 else 1 - dealer % 2,
        "dealt": int(s.dealt[0]), "deal_total": 4 * cfg.hand_size,
        "declarer": int(s.decl_player[0]),
        "declared": card_ids(s.shown[0, int(s.decl_player[0])]) if int(s.decl_player[0]) >= 0
        else [],
        "revealed": [card_ids(s.revealed[0, i]) for i in range(4)],
        "done": bool(s.done[0]),
        "decks": cfg.decks,
        "tricks_won": [int(x) for x in tricks_won(list(events))]
        if int(s.tricks_done[0]) else [0] * 4,  # a match's next hand starts at 0
    }
    if eng.find_friend:
        view |= friend_view(s, seat)
    if seat is not None and int(s.to_act[0]) == seat:
        view["selection"] = card_ids(s.selection[0])
    if seat is not None and seat == dealer and phase == Phase.BURY:
        view["picked_up"] = card_ids(s.picked_up[0])
    last = next((e for e in reversed(list(events)) if e.kind == "trick"), None)
    if not int(s.tricks_done[0]) and not bool(s.done[0]):
        last = None  # a match's next hand: the previous hand's last trick is not on the table
    view["last_trick"] = None if last is None else last.data
    return view


def friend_view(s, seat: int | None) -> dict:
    """Find-friends (RULES.md §10.6): the friend card, the friend once revealed, each seat's side
    as the viewer knows it (``"dealer"``, ``"attacker"`` or ``None``: not known yet), levels per
    player. The hidden friend is never sent to a player's page."""
    dealer, card = int(s.dealer[0]), int(s.friend_card[0])
    known = int(s.friend_trick[0]) >= 0 or bool(s.done[0]) or seat is None or \
        int(s.phase[0]) == Phase.OVER
    revealed = int(s.friend[0]) if int(s.friend_trick[0]) >= 0 else -1
    sides = [None] * 4
    if card >= 0 and known:
        sides = ["dealer" if x else "attacker" for x in s.dealer_side[0]]
    elif dealer >= 0:
        sides[dealer] = "dealer"
    return {"find_friends": True, "friend_card": card, "friend_revealed": revealed,
            "friend_trick": int(s.friend_trick[0]), "sides": sides,
            "friend": int(s.friend[0]) if known and card >= 0 else None,
            "seat_levels": [cards.RANKS[int(x)] for x in s.seat_levels[0]]}


def story_items(events) -> list[dict]:
    """The end screen's story: declarations (one line per round of the deal), trump, the friend
    card, failed throws, every trick, the result."""
    keep = ("declare", "redeal", "trump", "friend", "friend_revealed", "throw_failed", "choose",
            "trick", "hand_over")
    return [event_json(e) for e in group_rounds([e for e in events if e.kind in keep])]


def event_json(e) -> dict:
    return {"kind": e.kind, "text": e.text, "data": e.data}


def legal_view(sess) -> dict:
    """The person's choices: legal card ids (the env's mask) and the other actions, labelled."""
    mask = sess.mask()
    legal = np.flatnonzero(mask)
    lay = action_layout(sess.cfg)
    friend = lay.friend_base >= 0 and sess.phase == Phase.FRIEND
    actions = [] if friend else [{"id": int(a), "label": _label(sess, int(a), lay)}
                                 for a in legal if a >= 54]
    return {"cards": [int(a) for a in legal if a < 54], "actions": actions,
            # find-friends: the dealer names one card identity, action ``friend_base + card``
            "friend_base": lay.friend_base if friend else None,
            "friend_cards": [int(a) - lay.friend_base for a in legal if a >= lay.friend_base]
            if friend else [],
            "needed": sess.needed(), "leading": sess.leading(), "pending": list(sess.pending)}


def _label(sess, a: int, lay) -> str:
    """``describe_action``, with a failed throw's candidate units spelled out ("lead C:K K")."""
    if lay.choose_base >= 0 and lay.choose_base <= a < lay.choose_base + lay.num_choices:
        return "lead " + cards.format(sess.state.candidates[0, a - lay.choose_base])
    return describe_action(a, sess.cfg)


def replay_frames(log: GameLog) -> dict:
    """Every complete move of a logged game as a frame (all hands shown) with its events; a
    per-trick timeline of frame numbers. ``ValueError`` if the log does not replay."""
    eng, s, steps = replay(log)
    frames = [{"view": table_view(eng, s, None), "events": [], "seat": -1, "action": ""}]
    timeline, events = [], []
    for st in steps:
        events += st.events
        if int(st.after.selection[0].sum()) and not st.events:
            continue  # a card added to an unfinished play: shown once the play is complete
        frames.append({"view": table_view(eng, st.after, None, events),
                       "events": [{"kind": e.kind, "text": e.text, "data": e.data}
                                  for e in st.events],
                       "seat": st.seat, "action": describe_action(st.action, eng.cfg)})
        for e in st.events:
            if e.kind == "trick":
                timeline.append({"number": e.data["number"], "frame": len(frames) - 1,
                                 "winner": e.data["winner"], "points": e.data["points"]})
        if len(frames) >= MAX_FRAMES:
            break
    return {"frames": frames, "timeline": timeline, "agents": log.agents,
            "result": log.result, "card_names": CARD_NAMES}
