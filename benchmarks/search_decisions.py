"""Decision-level paired comparison of PIMC settings (a measurement tool, not a test).

    python benchmarks/search_decisions.py --hands 20 --variant "z=0.5" --variant "z=0"

Plays hands with ``HeuristicAgent`` in every seat (reference ``rules.Game``); at every play
decision of seats 0 and 2 where the search runs, each variant (``PIMCAgent`` keywords) chooses
its play on the *same* state. Where a variant leaves the heuristic's play, both plays are
continued from the **true** state with ``HeuristicAgent`` in every seat (deterministic), and the
difference in the seat's level reward, side points and hand won is recorded. Reported per
searched decision: mean gain over the heuristic's play (all decisions count, non-deviations as
0), with its standard error, and how often the variant deviates. Every variant sees exactly the
same states, so small differences between settings show with few hands. It reads the hidden
state only to score, never to choose.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import HeuristicAgent  # noqa: E402
from agents.plays import play_key  # noqa: E402
from agents.search import PIMCAgent  # noqa: E402
from shengji_env import Rules  # noqa: E402
from shengji_env.core.observe import observe_game  # noqa: E402
from shengji_env.rules.actions import END, Phase  # noqa: E402
from shengji_env.rules.game import Game  # noqa: E402


def _obs(game):
    mask = np.zeros(game.legal_mask().size, dtype=np.int8)
    mask[game.legal_actions()] = 1
    return {"observation": observe_game(game, game.to_act), "action_mask": mask}


def continue_with(game, seat: int, play: np.ndarray, heur) -> tuple[float, float, float]:
    """(level reward, side points, won) for ``seat`` after making ``play`` in a copy of
    ``game`` and playing the rest of the hand with ``heur`` in every seat."""
    g = copy.deepcopy(game)
    leading = g.leader == seat
    total = 0.0
    for a in np.repeat(np.arange(54), play):
        total += float(g.step(int(a))[seat])
    if leading:
        total += float(g.step(END)[seat])
    while not g.done:
        total += float(g.step(heur.act(_obs(g)))[seat])
    dealer_side = seat in g.side
    pts = -g.attacker_points if dealer_side else g.attacker_points
    return total, float(pts), float(total > 0)


def parse_variant(text: str) -> dict:
    out = {}
    for part in filter(None, text.split(",")):
        k, v = part.split("=")
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def run(variants: list[str], hands: int, seed: int, first: int = 0) -> dict:
    rules = Rules()
    heur = HeuristicAgent(rules)
    agents = [PIMCAgent(rules, seed=seed, **parse_variant(v)) for v in variants]
    gains = [[] for _ in variants]
    cpu = [[] for _ in variants]
    for h in range(first, first + hands):
        game = Game(rules, 5000 + seed + h)
        while not game.done:
            seat = game.to_act
            obs = _obs(game)
            if seat % 2 == 0 and game.phase == Phase.PLAY and not game.selection.any():
                base = None
                for i, ag in enumerate(agents):
                    n, c = ag.stats["searched"], time.process_time()
                    ag.act(obs)
                    if ag.stats["searched"] == n:
                        continue
                    cpu[i].append(time.process_time() - c)
                    last = ag.last
                    chosen, inc = last["candidates"][last["chosen"]], \
                        last["candidates"][last["incumbent"]]
                    if play_key(chosen) == play_key(inc):
                        gains[i].append((0.0, 0.0, 0.0))
                        continue
                    if base is None:
                        base = continue_with(game, seat, inc, heur)
                    new = continue_with(game, seat, chosen, heur)
                    gains[i].append(tuple(a - b for a, b in zip(new, base)))
            game.step(heur.act(obs))
        print(f"hand {h}: " + "  ".join(
            f"[{v}] {np.mean([g[0] for g in gains[i]]) if gains[i] else 0:+.3f}"
            for i, v in enumerate(variants)), flush=True)
    out = []
    for i, v in enumerate(variants):
        g = np.array(gains[i]) if gains[i] else np.zeros((0, 3))
        n = len(g)
        mean = g.mean(0) if n else np.zeros(3)
        se = g.std(0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(3)
        out.append({"variant": v, "decisions": n, "deviate": float((g != 0).any(1).mean()) if n
                    else 0.0, "levels": [float(mean[0]), float(se[0])],
                    "points": [float(mean[1]), float(se[1])], "won": [float(mean[2]), float(se[2])],
                    "cpu_median_ms": 1e3 * float(np.median(cpu[i])) if cpu[i] else None,
                    "gains": g.tolist()})
    return {"hands": hands, "first": first, "seed": seed, "variants": out}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", action="append", default=None)
    p.add_argument("--hands", type=int, default=10)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    r = run(args.variant or [""], args.hands, args.seed, args.first)
    for v in r["variants"]:
        print(f"[{v['variant']}] {v['decisions']} decisions, deviates {100 * v['deviate']:.0f}%: "
              f"levels {v['levels'][0]:+.4f} ± {v['levels'][1]:.4f}, points "
              f"{v['points'][0]:+.2f} ± {v['points'][1]:.2f}, won {v['won'][0]:+.4f} ± "
              f"{v['won'][1]:.4f}, CPU median {v['cpu_median_ms']:.0f} ms")
    if args.out:
        Path(args.out).write_text(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
