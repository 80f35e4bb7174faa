"""``shengji-play``: terminal play with any agent spec (``--partner``, ``--opponents``:
``random``, ``heuristic``, a checkpoint, ``module:attr``, options as ``NAME?KEY=VALUE``;
``agents.specs``).

The table itself is ``shengji_env.play``; this entry point lives in ``agents`` so that the
environment package never imports agents, and hands it the agent resolver.
"""

from __future__ import annotations

from shengji_env import play

from .specs import resolve


def main(argv=None) -> int:
    return play.main(argv, resolve_agent=resolve)


if __name__ == "__main__":
    raise SystemExit(main())
