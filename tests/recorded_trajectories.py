"""Recorded trajectories: the engine's exact behaviour, frozen for behaviour-neutral changes.

For a list of fixed specs (rule options, engine options, batch size, seed) random legal play is
run through ``Engine`` and every step is summarised by a SHA-256 (first 16 hex digits) of the
mask, the observation of the seat to act, the observation of that seat's partner, the rewards
and ``done``; every finished episode's full decision log is kept as well. The record in
``tests/data/recorded_trajectories.json.gz`` was made from revision ``f438bb7`` (before the
core restructure) with::

    python tests/recorded_trajectories.py --write

``tests/test_recorded.py`` replays the specs and compares step by step. Only a change that is
*meant* to alter behaviour may re-record, and only the specs it concerns (``--write --only
NAME``); its commit says so.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

from shengji_env.core import Engine
from shengji_env.rules import Rules

RECORD = Path(__file__).parent / "data" / "recorded_trajectories.json.gz"
END, PLAY = 55, 3

# name, rule options, engine options, batch size, seed, hands to play (B = 1: one after another)
SPECS = [
    ("default_b64", {}, {}, 64, 0, 64),
    ("default_b1", {}, {}, 1, 5, 6),
    ("default_b1_forced", {}, {"auto_forced": True}, 1, 11, 4),
    ("one_deck_b64_forced", {"decks": 1}, {"auto_forced": True}, 64, 20, 64),
    ("next_player_b16", {"failed_throw_choice": "NEXT_PLAYER", "throw_penalty": "PER_CARD_10"},
     {}, 16, 30, 16),
    ("next_player_b1", {"failed_throw_choice": "NEXT_PLAYER"}, {}, 1, 33, 3),
    ("match_b4", {}, {"episode": "match", "levels": ("Q", "Q"), "dealer": 0}, 4, 40, 12),
    ("match_b1", {"win_condition": "MUST_DEFEND_A"},
     {"episode": "match", "levels": ("K", "K"), "dealer": 2, "reward": "win"}, 1, 44, 4),
    ("post_deal_b16", {"declaration_mode": "POST_DEAL_PARTNER_FIRST"},
     {"levels": (3, 3), "dealer": 1}, 16, 50, 16),
    ("points_random_levels_b8", {"kitty_multiplier": "POWER", "kitty_multiplier_basis": "WINNING_PLAY"},
     {"reward": "points", "levels": "random"}, 8, 60, 8),
    ("all_units_count_only_b8", {"throw_comparison": "ALL_UNITS", "ruff_match": "COUNT_ONLY"},
     {}, 8, 70, 8),
    ("fixed_trump_b8", {"declaration_mode": "FIXED", "fixed_trump": "H", "throw_penalty": "FIXED_10"},
     {"reward": "win"}, 8, 80, 8),
    ("redeal_b8", {"first_hand_no_declaration": "REDEAL", "allow_reinforce": False}, {}, 8, 90, 8),
]


def pick(rng, row, hand, sel, leading):
    """A random legal action; leaders mostly build pairs, tractors and throws of pairs so that
    the rare paths (tractor leads, failed throws) are reached often."""
    legal = np.flatnonzero(row)
    if leading and rng.random() < 0.8:
        cards_ = legal[legal < 54]
        finish = cards_[sel[cards_] == 1]
        if finish.size:
            return int(rng.choice(finish))
        if row[END] and (sel != 1).all() and rng.random() < 0.4:
            return END
        start = cards_[hand[cards_] >= 2]
        if start.size:
            return int(rng.choice(start))
    return int(rng.choice(legal))


def run(spec) -> dict:
    """Play one spec; returns ``{"steps": [hex16, ...], "logs": [[seat·256 + action, ...]]}``."""
    name, rule_opts, eng_opts, B, seed, hands = spec
    eng = Engine(Rules(**rule_opts), B, seed, **eng_opts)
    s = eng.reset()
    rng = np.random.default_rng(seed + 999)
    steps, logs = [], []
    match = eng_opts.get("episode") == "match"
    hands_seen = 0
    hand_counter = np.zeros(B, dtype=np.int64)
    last_tricks = s.tricks_done.copy()
    was_done = s.done.copy()
    while hands_seen < hands:
        mask = eng.legal_mask(s)
        obs = eng.observe(s)
        partner = (np.maximum(s.to_act, 0).astype(np.int64) + 2) % 4
        obs_partner = eng.observe(s, seats=partner)
        actions = np.zeros(B, dtype=np.int64)
        for i in range(B):
            if not s.done[i]:
                seat = int(s.to_act[i])
                leading = s.phase[i] == PLAY and s.lead_n[i] == 0
                actions[i] = pick(rng, mask[i], s.hands[i, seat], s.selection[i], leading)
        s, rewards, done = eng.step(s, actions)
        h = hashlib.sha256()
        for a in (mask, obs, obs_partner, rewards, done):
            h.update(np.ascontiguousarray(a).tobytes())
        steps.append(h.hexdigest()[:16])
        # hands finished in this step: a hand ends when tricks_done drops back or the game ends
        ended = (s.tricks_done < last_tricks) | (done & (last_tricks > 0))
        hand_counter += ended
        last_tricks = np.where(done, 0, s.tricks_done)
        if match:
            hands_seen = int(hand_counter.sum())
        newly_done = done & ~was_done
        for g in np.flatnonzero(newly_done):
            logs.append([seat * 256 + action for seat, action in eng.game_log(s, int(g))])
            if not match:
                hands_seen += 1
            if hands_seen < hands and (B == 1 or match):
                eng.reset_games(s, [int(g)])
        was_done = s.done.copy()
        if B > 1 and done.all():
            break
    # unfinished episodes too (match mode: their history spans several hands)
    logs += [[seat * 256 + action for seat, action in eng.game_log(s, g)]
             for g in np.flatnonzero(~s.done)]
    return {"steps": steps, "logs": logs}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--write", action="store_true", help="record (overwrite) instead of checking")
    p.add_argument("--only", nargs="*", help="spec names to re-record (others kept)")
    args = p.parse_args()
    old = json.loads(gzip.decompress(RECORD.read_bytes())) if RECORD.exists() else {}
    out = dict(old)
    for spec in SPECS:
        if args.only and spec[0] not in args.only:
            continue
        got = run(spec)
        if args.write:
            out[spec[0]] = got
        else:
            same = old.get(spec[0]) == got
            print(f"{spec[0]:28s} {'same' if same else 'DIFFERENT'}")
        print(f"  {spec[0]}: {len(got['steps'])} steps, {len(got['logs'])} episodes, "
              f"{sum(map(len, got['logs']))} logged decisions")
    if args.write:
        RECORD.parent.mkdir(exist_ok=True)
        RECORD.write_bytes(gzip.compress(json.dumps(out, sort_keys=True).encode(), mtime=0))


if __name__ == "__main__":
    main()
