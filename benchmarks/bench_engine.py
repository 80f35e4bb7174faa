"""Random legal play through the batched engine: decisions/s and hands/s.

Every step computes ``legal_mask`` and ``observe`` for all games, picks a uniformly random
legal action per game (``random_legal``) and steps; finished games restart at once. Reports the
median of ``--repeats`` runs per batch size as a table and as JSON (``--json PATH`` also writes
the JSON).

    python benchmarks/bench_engine.py [--sizes 1 64 1024 4096] [--steps 200] [--repeats 3]
    python benchmarks/bench_engine.py --decks 1 2 3 4 --sizes 1 1024 --repeats 5  # one table

With several ``--decks`` the runs are interleaved (per repeat and size, every deck count in
turn) so that a noisy machine slows them alike; warm-up and timed steps scale with the hand
length (× decks / 2), and the table gives each deck count's share of the 2-deck figure
(``vs 2 decks``).

``--baseline REV`` times the engine of git revision REV side by side with the working tree's:
REV is exported to a temporary directory beside the working tree (removed afterwards, also on
error or Ctrl-C) and every run is a subprocess importing ``shengji_env`` from one checkout or
the other. Runs are interleaved (per repeat and size: baseline, then working tree; the order
flips every repeat) with 5 repeats by default; the table gives the medians of both, their ratio
new/old (working tree / baseline; > 1 is faster) and the range of the per-repeat ratios:

    python benchmarks/bench_engine.py --baseline f438bb7 --sizes 1 64 1024

An unknown revision, or a script outside a git checkout, is reported in one line (exit status 2).

``--rule NAME=VALUE`` (repeatable) plays under a rules option (``Rules`` field names; ``true`` /
``false`` for flags), for every deck count and both sides of ``--baseline``:

    python benchmarks/bench_engine.py --rule follow_partial_tractor=true --baseline b198180
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from shengji_env.rules import Rules

# The engine is imported inside the functions that run it: the parent process of --baseline never
# imports it (each of its runs does, from its own checkout); the parent reads only the working
# tree's ``Rules`` fields, to check ``--rule``.


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``int64[B]`` — a uniformly random legal action per game (0 where none is legal).

    Game g's pick is its k-th legal action with k = floor(u · n), u = ``rng.random()`` and n its
    number of legal actions: each legal action has probability 1/n to within 2^-53, as with the
    argmax of one uniform draw per legal action (``np.where(mask, rng.random(mask.shape),
    -1).argmax(1)``, this harness's pick before 2 December 2026), at a fifth of its cost: that
    pick drew, compared and reduced B·A floats, about 16% of a B = 1,024 step's instructions
    (benchmarks/PROFILE.md, sixth pass). The legal actions of all games, in flat index order, are
    one ``flatnonzero``; game g's start among them one ``searchsorted``.
    """
    B, A = mask.shape
    if B == 1:  # one game: plain indexing (the same pick; numpy's per-call cost dominates)
        legal = np.flatnonzero(mask[0])
        return np.array([legal[int(rng.random() * legal.size)] if legal.size else 0])
    legal = np.flatnonzero(mask)
    row = np.arange(0, B * A, A)
    start = np.searchsorted(legal, row)
    n = np.diff(start, append=legal.size)
    k = (rng.random(B) * n).astype(np.int64)  # 0 <= k < n (k = 0 where n = 0)
    pick = np.take(legal, np.minimum(start + k, legal.size - 1)) - row if legal.size else row
    return np.where(n > 0, pick, 0)


def run(num_games: int, steps: int, seed: int = 0, rules: Rules | None = None,
        warmup: int = 300) -> dict:
    """Time ``steps`` steps after ``warmup`` untimed ones (games desynchronise: steady state)."""
    from shengji_env.core import Engine
    from shengji_env.rules import Rules

    eng = Engine(rules or Rules(), num_games, seed)
    state = eng.reset()
    rng = np.random.default_rng(seed)
    obs_buf = np.zeros((num_games, eng.obs_size), dtype=np.float32)
    decisions = hands = 0
    start = time.perf_counter()
    for t in range(warmup + steps):
        if t == warmup:
            decisions = hands = 0
            start = time.perf_counter()
        mask = eng.legal_mask(state)
        eng.observe(state, out=obs_buf)
        actions = random_legal(mask, rng)
        state, _, done = eng.step(state, actions)
        decisions += num_games
        finished = np.flatnonzero(done)
        hands += finished.size
        eng.reset_games(state, finished)
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": decisions / elapsed, "hands_per_s": hands / elapsed}


def rule_option(text: str) -> tuple[str, object]:
    """``--rule NAME=VALUE`` as ``(name, value)``, the value read by the ``Rules`` field's type
    (a flag takes ``true`` / ``false``); an unknown name or ``decks`` (``--decks`` sets it) is
    an argparse error naming it (exit status 2), as is a set of options ``Rules`` refuses."""
    import dataclasses

    from shengji_env.rules import Rules

    name, sep, raw = (part.strip() for part in text.partition("="))
    # the fields' annotations: strings under ``from __future__ import annotations``, else types
    kinds = {f.name: f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
             for f in dataclasses.fields(Rules)}
    if name == "decks":
        raise argparse.ArgumentTypeError(f"--rule {text!r}: give the deck count with --decks")
    if not sep or name not in kinds:
        raise argparse.ArgumentTypeError(
            f"--rule {text!r}: expected NAME=VALUE with NAME a Rules option ({', '.join(kinds)})")
    value: object = raw
    if kinds[name] == "bool":
        if raw.lower() not in ("true", "false"):
            raise argparse.ArgumentTypeError(f"--rule {text!r}: {name} is true or false")
        value = raw.lower() == "true"
    elif "int" in kinds[name] and raw.lstrip("-").isdigit():
        value = int(raw)
    return name, value  # checked by ``Rules`` together with the other options (``main``)


def rules_for(args, decks: int) -> Rules:
    """The rules of a run: ``decks`` and the ``--rule`` options."""
    from shengji_env.rules import Rules

    return Rules(decks=decks, **dict(args.rule))


def warmup_for(num_games: int, warmup: int) -> int:
    return warmup if num_games <= 1024 else warmup // 2


def _count(minimum: int):
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def _foreign_modules(root: Path) -> list[str]:
    """Loaded ``shengji_env`` modules from outside ``root`` (an editable install of another
    checkout can supply the submodules ``root`` lacks)."""
    mods = [m for name, m in list(sys.modules.items()) if name.split(".")[0] == "shengji_env"]
    return [f"{m.__name__} from {m.__file__}" for m in mods
            if getattr(m, "__file__", None) and not Path(m.__file__).resolve().is_relative_to(root)]


def worker(args) -> None:
    """One run in a subprocess of ``--baseline``: check where ``shengji_env`` came from, print JSON."""
    import shengji_env

    root, imported = Path(args.worker).resolve(), Path(shengji_env.__file__).resolve()
    if not imported.is_relative_to(root):
        sys.exit(f"bench_engine.py --worker: imported {imported}, expected a shengji_env inside {root}")
    (b,) = args.sizes
    res = run(b, args.steps, seed=args.seed, rules=rules_for(args, args.decks[0]),
              warmup=warmup_for(b, args.warmup))
    if foreign := _foreign_modules(root):
        sys.exit(f"bench_engine.py --worker: modules from outside {root}: {'; '.join(foreign)}")
    print(json.dumps({"shengji_env": str(imported), **res}))


def compare(args) -> dict:
    here = Path(__file__).resolve().parent
    if str(here) not in sys.path:
        sys.path.insert(0, str(here))
    import baseline

    if len(args.decks) != 1:
        print("bench_engine.py: --baseline times one deck count; give one --decks", file=sys.stderr)
        sys.exit(2)
    opts = ["--steps", str(args.steps), "--warmup", str(args.warmup), "--decks", str(args.decks[0]),
            *(f"--rule={name}={value}" for name, value in args.rule)]
    res = baseline.compare_or_exit(Path(__file__), args.baseline, args.sizes, args.repeats, opts)
    print(baseline.format_table(res))
    return {**res, "decks": args.decks[0], "steps": args.steps, "warmup": args.warmup,
            "rules": dict(args.rule)}


def by_decks(args) -> dict:
    """Several deck counts in one run, interleaved; prints the table, returns the medians."""

    runs = {(d, b): [] for d in args.decks for b in args.sizes}
    for r in range(args.repeats):
        for b in args.sizes:
            for d in args.decks:
                # a hand has ~decks/2 times the decisions of a 2-deck hand: time as many hands
                scale = d / 2
                runs[d, b].append(run(b, round(args.steps * scale), seed=r, rules=rules_for(args, d),
                                      warmup=round(warmup_for(b, args.warmup) * scale)))
    med = {d: {b: {k: float(np.median([x[k] for x in runs[d, b]])) for k in runs[d, b][0]}
               for b in args.sizes} for d in args.decks}
    print(f"{'decks':>5} {'B':>6} {'decisions/s':>14} {'hands/s':>10} {'vs 2 decks':>11}")
    for b in args.sizes:
        for d in args.decks:
            m = med[d][b]
            rel = (f"{m['decisions_per_s'] / med[2][b]['decisions_per_s']:>10.0%}"
                   if 2 in med else "")
            print(f"{d:>5} {b:>6} {m['decisions_per_s']:>14,.0f} {m['hands_per_s']:>10,.1f} {rel:>11}")
    return med


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=_count(1), nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--steps", type=_count(1), default=300, help="timed steps per run")
    ap.add_argument("--repeats", type=_count(1), default=None, help="runs per size (3; 5 with --baseline)")
    ap.add_argument("--decks", type=int, nargs="+", default=[2], choices=(1, 2, 3, 4),
                    help="deck counts (default 2); several: one interleaved table")
    ap.add_argument("--rule", type=rule_option, action="append", default=[], metavar="NAME=VALUE",
                    help="a rules option for every run, e.g. follow_partial_tractor=true (repeatable)")
    ap.add_argument("--warmup", type=_count(0), default=300, help="untimed steps before timing")
    ap.add_argument("--baseline", metavar="REV", help="also time git revision REV, side by side")
    ap.add_argument("--json", metavar="PATH", type=Path, help="also write the JSON to PATH")
    ap.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        return worker(args)
    for decks in args.decks:  # the options together, with each deck count, before any run
        try:
            rules_for(args, decks)
        except (TypeError, ValueError) as err:
            ap.error(f"--rule with --decks {decks}: {err}")
    if args.repeats is None:
        args.repeats = 5 if args.baseline is not None else 3
    if args.baseline is not None:
        out = compare(args)
    else:

        if len(args.decks) == 1:
            rules = rules_for(args, args.decks[0])
            results = {}
            print(f"{'B':>6} {'decisions/s':>14} {'hands/s':>10}")
            for b in args.sizes:
                warm = warmup_for(b, args.warmup)
                runs = [run(b, args.steps, seed=r, rules=rules, warmup=warm)
                        for r in range(args.repeats)]
                med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
                results[b] = med
                print(f"{b:>6} {med['decisions_per_s']:>14,.0f} {med['hands_per_s']:>10,.1f}")
            out = {"engine_random_play": results, "decks": args.decks[0], "rules": dict(args.rule)}
        else:
            out = {"engine_random_play_by_decks": by_decks(args), "decks": args.decks,
                   "rules": dict(args.rule)}
    print(json.dumps(out))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
