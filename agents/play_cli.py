"""``shengji-play``: terminal play with any agent the evaluator knows (``--partner``,
``--opponents``: ``random``, ``heuristic``, ``module:attr`` or a checkpoint).

The table itself is ``shengji_env.play``; this entry point lives in ``agents`` so that the
environment package never imports agents, and hands it the agent resolver.
"""

from __future__ import annotations

from shengji_env import play

from .evaluate import load_policy


def main(argv=None) -> int:
    return play.main(argv, resolve_agent=load_policy)


if __name__ == "__main__":
    raise SystemExit(main())
