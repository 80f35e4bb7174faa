"""Cost and strength of the search agent (``agents.search.PIMCAgent``) against HeuristicAgent.

    python benchmarks/bench_search.py time  [--hands 4] [--worlds 12] [--candidates 5]
    python benchmarks/bench_search.py repeat [--hands 4] [--seeds 2]
    python benchmarks/bench_search.py curve [--deals 50] [--worlds 4 8 12 24] [--workers 2]
                                            [--time-hands 2]

``time`` plays hands (PIMC in seats 0/2, HeuristicAgent in 1/3, reference ``rules.Game``) and
reports per searched play decision the median / p90 time — process CPU time (what one core spends,
robust to other jobs on the machine) and wall time — the searched buries' median apart (one per
dealer hand, a whole hand played out per candidate), and the rollouts per second inside the search
(hands played out to the end per second of rollout time). ``curve`` plays duplicate deals
(``agents.eval.arena``, as ``shengji-eval``) for each number of worlds ``W`` (``worlds=W`` to
choose, ``recheck=W`` more to confirm: 2W deals sampled per decision) and reports the win rate of
hands with its 95% Wilson interval, and with ``--time-hands N`` (default 2; 0: none) the CPU time
per searched decision at each ``W`` (``time`` on N hands). Both print a table and a JSON line.
``eval --part i --parts n --out F`` plays every n-th deal of ``shengji-eval``'s deal set and appends
one JSON line per hand to F (run n of them for n cores; a stopped run keeps its hands); ``summary
--out F...`` gives the win rate and its interval; ``paired --out F... --base G...`` compares two
record sets hand by hand (same deal, same seats). ``--set key=value ...`` passes ``PIMCAgent``
options to ``eval``, ``time`` and ``curve``; ``eval --stop N`` plays only deals below N; ``eval
--oracle`` gives the search the true deal as every world (``OracleSampler``: a diagnostic of what a
perfect belief could add, never an agent). ``friends --part i --parts n --out F`` plays find-friends
(issue 13's metric): the agent (``--agent pimc`` with ``--set`` options, or ``heuristic``) in one
seat against ``--opponent random`` (or ``heuristic``) in the other three, seats rotated, one JSON
line per seat-hand with the agent's role; ``friends-summary --out F...`` gives the share of
seat-hands won, its interval and the share by role (``--oracle`` works here too). ``repeat
--hands N --seeds S`` plays N hands as ``time`` does and searches each searched play decision
again with S other seeds: how often one search leaves the heuristic's play and how often another
seed makes the same play (how much of one search's choice is its sampling).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import HeuristicAgent  # noqa: E402
from agents.baselines.random import RandomAgent  # noqa: E402
from agents.eval import Deals, play_deals, summarize, wilson  # noqa: E402
from agents.eval.arena import play_hand  # noqa: E402
from agents.search import PIMCAgent  # noqa: E402
from shengji_env import Rules  # noqa: E402
from shengji_env.core.observe import observe_game  # noqa: E402
from shengji_env.rules.actions import Phase  # noqa: E402
from shengji_env.rules.game import Game  # noqa: E402


def _play_hand(rules: Rules, game_seed: int, heur, on_agent) -> None:
    """One hand of the reference game: ``on_agent(game, obs) -> action`` in seats 0 and 2,
    ``heur`` in seats 1 and 3."""
    game = Game(rules, game_seed)
    while game.phase != Phase.OVER:
        mask = np.zeros(66, dtype=np.int8)
        mask[game.legal_actions()] = 1
        obs = {"observation": observe_game(game, game.to_act), "action_mask": mask}
        game.step(on_agent(game, obs) if game.to_act % 2 == 0 else heur.act(obs))


def time_decisions(worlds: int, candidates: int, hands: int, seed: int = 0,
                   options: dict | None = None) -> dict:
    rules = Rules()
    agent = PIMCAgent(rules, **{"worlds": worlds, "recheck": worlds, "candidates": candidates,
                                "seed": seed, **(options or {})})
    cpu, wall, bury_cpu = [], [], []

    def timed(game, obs):
        n, c, w = agent.stats["searched"], time.process_time(), time.perf_counter()
        a = agent.act(obs)
        if agent.stats["searched"] > n and game.phase == Phase.BURY:
            bury_cpu.append(time.process_time() - c)  # once per dealer hand: apart
        elif agent.stats["searched"] > n:
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
        return a

    heur = HeuristicAgent(rules)
    for h in range(hands):
        _play_hand(rules, 1000 + seed + h, heur, timed)
    st = agent.stats
    return {"worlds": worlds, "candidates": candidates, "hands": hands, "searched": len(cpu),
            "cpu_median_s": float(np.median(cpu)), "cpu_p90_s": float(np.percentile(cpu, 90)),
            "wall_median_s": float(np.median(wall)), "bury_searched": len(bury_cpu),
            "bury_cpu_median_s": float(np.median(bury_cpu)) if bury_cpu else None,
            "rollouts": st["rollouts"],
            "rollouts_per_decision": st["rollouts"] / max(1, st["searched"]),
            "rollouts_per_s": st["rollouts"] / st["rollout_s"],
            "rollouts_per_cpu_s": st["rollouts"] / st["rollout_cpu_s"]}


def repeat_searches(hands: int, seeds: int, seed: int = 0, options: dict | None = None,
                    other_seeds: list[int] | None = None) -> dict:
    """How much of one search's choice is its sampling: the search (seed ``seed``, ``options``)
    plays ``hands`` hands against the heuristic as ``time`` does (other deals: game seeds
    2000 + ``seed`` + hand); each of its searched play decisions is searched again by ``seeds``
    agents with other seeds (same options, a fresh plan each time; ``other_seeds`` names them,
    default ``seed + 1`` … ``seed + seeds``). Returns the decisions, each search's share of
    plays that leave the heuristic's (*departures*), the share of decisions where every search
    makes the same play, and — the signal a student learning one search per state gets — how
    often another seed makes exactly the play of a departure. The other agents see each state
    alone, not the hand's play before it: for ``belief`` options that read that record they
    search with less than the first agent knew."""
    rules = Rules()
    make = lambda s: PIMCAgent(rules, **{**(options or {}), "seed": s})  # noqa: E731
    if other_seeds is None:
        other_seeds = [seed + 1 + i for i in range(seeds)]
    agent, others = make(seed), [make(s) for s in other_seeds]
    rows = []  # per searched decision: (departs, play) for the agent, then for each other seed

    def searched(a: PIMCAgent, n: int) -> tuple[bool, bytes] | None:
        """(departs, play) of the search ``a`` just made, if it made one with a choice."""
        rec = a.last_search
        if a.stats["searched"] == n or rec is None or rec.values is None:
            return None
        return bool(rec.chosen != rec.incumbent), np.asarray(rec.candidates[rec.chosen]).tobytes()

    def again(a: PIMCAgent, obs) -> tuple[bool, bytes] | None:
        a.reseed(a.seed)  # forget its plans: search this state afresh
        n = a.stats["searched"]
        a.act(obs)
        return searched(a, n)

    def record(game, obs):
        n = agent.stats["searched"]
        action = agent.act(obs)  # a play's later cards come from its plan: no search there
        first = searched(agent, n) if game.phase == Phase.PLAY else None
        if first is not None:
            rows.append([first] + [again(o, obs) for o in others])
        return action

    heur = HeuristicAgent(rules)
    for h in range(hands):
        _play_hand(rules, 2000 + seed + h, heur, record)
    rows = [r for r in rows if all(c is not None for c in r)]
    departs = np.array([[c[0] for c in r] for r in rows], dtype=bool)
    same = np.array([[c[1] == r[0][1] for c in r[1:]] for r in rows], dtype=bool)
    return {"hands": hands, "searches_per_decision": len(others) + 1, "decisions": len(rows),
            "departure_rate": departs.mean(0).round(4).tolist(),
            "all_same": float(np.mean([len({c[1] for c in r}) == 1 for r in rows])),
            "same_as_first": float(same.mean()),
            "same_as_first_per_seed": same.mean(0).round(4).tolist(),
            "departure_repeated": float(same[departs[:, 0]].mean()) if departs[:, 0].any()
            else None,
            "departures": int(departs[:, 0].sum())}


def curve(worlds_list, deals: int, workers: int, candidates: int, seed: int = 0,
          options: dict | None = None, time_hands: int = 2) -> list[dict]:
    """Hands won against ``HeuristicAgent`` on ``deals`` duplicate deals for each number of
    worlds (``worlds=W``, ``recheck=W``), and — ``time_hands`` > 0 — the CPU time per searched
    play decision at that W (``time_decisions`` on that many hands, the same hands for every W)."""
    rules = Rules()
    deal_set = Deals.generate(deals, rules, seed=seed)
    out = []
    for w in worlds_list:
        agent = PIMCAgent(rules, **{"worlds": w, "recheck": w, "candidates": candidates,
                                    "seed": seed, **(options or {})})
        start = time.perf_counter()
        rec = play_deals((agent, HeuristicAgent(rules)), deal_set, rules, seed=seed,
                         workers=workers)
        s = summarize(rec)
        won = int(round(s["win_rate"] * len(rec)))
        lo, hi = wilson(won, len(rec))
        row = {"worlds": w, "candidates": candidates, "hands": len(rec),
               "win_rate": s["win_rate"], "ci95": [lo, hi],
               "mean_reward": s.get("mean_reward"), "wall_s": time.perf_counter() - start}
        cost = ""
        if time_hands > 0:
            t = time_decisions(w, candidates, time_hands, seed, options)
            row.update({k: t[k] for k in ("searched", "cpu_median_s", "cpu_p90_s",
                                          "rollouts_per_decision")})
            cost = (f", CPU median {1e3 * t['cpu_median_s']:.0f} ms (p90 "
                    f"{1e3 * t['cpu_p90_s']:.0f}) per searched decision")
        out.append(row)
        print(f"worlds {w:3d}: {100 * s['win_rate']:.1f}% of {len(rec)} hands "
              f"[{100 * lo:.1f}, {100 * hi:.1f}]{cost}", flush=True)
    return out


def agent_options(pairs: list[str]) -> dict:
    """``PIMCAgent`` keywords from ``--set key=value`` strings (numbers parsed)."""
    out = {}
    for pair in pairs or []:
        k, v = pair.split("=", 1)
        for cast in (int, float, str):
            try:
                out[k] = cast(v)
                break
            except ValueError:
                pass
    return out


class OracleSampler:
    """A diagnostic, not an agent: "worlds" that are the true deal of the hand being played
    (``attach`` is given the reference ``Game``; ``agents.eval.arena.play_hand(on_game=...)``).
    Every world is the same, so the search sees its real situation: what is left is the
    rollout policy's error. ``eval --oracle`` measures how much a perfect belief could add."""

    def __init__(self):
        self.game = None

    def attach(self, game) -> None:
        self.game = game

    def sample(self, view, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
        g = self.game
        me = g.to_act  # the searching seat: relative seat r is (me + r) % 4
        hands = np.stack([g.hands[(me + r) % 4] for r in range(4)]).astype(np.uint8)
        if not np.array_equal(hands[0], view.hand):
            raise RuntimeError("oracle: the searching seat's hand differs from the game's")
        return (np.repeat(hands[None], n, axis=0),
                np.repeat(g.kitty.astype(np.uint8)[None], n, axis=0))


def eval_part(deals: int, part: int, parts: int, out: str, seed: int = 0, stop: int | None = None,
              options: dict | None = None, oracle: bool = False) -> None:
    """Play deals ``part, part + parts, ...`` of ``Deals.generate(deals, seed)`` (both seatings
    and the agents' random streams exactly as ``shengji-eval``'s ``play_deals``: the agents are
    deterministic, so the hands are the same) and append one JSON line per hand to ``out`` as
    it ends — a run that is stopped keeps what it played, and run again with the same ``out``
    it resumes: the hands ``out`` already holds are not played again. ``oracle``: the search's
    worlds are the true deal (``OracleSampler``)."""
    rules = Rules()
    deal_set = Deals.generate(deals, rules, seed=seed)
    sampler = OracleSampler() if oracle else None
    agent = PIMCAgent(rules, seed=seed, **{**(options or {}),
                                           **({"sampler": sampler} if oracle else {})})
    heur = HeuristicAgent(rules)
    done = set(_file_records(out)) if Path(out).exists() else set()
    for i in range(part, deals if stop is None else min(stop, deals), parts):
        for a_seats in (0, 1):
            if (i, a_seats) in done:
                continue
            seating = [agent, heur, agent, heur] if a_seats == 0 else [heur, agent, heur, agent]
            rngs = [np.random.default_rng([seed, i, s]) for s in range(4)]
            game, rewards = play_hand(seating, deal_set.decks[i].astype(np.int64),
                                      int(deal_set.first_drawers[i]), rules, rngs,
                                      on_game=sampler.attach if oracle else None)
            with open(out, "a") as f:
                f.write(json.dumps({"deal": i, "a_seats": a_seats,
                                    "a_reward": float(rewards[a_seats]),
                                    "a_dealer": bool(game.dealer % 2 == a_seats),
                                    "attacker_points": int(game.attacker_points)}) + "\n")


def friends_part(deals: int, part: int, parts: int, out: str, seed: int = 0,
                 stop: int | None = None, options: dict | None = None, oracle: bool = False,
                 agent: str = "pimc", opponent: str = "random", decks: int = 2) -> None:
    """Find-friends (issue 13's metric, ``agents.eval.arena.friend_win_share``, played in the
    reference ``Game``): ``agent`` (``"pimc"`` with ``options``, or ``"heuristic"``) in one seat
    and ``opponent`` (``"random"`` or ``"heuristic"``) in the other three, each deal of
    ``Deals.generate(deals, seed)`` played four times with the agent's seat rotated; deals
    ``part, part + parts, ...`` below ``stop``. One JSON line per seat-hand: deal, seat, whether
    the agent's side won, and its role (``dealer``, ``friend``: the dealer's partner,
    ``attacker``). Resumes like ``eval``. ``oracle``: the search's worlds are the true deal."""
    rules = Rules(partnership="FIND_FRIEND", decks=decks)
    deal_set = Deals.generate(deals, rules, seed=seed)
    sampler = OracleSampler() if oracle else None
    if agent == "heuristic":
        me = HeuristicAgent(rules)
    else:
        me = PIMCAgent(rules, seed=seed, **{**(options or {}),
                                            **({"sampler": sampler} if oracle else {})})
    them = RandomAgent() if opponent == "random" else HeuristicAgent(rules)
    done = set(_file_records(out, "seat")) if Path(out).exists() else set()
    for i in range(part, deals if stop is None else min(stop, deals), parts):
        for seat in range(4):
            if (i, seat) in done:
                continue
            seating = [me if s == seat else them for s in range(4)]
            rngs = [np.random.default_rng([seed, i, s]) for s in range(4)]
            game, rewards = play_hand(seating, deal_set.decks[i].astype(np.int64),
                                      int(deal_set.first_drawers[i]), rules, rngs,
                                      on_game=sampler.attach if oracle else None)
            role = ("dealer" if game.dealer == seat else
                    "friend" if seat in game.side else "attacker")
            with open(out, "a") as f:
                f.write(json.dumps({"deal": i, "seat": seat, "won": bool(rewards[seat] > 0),
                                    "role": role}) + "\n")


def friends_summary(paths: list[str]) -> dict:
    """The agent's share of seat-hands on the winning side over ``friends`` records (each
    seat-hand once), with its interval, and the share by role."""
    rows = {key: r for p in paths for key, r in _file_records(p, "seat").items()}
    won = sum(r["won"] for r in rows.values())
    out = {"seat_hands": len(rows), "won": won, "share": won / max(1, len(rows)),
           "ci95": list(wilson(won, len(rows))), "roles": {}}
    for role in ("dealer", "friend", "attacker"):
        mine = [r["won"] for r in rows.values() if r["role"] == role]
        out["roles"][role] = {"seat_hands": len(mine), "share": sum(mine) / max(1, len(mine))}
    return out


def _file_records(path: str, seats: str = "a_seats") -> dict:
    """The hands of one record file by (deal, the agent's seats: ``a_seats`` for ``eval``,
    ``seat`` for ``friends``), each once: a run restarted before ``eval`` resumed appended its
    hands again, with the same results (the agents are deterministic). ``ValueError`` if one
    hand holds two results: the file mixes settings or deal sets."""
    hands = {}
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for r in rows:
        key = (r["deal"], r[seats])
        if hands.setdefault(key, r) != r:
            raise ValueError(f"{path}: deal {key[0]}, agent seats {key[1]} is recorded twice "
                             f"with different results ({hands[key]} and {r}): the file "
                             "mixes settings or deal sets")
    return hands


def eval_summary(paths: list[str]) -> dict:
    """Wins, CI and mean reward over the hands of ``paths`` (files of one deal set's parts, or
    of several deal sets: each file's hands count once)."""
    rows = [r for p in paths for r in _file_records(p).values()]
    won = sum(r["a_reward"] > 0 for r in rows)
    lo, hi = wilson(won, len(rows))
    reward = np.array([r["a_reward"] for r in rows])
    return {"hands": len(rows), "deals_complete": len({r["deal"] for r in rows}), "wins": won,
            "win_rate": won / max(1, len(rows)), "ci95": [lo, hi],
            "mean_reward": float(reward.mean()) if rows else None}


def eval_paired(new: list[str], base: list[str]) -> dict:
    """Hands played by both record sets (same deal, same seats): wins of each, and the
    discordant hands (won by one setting, lost by the other) that carry the difference."""
    def load(paths):  # the parts of one deal set: a hand in two files is the same hand
        hands = {}
        for p in paths:
            for key, r in _file_records(p).items():
                if hands.setdefault(key, r) != r:
                    raise ValueError(f"deal {key[0]}, agent seats {key[1]} has two results in "
                                     f"{paths}: pair the records of one deal set at a time")
        return {key: r["a_reward"] > 0 for key, r in hands.items()}
    a, b = load(new), load(base)
    both = sorted(set(a) & set(b))
    gain = sum(a[k] and not b[k] for k in both)
    loss = sum(b[k] and not a[k] for k in both)
    return {"hands": len(both), "new_wins": sum(a[k] for k in both),
            "base_wins": sum(b[k] for k in both), "new_only": gain, "base_only": loss,
            "diff": (gain - loss) / max(1, len(both)),
            "diff_se": float(np.sqrt(gain + loss - (gain - loss) ** 2 / max(1, len(both))))
            / max(1, len(both))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=("time", "curve", "eval", "summary", "paired", "friends",
                                     "friends-summary", "repeat"))
    p.add_argument("--agent", choices=("pimc", "heuristic"), default="pimc",
                   help="friends: the agent in one seat")
    p.add_argument("--opponent", choices=("random", "heuristic"), default="random",
                   help="friends: the agent in the other three seats")
    p.add_argument("--decks", type=int, default=2, help="friends: deck count")
    p.add_argument("--part", type=int, default=0)
    p.add_argument("--base", nargs="+", default=None, help="paired: the records to compare with")
    p.add_argument("--parts", type=int, default=1)
    p.add_argument("--out", nargs="+", default=["/tmp/pimc_eval.jsonl"])
    p.add_argument("--hands", type=int, default=4)
    p.add_argument("--seeds", type=int, default=2, help="repeat: other seeds per decision")
    p.add_argument("--time-hands", type=int, default=2,
                   help="curve: hands of searched decisions timed per W (0: no timing)")
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--worlds", type=int, nargs="+", default=None)
    p.add_argument("--candidates", type=int, default=5)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stop", type=int, default=None,
                   help="eval, friends: play deals below this only")
    p.add_argument("--oracle", action="store_true",
                   help="eval: the search's worlds are the true deal (a diagnostic: what a "
                        "perfect belief could add)")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="PIMCAgent options (eval, time, curve), e.g. --set value=soft z=1")
    args = p.parse_args(argv)
    if args.time_hands < 0:
        p.error(f"--time-hands {args.time_hands}: expected 0 (no timing) or more hands")
    opts = agent_options(args.set)
    if args.mode == "time":
        for w in args.worlds or [12]:
            r = time_decisions(w, args.candidates, args.hands, args.seed, opts)
            print(f"worlds {w:3d} × candidates {args.candidates}: {r['searched']} searched "
                  f"decisions, CPU median {1e3 * r['cpu_median_s']:.0f} ms (p90 "
                  f"{1e3 * r['cpu_p90_s']:.0f}), wall median {1e3 * r['wall_median_s']:.0f} ms, "
                  f"{r['rollouts_per_decision']:.0f} rollouts per decision, "
                  f"{r['rollouts_per_cpu_s']:.0f} rollouts per CPU second "
                  f"({r['rollouts_per_s']:.0f} per wall second)"
                  + (f"; {r['bury_searched']} searched buries, CPU median "
                     f"{1e3 * r['bury_cpu_median_s']:.0f} ms" if r["bury_searched"] else ""))
            print(json.dumps(r))
    elif args.mode == "repeat":
        r = repeat_searches(args.hands, args.seeds, args.seed, opts)
        print(f"{r['decisions']} searched decisions; departures from the heuristic's play "
              f"{r['departure_rate']} (seed {args.seed}, then the others); every search the "
              f"same play {100 * r['all_same']:.1f}%; another seed's play the same as the "
              f"first's {100 * r['same_as_first']:.1f}%, at the first's "
              f"{r['departures']} departures {100 * (r['departure_repeated'] or 0):.1f}%")
        print(json.dumps(r))
    elif args.mode == "eval":
        eval_part(args.deals, args.part, args.parts, args.out[0], args.seed, args.stop, opts,
                  args.oracle)
    elif args.mode == "friends":
        friends_part(args.deals, args.part, args.parts, args.out[0], args.seed, args.stop, opts,
                     args.oracle, args.agent, args.opponent, args.decks)
        print(json.dumps(friends_summary(args.out[:1])))
    elif args.mode == "friends-summary":
        print(json.dumps(friends_summary(args.out)))
    elif args.mode == "paired":
        print(json.dumps(eval_paired(args.out, args.base)))
    elif args.mode == "summary":
        print(json.dumps(eval_summary(args.out)))
    else:
        print(json.dumps(curve(args.worlds or [4, 8, 12, 24], args.deals, args.workers,
                               args.candidates, args.seed, opts, args.time_hands)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
