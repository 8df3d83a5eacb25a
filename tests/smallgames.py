"""Hand-made small games for deterministic tests (explicit trees, see ``strategies.TreeGame``)."""

from __future__ import annotations

from fractions import Fraction

from tests.strategies import TreeGame


def leaf(u0):
    return ("leaf", (u0, -u0))


def matching_pennies() -> TreeGame:
    """Player 1 does not see player 0's coin. Value 0; each plays heads with probability 1/2."""
    tree = (
        "decision",
        0,
        "I",
        ("H", "T"),
        (
            ("decision", 1, "J", ("H", "T"), (leaf(1), leaf(-1))),
            ("decision", 1, "J", ("H", "T"), (leaf(-1), leaf(1))),
        ),
    )
    return TreeGame(tree, "matching_pennies")


def forgetful() -> TreeGame:
    """Player 0 moves, player 1 moves, then player 0 forgets its first move: imperfect recall."""
    tree = (
        "decision",
        0,
        "first",
        ("a", "b"),
        (
            ("decision", 0, "second", ("c", "d"), (leaf(1), leaf(0))),
            ("decision", 0, "second", ("c", "d"), (leaf(0), leaf(1))),
        ),
    )
    return TreeGame(tree, "forgetful")


def bad_chance() -> TreeGame:
    """A chance node whose probabilities sum to 9/10."""
    tree = (
        "decision",
        0,
        "I",
        ("x", "y"),
        (
            leaf(0),
            ("chance", ("lo", "hi"), (Fraction(1, 2), Fraction(2, 5)), (leaf(1), leaf(-1))),
        ),
    )
    return TreeGame(tree, "bad_chance")


def general_sum() -> TreeGame:
    tree = ("decision", 0, "I", ("x", "y"), (("leaf", (1, 1)), ("leaf", (0, 3))))
    return TreeGame(tree, "general_sum")


def constant_sum() -> TreeGame:
    """u0 + u1 = 3 everywhere: the solver must treat it as zero-sum (value for player 0 is 2)."""
    tree = (
        "chance",
        ("h", "t"),
        (Fraction(1, 3), Fraction(2, 3)),
        (
            ("decision", 0, "I", ("x", "y"), (("leaf", (1, 2)), ("leaf", (2, 1)))),
            ("decision", 0, "I", ("x", "y"), (("leaf", (2, 1)), ("leaf", (2, 1)))),
        ),
    )
    return TreeGame(tree, "constant_sum")
