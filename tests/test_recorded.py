"""The engine replays the trajectories recorded from revision ``f438bb7`` bit for bit: every
step's mask, observations, rewards and ``done`` (SHA-256 per step) and every episode's full
decision log. See ``recorded_trajectories.py`` for the specs and how to re-record."""

import gzip
import json

import pytest
from recorded_trajectories import RECORD, SPECS, run

RECORDED = json.loads(gzip.decompress(RECORD.read_bytes()))


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_replays_recorded_trajectory(spec):
    want, got = RECORDED[spec[0]], run(spec)
    for t, (a, b) in enumerate(zip(want["steps"], got["steps"])):
        assert a == b, f"{spec[0]}: step {t} differs (mask, observation, rewards or done)"
    assert len(got["steps"]) == len(want["steps"]), f"{spec[0]}: number of steps differs"
    assert len(got["logs"]) == len(want["logs"])
    for e, (a, b) in enumerate(zip(want["logs"], got["logs"])):
        assert a == b, f"{spec[0]}: decision log of episode {e} differs"
