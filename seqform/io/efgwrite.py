"""Write a game as a Gambit extensive-form file (``.efg``, format version 2), exactly.

``efg_string(tree_or_game)`` returns the file's text and ``write_efg(tree_or_game, path_or_file)``
writes it. A ``Game`` is compiled first (``seqform.model.tree.compile_tree``).

The format (Gambit's "EFG 2", rational variant ``R``)::

    EFG 2 R "title" { "Player 1" "Player 2" }
    "comment"

    c "" 1 "chance 1" { "deal J" 1/3 "deal Q" 1/3 "deal K" 1/3 } 0
    p "" 1 1 "('J', '')" { "Pass" "Bet" } 0
    t "" 1 "z1" { -1, 1 }
    ...

Nodes follow in depth-first preorder, children in action order (the order of ``Tree`` node ids):

* chance node: ``c "name" infoset_no "infoset name" { "label" prob ... } outcome_no``;
* decision node: ``p "name" player_no infoset_no "infoset name" { "action" ... } outcome_no``;
* terminal node: ``t "name" outcome_no "outcome name" { payoff_1, payoff_2 }``.

Conventions of this writer:

* seqform's player ``p`` is Gambit's player ``p + 1`` (named ``"Player 1"``, ``"Player 2"``...);
  a player's information set number is its position among that player's information sets plus
  one (``Tree.infoset_index + 1``, discovery order) and its name is the sanitised
  ``str(infoset_key)``, made unique per player (a duplicate gets a suffix `` #2``, `` #3``...;
  an empty one becomes ``I<number>``);
* every chance node is its own chance information set, numbered ``1, 2, ...`` in preorder and
  named ``chance <number>``; its probabilities are exact rationals (``1/3``, never decimals);
* every terminal has its own outcome, numbered ``1, 2, ...`` in preorder and named ``z<number>``,
  with the players' payoffs as exact rationals (``-1/2``, ``3``); inner nodes carry outcome 0;
* node names are empty;
* labels are printable ASCII without leading, trailing or doubled spaces (Gambit 16 refuses
  those): a double quote becomes ``'``, a backslash ``/`` (Gambit's reader does not round-trip
  backslashes), and any other character outside ``' '..'~'`` becomes ``<U+XXXX>``; action
  labels are made unique within their information set the same way.

Chance probabilities and outcome labels are the tree's own (``Tree.chance_probs``,
``Tree.chance_labels``), exactly as the game gave them, reachable or not.
"""

from __future__ import annotations

import io
import os
from fractions import Fraction
from typing import IO

import flint
import numpy as np

from seqform.model.game import TERMINAL, Game
from seqform.model.tree import Tree, compile_tree

__all__ = ["efg_string", "write_efg", "efg_label", "chance_probabilities"]


def efg_label(text) -> str:
    """``text`` as a label that is safe inside an EFG string: printable ASCII, no quote or
    backslash, no leading, trailing or doubled spaces (Gambit 16's reader refuses those)."""
    s = str(text)
    if not (s.isascii() and s.isprintable() and '"' not in s and "\\" not in s):
        out = []
        for ch in s:
            o = ord(ch)
            if ch == '"':
                out.append("'")
            elif ch == "\\":
                out.append("/")
            elif 0x20 <= o <= 0x7E:
                out.append(ch)
            else:
                out.append(f"<U+{o:04X}>")
        s = "".join(out)
    return " ".join(s.split()) if "  " in s or s[:1] == " " or s[-1:] == " " else s


def unique_labels(labels, empty: str) -> list:
    """Sanitised labels made unique (``" #2"``... suffixes) and non-empty (``empty`` + number)."""
    seen: set = set()
    out = []
    for i, lab in enumerate(labels):
        s = efg_label(lab) or f"{empty}{i + 1}"
        if s in seen:
            k = 2
            while f"{s} #{k}" in seen:
                k += 1
            s = f"{s} #{k}"
        seen.add(s)
        out.append(s)
    return out


def _q(s: str) -> str:
    return f'"{s}"'


def chance_probabilities(tree: Tree) -> dict:
    """Exact probabilities of the outcomes at each chance node: {node id: [Fraction, ...]}."""
    return {int(c): list(pr) for c, pr in zip(tree.chance_nodes.tolist(), tree.chance_probs)}


def _int_str(n: int) -> str:
    # str(int) refuses more than 4,300 digits (CPython's guard); exact products of many chance
    # probabilities can have more, and FLINT prints them without a limit
    try:
        return str(n)
    except ValueError:
        return str(flint.fmpz(n))


def _fmt(x) -> str:
    """An exact rational as Gambit writes it: ``3``, ``-1/2``."""
    x = Fraction(x)
    num = _int_str(x.numerator)
    return num if x.denominator == 1 else f"{num}/{_int_str(x.denominator)}"


def _as_tree(tree_or_game) -> Tree:
    if isinstance(tree_or_game, Tree):
        return tree_or_game
    if isinstance(tree_or_game, Game):
        return compile_tree(tree_or_game)
    raise TypeError(f"expected a seqform Tree or Game, got {type(tree_or_game).__name__}")


def _lines(tree: Tree, title: str | None, comment: str | None):
    N = tree.num_players
    title = efg_label(tree.name if title is None else title)
    players = " ".join(_q(f"Player {p + 1}") for p in range(N))
    if comment is None:
        s = tree.sizes()
        # the name as the title line writes it, so a file read back and written again is the same file
        comment = (
            f"written by seqform from {efg_label(tree.name)}: {s['histories']} nodes, {s['terminals']} terminals, "
            f"information sets {s['infosets']}; player p of seqform is Player p+1"
        )
    yield f"EFG 2 R {_q(title)} {{ {players} }}\n{_q(efg_label(comment))}\n\n"

    # per information set: number, quoted name and the action block, shared by all its nodes
    M = len(tree.infoset_player)
    head = [""] * M
    for p in range(N):
        ids = tree.player_infosets[p].tolist()
        names = unique_labels([tree.infoset_key[i] for i in ids], "I")
        for i, name in zip(ids, names):
            acts = " ".join(_q(a) for a in unique_labels(tree.infoset_actions[i], "a"))
            head[i] = f'p "" {p + 1} {int(tree.infoset_index[i]) + 1} {_q(name)} {{ {acts} }} 0\n'

    chance_at = tree.chance_index

    term_index = np.full(tree.num_nodes, -1, dtype=np.int64)
    term_index[tree.terminals] = np.arange(tree.num_terminals)
    player = tree.player.tolist()
    infoset = tree.infoset.tolist()
    tidx = term_index.tolist()
    pay = tree.payoff_exact
    nchance = 0
    buf = []
    for v in range(tree.num_nodes):
        pl = player[v]
        if pl >= 0:
            buf.append(head[infoset[v]])
        elif pl == TERMINAL:
            k = tidx[v]
            buf.append(f't "" {k + 1} "z{k + 1}" {{ {", ".join(_fmt(u) for u in pay[k])} }}\n')
        else:
            nchance += 1
            pr = tree.chance_probs[chance_at[v]]
            labels = unique_labels(tree.chance_labels[chance_at[v]], "o")
            body = " ".join(f"{_q(lab)} {_fmt(x)}" for lab, x in zip(labels, pr))
            buf.append(f'c "" {nchance} "chance {nchance}" {{ {body} }} 0\n')
        if len(buf) >= 65536:
            yield "".join(buf)
            buf = []
    if buf:
        yield "".join(buf)


def efg_string(tree_or_game, *, title: str | None = None, comment: str | None = None) -> str:
    """The Gambit ``.efg`` (version 2, rational) text of a ``Tree`` or ``Game``."""
    return "".join(_lines(_as_tree(tree_or_game), title, comment))


def write_efg(
    tree_or_game, path_or_file: str | os.PathLike | IO[str], *, title: str | None = None, comment: str | None = None
) -> None:
    """Write a ``Tree`` or ``Game`` as a Gambit ``.efg`` file (format version 2, exact rationals).

    Parameters
    ----------
    tree_or_game : Tree or Game
    path_or_file : str, path or text file
        Where to write.
    title, comment : str, optional
        The file's title (default: the game's name) and comment.

    Raises
    ------
    OSError
        The file cannot be written.

    Examples
    --------
    >>> import io, seqform
    >>> buf = io.StringIO()
    >>> seqform.write_efg(seqform.games.load("kuhn"), buf)
    >>> seqform.compile_tree(seqform.read_efg(io.StringIO(buf.getvalue()))).num_nodes
    58
    """
    tree = _as_tree(tree_or_game)
    if isinstance(path_or_file, (str, os.PathLike)):
        with open(path_or_file, "w", encoding="ascii", newline="\n") as f:
            for chunk in _lines(tree, title, comment):
                f.write(chunk)
    elif isinstance(path_or_file, io.TextIOBase) or hasattr(path_or_file, "write"):
        for chunk in _lines(tree, title, comment):
            path_or_file.write(chunk)
    else:
        raise TypeError(f"expected a path or a writable text file, got {type(path_or_file).__name__}")
