"""One exception type for mistakes a user can fix; the CLI prints it as one line."""


class GameGrammarError(Exception):
    """Bad input from the user: a missing corpus, a bad config value, an unknown name."""
