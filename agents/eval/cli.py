"""``shengji-eval``: play agents against each other on duplicate deals and report the result.

    shengji-eval heuristic random --deals 1000            # two agents: one match
    shengji-eval heuristic random mypkg.bots:MyBot        # three or more: round robin + ratings
    shengji-eval runs/x heuristic?strict=true             # a run folder, an option
    shengji-eval heuristic random --save-deals deals.npz  # keep the deals to reproduce exactly
    shengji-eval heuristic random --load-deals deals.npz --json

Agents are named by a *spec* (``agents.specs``): ``random``, ``heuristic``, ``pimc`` (the search
agent), ``bot`` (the shipped trained network, ``agents.bot``), a name registered in
the ``shengji_rl.agents`` entry-point group, a checkpoint file or run folder, or ``module:attr``
(a ``Policy`` instance, or a class / factory called with the ``Rules``), with options as
``NAME?KEY=VALUE&KEY=VALUE``.

Reported for agent A against B (``agents.eval.arena``, ``agents.eval.stats``): hand win rate with
a 95% Wilson interval, mean reward in levels, and the attackers' mean points when A attacks and
when A defends.

Find-friends (``--rule partnership=FIND_FRIEND``, RULES.md §10.6) has no fixed teams: each pair is
scored by ``arena.friend_win_share`` instead, the share of A's seat-hands on the winning side with
its 95% Wilson interval (``--seating one``: A in one seat, rotated through the four; ``pairs``: A
in seats 0 and 2, then 1 and 3), B's share of the same hands, and A's seat-hands by role (the
dealer, the dealer's friend, an attacker: how often, and how often won):

    shengji-eval heuristic random --rule partnership=FIND_FRIEND --deals 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import combinations
from pathlib import Path

from shengji_env import Rules
from shengji_env.cli import OneLineParser

from ..base import Policy
from ..specs import parse, resolve
from .arena import Deals, HandRecords, friend_win_share, play_deals, play_deals_batched
from .stats import RATING_ORDERS, ratings, summarize

__all__ = ["evaluate", "format_report", "main"]


def _names(specs: list[str]) -> list[str]:
    out = []
    for s in specs:
        base = parse(s).name
        name = (Path(base).stem if Path(base).is_file() else Path(base).name
                if Path(base).exists() else s)
        k = sum(1 for o in out if o == name or o.startswith(name + "#"))
        out.append(name if k == 0 else f"{name}#{k + 1}")
    return out


def evaluate(specs: list[str], deals: Deals, rules: Rules, seed: int = 0,
             progress: bool = False, policies: list[Policy] | None = None,
             workers: int = 1, batched: bool = False, save_games: str | None = None,
             seating: str = "one") -> dict:
    """Play every pair of agents on ``deals``; returns the report as a JSON-ready dict.

    Find-friends rules: every pair is scored by ``arena.friend_win_share`` with ``seating``
    (always through the batched engine; ``workers`` and ``save_games`` do not apply).

    ``batched``: play through the batched engine (``arena.play_deals_batched``): faster, same
    deals; stochastic agents then share one random stream (mirror-exact only for
    deterministic agents). ``save_games``: a folder; each match writes every hand's game log
    (``shengji_env.gamelog``) to ``<folder>/<A>-vs-<B>/``."""
    if len(specs) < 2:
        raise ValueError("name at least two agents (e.g. 'heuristic random')")
    if rules.partnership == "FIND_FRIEND" and save_games is not None:  # it wrote nothing
        raise ValueError(f"save_games={save_games!r} (--save-games): find-friends evaluation "
                         "plays through the batched engine and writes no game logs; leave it out "
                         "(shengji-play --find-friends --save-games DIR keeps a hand's log)")
    names = _names(specs)
    policies = policies or [resolve(s, rules) for s in specs]
    if rules.partnership == "FIND_FRIEND":
        return _evaluate_friends(names, specs, policies, deals, rules, seed, seating)
    start = time.perf_counter()
    matches: dict[tuple[int, int], HandRecords] = {}
    report = []
    for i, j in combinations(range(len(specs)), 2):
        save = None if save_games is None else (
            str(Path(save_games) / f"{names[i]}-vs-{names[j]}".replace("/", "_")),
            (specs[i], specs[j]))
        if batched:
            rec = play_deals_batched((policies[i], policies[j]), deals, rules, seed=seed,
                                     save_games=save)
        else:
            rec = play_deals((policies[i], policies[j]), deals, rules, seed=seed,
                             progress=progress, desc=f"{names[i]} vs {names[j]}",
                             workers=workers, save_games=save)
        matches[(i, j)] = rec
        report.append({"a": names[i], "b": names[j], **summarize(rec)})
    wall = time.perf_counter() - start
    hands = sum(len(r) for r in matches.values())
    return {"agents": names, "specs": list(specs), "deals": len(deals), "deal_seed": deals.seed,
            "seed": seed, "rules": _rule_changes(rules), "matches": report,
            "ratings": ratings(names, matches), "wall_time_s": wall,
            "hands_per_s": hands / wall if wall > 0 else None}


def _evaluate_friends(names, specs, policies, deals: Deals, rules: Rules, seed: int,
                      seating: str) -> dict:
    """``evaluate`` for find-friends: the seat-hand win share of every pair (no ratings: a
    seat-hand is not a two-team result)."""
    start = time.perf_counter()
    report, hands = [], 0
    for i, j in combinations(range(len(specs)), 2):
        share = friend_win_share((policies[i], policies[j]), deals, rules, seed=seed,
                                 seating=seating)
        hands += share.hands
        report.append({"a": names[i], "b": names[j], "seating": seating,
                       "hands": share.hands, "a_seat_hands": share.a_seat_hands,
                       "a_wins": round(share.a_share * share.a_seat_hands),
                       "a_share": share.a_share, "a_share_ci": list(share.a_ci),
                       "b_share": share.b_share,
                       "a_roles": {role: {"seat_hands": k, "wins": w}
                                   for role, (k, w) in share.a_roles.items()}})
    wall = time.perf_counter() - start
    return {"agents": names, "specs": list(specs), "deals": len(deals), "deal_seed": deals.seed,
            "seed": seed, "rules": _rule_changes(rules), "matches": report, "ratings": [],
            "wall_time_s": wall, "hands_per_s": hands / wall if wall > 0 else None}


def _format_friends(rep: dict) -> str:
    rules = ", ".join(f"{k}={v}" for k, v in rep["rules"].items())
    lines = [f"{rep['deals']} deals, seats rotated, rules: {rules}; deal seed {rep['deal_seed']}, "
             f"agent seed {rep['seed']}"]
    for m in rep["matches"]:
        a, b = m["a"], m["b"]
        lo, hi = m["a_share_ci"]
        held = "one seat" if m["seating"] == "one" else "two opposite seats"
        lines += [f"\n{a} vs {b}: {m['hands']} hands, {a} in {held} of each",
                  (f"  {a} seat-hands on the winning side {_pct(m['a_share'])}  95% CI "
                   f"[{_pct(lo)}, {_pct(hi)}]  ({m['a_wins']}/{m['a_seat_hands']})"),
                  f"  {b} seat-hands on the winning side {_pct(m['b_share'])} (same hands)",
                  *_roles_text(a, m["a_roles"], m["a_seat_hands"])]
    lines.append(f"\nwall time {rep['wall_time_s']:.1f} s ({rep['hands_per_s']:.1f} hands/s)")
    return "\n".join(lines)


def _roles_text(a: str, roles: dict, seat_hands: int) -> list[str]:
    """A find-friends report's lines of A's seat-hands by role: share, and share won."""
    words = {"dealer": "the dealer", "friend": "the dealer's friend", "attacker": "an attacker"}
    lines = [f"  {a} seat-hands by role:"]
    for role, r in roles.items():
        won = f"won {100 * r['wins'] / r['seat_hands']:.1f}%" if r["seat_hands"] else "no hands"
        lines.append(f"    {words[role]:<20} {100 * r['seat_hands'] / seat_hands:5.1f}%, {won}")
    return lines


def _rule_changes(rules: Rules) -> dict:
    default = Rules(decks=rules.decks)
    out = {"decks": rules.decks}
    for k, v in vars(rules).items():
        if getattr(default, k) != v:
            out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _pct(x: float | None) -> str:
    return "no hands" if x is None else f"{100 * x:5.1f}%"


def _won(rate: float | None) -> str:
    return "no hands" if rate is None else f"won {_pct(rate)}"


def _num(x: float | None, fmt: str) -> str:
    return "n/a" if x is None else format(x, fmt)


def format_report(rep: dict) -> str:
    if rep["rules"].get("partnership") == "FIND_FRIEND":
        return _format_friends(rep)
    lines = []
    rules = ", ".join(f"{k}={v}" for k, v in rep["rules"].items())
    lines.append(f"{rep['deals']} duplicate deals (x2 seatings), rules: {rules}; "
                 f"deal seed {rep['deal_seed']}, agent seed {rep['seed']}")
    for m in rep["matches"]:
        a, b = m["a"], m["b"]
        lo, hi = m["win_rate_ci"]
        rlo, rhi = m["mean_reward_ci"]
        alo, ahi = m["attacker_points_attacking_ci"]
        dlo, dhi = m["attacker_points_defending_ci"]
        lines += [
            f"\n{a} vs {b}: {m['hands']} hands",
            (f"  {a} hand win rate        {_pct(m['win_rate'])}  95% CI [{_pct(lo)}, {_pct(hi)}]"
             f"  ({m['wins']}/{m['hands']})"),
            (f"  {a} mean reward (levels) {m['mean_reward']:+.3f}  95% CI [{_num(rlo, '+.3f')}, "
             f"{_num(rhi, '+.3f')}]"),
            (f"  attackers' points, {a} attacking  "
             + (f"{m['attacker_points_attacking']:6.1f}  95% CI [{_num(alo, '.1f')}, "
                f"{_num(ahi, '.1f')}]" if m["attacker_points_attacking"] is not None
                else f"no hands ({a} never attacked)")),
            (f"  attackers' points, {a} defending  "
             + (f"{m['attacker_points_defending']:6.1f}  95% CI [{_num(dlo, '.1f')}, "
                f"{_num(dhi, '.1f')}]" if m["attacker_points_defending"] is not None
                else f"no hands ({a} never defended)")),
            (f"  {a} was the dealer side in {_pct(m['dealer_share'])} of hands; "
             f"{_won(m['win_rate_as_dealer'])} as dealer side, "
             f"{_won(m['win_rate_as_attacker'])} attacking"),
        ]
    names = rep["agents"]
    if len(names) > 2:
        width = max(len(n) for n in names) + 2
        lines.append("\nwin rate of row against column")
        lines.append(" " * width + "".join(f"{n:>{width}}" for n in names))
        for r in names:
            cells = []
            for c in names:
                m = next((m for m in rep["matches"] if (m["a"], m["b"]) in ((r, c), (c, r))), None)
                if m is None:
                    cells.append(f"{'-':>{width}}")
                else:
                    w = m["win_rate"] if m["a"] == r else 1 - m["win_rate"]
                    cells.append(f"{_pct(w):>{width}}")
            lines.append(f"{r:<{width}}" + "".join(cells))
    lines.append(f"\nratings (OpenSkill Plackett-Luce, the mean over {RATING_ORDERS} shuffled orders of "
                 "the deals; ordinal = mu - 3 sigma)")
    for x in rep["ratings"]:
        lines.append(f"  {x['agent']:<20} mu {x['mu']:6.2f}  sigma {x['sigma']:5.2f}  "
                     f"ordinal {x['ordinal']:6.2f}")
    lines.append(f"\nwall time {rep['wall_time_s']:.1f} s ({rep['hands_per_s']:.1f} hands/s)")
    return "\n".join(lines)


def _parse_rule(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--rule {text!r}: expected NAME=VALUE, e.g. "
                                         "kitty_multiplier=POWER")
    key, _, value = text.partition("=")
    if not key.strip():
        raise argparse.ArgumentTypeError(f"--rule {text!r}: no option name before '='; expected "
                                         "NAME=VALUE, e.g. kitty_multiplier=POWER")
    low = value.strip().lower()
    if low in ("true", "false"):
        return key.strip(), low == "true"
    try:
        return key.strip(), int(value)
    except ValueError:
        return key.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="shengji-eval", description="Play agents against each other on duplicate deals "
        "(each deal twice, teams swapped) and report win rates with 95% confidence intervals.")
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="agent specs (two or more): random, heuristic, pimc, bot, a checkpoint "
                        "or run folder, module:attr; options as NAME?KEY=VALUE&...")
    p.add_argument("--deals", type=int, default=None,
                   help="number of deals (default 200; not with --load-deals)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--decks", type=int, default=None,
                   help="card decks, 1-4 (default 2; same as --rule decks=N)")
    p.add_argument("--rule", type=_parse_rule, action="append", default=[], metavar="NAME=VALUE",
                   help="a rules option (RULES.md §11), repeatable")
    p.add_argument("--save-deals", metavar="PATH", help="write the deal set to PATH (.npz)")
    p.add_argument("--load-deals", metavar="PATH", help="play the deal set stored at PATH")
    p.add_argument("--save-games", metavar="DIR",
                   help="write every hand's game log (JSON, replayable in shengji-web) under DIR")
    p.add_argument("--workers", type=int, default=1,
                   help="processes to play in (default 1; results do not depend on it)")
    p.add_argument("--batched", action="store_true",
                   help="play all hands in lockstep through the batched engine (faster; random "
                        "agents then share one random stream)")
    p.add_argument("--seating", choices=("one", "pairs"), default=None,
                   help="find-friends only: agent A holds one seat (rotated through the four; "
                        "default) or two opposite seats")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _check_flags(args) -> None:
    """Flags that would otherwise be silently dropped or land somewhere else: an empty path
    (``--save-games ''`` wrote into the working folder, ``--load-deals ''`` loaded nothing), a
    repeated ``--rule`` (the last won)."""
    for flag, value in (("--save-deals", args.save_deals), ("--load-deals", args.load_deals),
                        ("--save-games", args.save_games)):
        if value is not None and not value.strip():
            raise ValueError(f"{flag} {value!r}: expected a path")
    if args.save_games is not None and Path(args.save_games).is_file():  # found after a hand
        raise ValueError(f"--save-games {args.save_games!r} is a file; expected a folder to "
                         "write the game logs in")
    names = [name for name, _ in args.rule]
    for name in names:
        if names.count(name) > 1:
            given = " ".join(f"--rule {k}={v!r}" for k, v in args.rule if k == name)
            raise ValueError(f"{given}: the option {name} is given {names.count(name)} times; "
                             "give it once")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if len(args.agents) < 2:
        print("shengji-eval: name at least two agents, e.g. 'shengji-eval heuristic random'",
              file=sys.stderr)
        return 2
    for flag, value, low in (("--deals", args.deals, 1), ("--workers", args.workers, 1),
                             ("--seed", args.seed, 0)):
        if value is not None and value < low:
            print(f"shengji-eval: {flag} {value}: expected an int >= {low}", file=sys.stderr)
            return 2
    try:
        from shengji_env.rules.game import check_supported

        _check_flags(args)
        options = dict(args.rule)
        if args.decks is not None:
            if options.setdefault("decks", args.decks) != args.decks:
                raise ValueError(f"--decks {args.decks} and --rule decks={options['decks']!r} "
                                 "disagree; give the number of decks once")
        rules = Rules(**options)
        check_supported(rules)
        if args.seating is not None and rules.partnership != "FIND_FRIEND":  # it was ignored
            raise ValueError(f"--seating {args.seating}: seatings are for find-friends only "
                             "(--rule partnership=FIND_FRIEND); fixed teams always hold two "
                             "opposite seats")
        if args.load_deals is not None:
            deals = Deals.load(args.load_deals)
            if args.deals is not None and args.deals != len(deals):  # it was ignored
                raise ValueError(f"--deals {args.deals} but --load-deals {args.load_deals!r} "
                                 f"holds {len(deals)} deals; the file decides (leave --deals out)")
        else:
            deals = Deals.generate(200 if args.deals is None else args.deals, rules,
                                   seed=args.seed)
        if args.save_deals is not None:
            deals.save(args.save_deals)
        rep = evaluate(args.agents, deals, rules, seed=args.seed, progress=not args.no_progress,
                       workers=args.workers, batched=args.batched, save_games=args.save_games,
                       seating=args.seating or "one")
    except (ValueError, TypeError, NotImplementedError, OSError) as e:
        print(f"shengji-eval: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    print(json.dumps(rep, indent=2, allow_nan=False) if args.json else format_report(rep))
    return 0


if __name__ == "__main__":
    sys.exit(main())
