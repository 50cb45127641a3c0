"""One exception type for mistakes a user can fix; the CLI prints it as one line. And the one for SIGTERM."""


class GameGrammarError(Exception):
    """Bad input from the user: a missing corpus, a bad config value, an unknown name."""


class Terminated(BaseException):
    """SIGTERM, raised where the process was, as Ctrl-C raises KeyboardInterrupt: the same unwinding (atomic writes
    abandoned, pools of workers ended, journals kept) then leaves resumable state, and the CLI exits 143.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` on the way swallows it."""
