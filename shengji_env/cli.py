"""What the command-line tools share: an ``argparse`` parser whose errors follow DESIGN.md §7."""

from __future__ import annotations

import argparse


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` with a one-line error (no usage block) and exit status 2: ``PROG: what is
    wrong (see PROG --help)`` on stderr, the message's whitespace folded to single spaces."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {' '.join(str(message).split())} (see {self.prog} --help)\n")
