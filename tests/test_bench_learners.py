"""benchmarks/bench_learners.py: every learner of the table builds from its config and reports
a time breakdown that adds up; the comparison writes one row per learner, opponent and kind."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_learners",
                                               ROOT / "benchmarks" / "bench_learners.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_the_throughput_shares_add_up_for_dmc():
    (row,) = bench.throughput(["dmc"], num_envs=1, updates=1)
    parts = ("engine", "forward", "candidates", "other", "update")
    assert all(row[p] >= 0 for p in parts)
    assert abs(sum(row[p] for p in parts) - 1) < 1e-6
    assert row["candidates"] > 0 and row["rows_per_update"] > 0
    assert row["decisions_per_s"] < row["collected_per_s"]


def test_every_learner_of_the_table_builds_from_its_config():
    for name in bench.LEARNERS:
        learner, _ = bench.build(name, 1)
        assert learner.name == ("dmc" if name == "dmc" else "ppo")
    learner, _ = bench.build("ppo_pi", 1)
    assert learner.critic is not None


def test_the_comparison_table_has_the_last_periodic_and_the_final_row(tmp_path):
    def curve(rate):
        rows = [{"kind": "periodic", "elapsed_s": 60.0 * i, "cpu_s": 50.0 * i, "update": i, "hands": 10 * i,
                 "eval_hands": 200, "win_rate": rate * i, "ci_low": 0.0, "ci_high": 1.0}
                for i in (1, 2)]
        final = {**rows[-1], "kind": "final", "eval_hands": 400}
        return {"curve": rows + [final], "final": final}

    summaries = {name: {"opponents": {"random": curve(0.4), "heuristic": curve(0.2)}}
                 for name in ("ppo", "dmc")}
    bench.write_comparison(summaries, tmp_path / "cmp")
    rows = list(csv.DictReader(open(tmp_path / "cmp.csv")))
    assert len(rows) == 2 * 2 * 2
    dmc = [r for r in rows if r["learner"] == "dmc" and r["opponent"] == "random"]
    assert [r["kind"] for r in dmc] == ["periodic", "final"] and dmc[0]["win_rate"] == "0.8000"
    assert dmc[0]["cpu_min"] == "1.7"
    assert (tmp_path / "cmp.png").stat().st_size > 0
    # --combine: the table from the runs' own summaries, written one process per learner
    for name, summary in summaries.items():
        (tmp_path / f"compare_{name}.json").write_text(json.dumps(summary))
    assert bench.main(["--combine", "--results", str(tmp_path)]) == 0
    combined = list(csv.DictReader(open(tmp_path / "compare_learners.csv")))
    assert {r["learner"] for r in combined} == {"ppo", "dmc"} and len(combined) == 8
