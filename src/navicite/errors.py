"""Typed errors. Each carries the exit code the command line uses for it.

Exit codes: 2 for input the user can fix (bad path, bad query, bad setting),
1 for failures while working (a file that could not be read, a server down).
"""

from __future__ import annotations


class NaviciteError(Exception):
    """Base of navicite's errors; the message says what went wrong and what to do."""

    exit_code = 1


class UserInputError(NaviciteError):
    """Input the user can correct: a path, an id, a query, an option."""

    exit_code = 2


class ConfigError(UserInputError):
    """An invalid setting in the config file, the environment or an override."""


class QuerySyntaxError(UserInputError):
    """A Boolean query that does not parse; ``position`` is the 0-based offset of the problem."""

    def __init__(self, message: str, position: int, query: str = "") -> None:
        self.position = position
        self.query = query
        pointer = ""
        if query and len(query) <= 200:
            pointer = f"\n  {query}\n  {' ' * position}^"
        super().__init__(f"query syntax error at position {position}: {message}{pointer}")


class DocumentNotFound(UserInputError):
    """No document with the given id is in the index."""


class LoaderError(NaviciteError):
    """A file or record that could not be read; names the file and the reason."""


class IndexStoreError(NaviciteError):
    """The index could not be opened or written."""


class DiskFullError(IndexStoreError):
    """A write found no space left on the data directory's file system; what it wrote was removed."""

    def __init__(self, where: str) -> None:
        super().__init__(f"no space left in {where}; free some space there and run the command again")
