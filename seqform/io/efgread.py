"""Read a game from Gambit's extensive-form file format (``.efg``, format version 2), exactly.

``read_efg(path_or_file)`` and ``parse_efg(text, filename)`` return an ``EfgGame``: a
``seqform.model.game.Game`` (any number of players, general-sum allowed) that holds the file's tree
explicitly, ready for ``seqform.model.tree.compile_tree`` / ``seqform.solve``. The writer is
``seqform.io.efgwrite``; writing, reading and writing again gives the same text.

The format
----------
As documented by Gambit ("Game representation formats", the extensive-form section) and as read
by Gambit's own reader (``src/games/file.cc``)::

    EFG 2 R "title" { "Player 1" "Player 2" }
    "optional comment"

    c "node name" 1 "chance set" { "H" 1/2 "T" 1/2 } 0
    p "" 1 1 "Fred's set" { "Raise" "Fold" } 0
    t "" 1 "Win" { 2, -2 }
    t "" 2 "Lose" { -1 1 }
    p "" 1 1 0
    t "" 3 "Big" { 10, -10 }
    t "" 2

Whitespace (spaces, tabs, line breaks) only separates tokens; it is needed only between two bare
words (a bare word, such as ``p``, ``1`` or ``-1/2``, runs up to whitespace, a brace, a comma or a
quote, so ``p""`` and ``{"a"}`` read as they look). After the header (``EFG``, the
version ``2``, the number type ``R`` (rational) or ``D`` (decimal), the title and the list of
player names, then an optional comment string) come the nodes in depth-first preorder, each
node's children in the order of its actions:

* chance node: ``c "name" SET ["set name" { "outcome" prob "outcome" prob ... }] OUTCOME``;
* personal (decision) node: ``p "name" PLAYER SET ["set name" { "action" "action" ... }] OUTCOME``;
* terminal node: ``t "name" OUTCOME``;

where ``OUTCOME`` is ``NUMBER ["outcome name" { payoff payoff ... }]``.

Conventions of this reader
--------------------------

* **Information sets** are numbered per player (chance is its own "player"). The first node of a
  set must define it (name and actions, for chance also probabilities); later nodes may give the
  number alone, and then the first definition is used. A repeated definition must agree with the
  first (same name, same action labels in the same order, for chance the same probabilities as
  exact values), otherwise ``EfgParseError`` at the offending node. Numbers are any integers
  (Gambit files use 1, 2, ...; their order does not matter).
* **Information-set keys**: a decision node's ``infoset(h)`` is an ``InfosetKey``, a tuple
  ``(player, number)`` (``player`` 0-based as everywhere in seqform, ``number`` as in the file)
  that compares and hashes as that tuple; ``key.label`` is the set's name in the file,
  ``str(key)`` is that name (or ``"infoset N"`` when the name is empty) and ``repr(key)`` says
  which set it is and where it is defined, for error messages. Chance information sets only
  share probabilities: they have no key (seqform has no chance information sets).
* **Players**: file player ``k`` (1-based) is seqform's player ``k - 1``. At least one player.
* **Labels** of players and of the actions of each information set are made unique and non-empty
  the way Gambit does it (an empty label, and every copy of a repeated one, gets ``_1``, ``_2``...
  appended, skipping labels already in use), so ``actions(h)`` are those pygambit shows; the file's
  own labels are in ``raw_actions``/``raw_player_names``. Node names and outcome names are kept as
  they are.
* **Outcomes** are numbered; ``0`` means "no outcome" and cannot be defined. The first use of a
  number must define it (name and payoffs); later uses may give the number alone. A repeated
  definition must agree (same name, the same payoffs as exact values). Payoffs are separated by
  spaces and/or commas (an optional comma after each payoff, as Gambit reads them), exactly one
  per player. Outcomes at non-terminal nodes count too: **a leaf's utility is the sum of the
  outcomes on its path**, root to leaf, the leaf's own included (a node without outcomes adds
  0; a leaf with none gets 0 unless an ancestor has one).
* **Numbers** are read exactly, as ``int`` or ``Fraction``, never through float: integers
  ``-3``, rationals ``-1/2`` (non-zero denominator), decimals ``1.5``, ``.5``, ``-3.``,
  ``2.5e0``, ``1E-3`` (the decimal text's exact value), in the ``R`` and the ``D`` variant alike;
  no leading ``+`` (Gambit refuses it too).
  Because seqform keeps float copies of payoffs and probabilities, a number (and a leaf's summed
  payoff) must lie within the float range (|x| <= 1.797...e308); a part (numerator, denominator,
  digits of a decimal) may have at most 4,000 digits, an exponent at most 10,000 in size, and the
  exact value's denominator at most 4,000 digits (Python converts at most 4,300 digits between
  ``int`` and ``str``), so reading stays fast and every number can be written back.
  Player, information-set and outcome numbers are plain integers.
* **Strings** are double-quoted and may span lines. Inside, ``\\"`` stands for ``"``; every other
  character, backslashes included, stands for itself. As in Gambit's reader, a quote preceded by a
  backslash never ends the string, so a string cannot end with a backslash. (Gambit 16.7 reads a
  run of k > 1 backslashes as 2k - 1 of them, 2k - 2 before a quote; this reader keeps a run as
  written, less the one backslash right before a quote.)
* **Chance probabilities** are checked when the game is compiled (``chance(h)``): they must be
  non-negative and sum to exactly 1, else ``ChanceProbabilityError`` names the node by its line in
  the file and its path of action labels. (Gambit 16.7 refuses such a file while reading it,
  without saying where.) A sum within 1e-6 of 1, which OpenSpiel's reader accepts and rounded
  decimals give (``0.3333333333`` three times), is refused too, the message suggesting exact values.
* After the last node only whitespace may follow (Gambit ignores trailing text; this reader
  refuses it, as it usually means a broken tree).
* Files are decoded as UTF-8 (a byte-order mark is dropped), or, if they are not UTF-8, as
  Latin-1: one character a byte, so every file reads, every label can be printed and written
  back, and a column counts bytes there (characters in a UTF-8 file). Lines end at ``\\n``,
  ``\\r\\n`` or a lone ``\\r``, as in Python's universal newlines.
  Messages quote the file's text escaped as ``repr`` would (control characters, NUL, line breaks,
  lone surrogates; in a file that is not UTF-8, every non-ASCII byte as ``\\xNN``, as ``repr``
  shows bytes), and so does every later message that names a label or the file (chance
  probabilities, ``repr(InfosetKey)``), so each stays one line.
* **Names may be left out** before ``{`` (as OpenSpiel's reader allows and its files do):
  an information set without a name (``p "" 1 1 { "a" "b" } 0``, chance ones too) is named "",
  its number being its identity; an outcome without one (``t "" 3 { 1, -1 }``) is named "".
  ``docs/efg-format.md`` lists what this reader accepts beyond Gambit's own rules and what it
  refuses.

Errors in the text raise ``EfgParseError`` (a ``seqform.errors.GameError``) with the message
``FILE:LINE:COL: expected X, found Y`` (lines and columns from 1, columns in characters) and the
attributes ``filename``, ``line``, ``column``, ``expected`` and ``found``. Imperfect recall is
reported by ``compile_tree`` (``ImperfectRecallError``), naming the information set (with its
line) and two paths of action labels. The reader is iterative (no recursion), linear in the
file's size, and keeps the tree in flat arrays (one entry per node, no per-node objects).
"""

from __future__ import annotations

import os
import re
import sys
from array import array
from collections.abc import Sequence
from fractions import Fraction
from operator import itemgetter
from typing import IO, NoReturn

import numpy as np

from seqform.errors import ChanceProbabilityError, EfgParseError, GameError
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.limits import check_efg, memory_limit

__all__ = ["EfgGame", "EfgParseError", "InfosetKey", "parse_efg", "read_efg", "normalize_labels"]

#: most digits in one part of a number, and in the numerator and the denominator of its exact value
#: (below CPython's default limit of 4,300 digits for converting between int and str)
MAX_DIGITS = 4000
_MAX_BITS = 13_287  # 2**13287 < 10**4000
#: largest exponent of a decimal number, in absolute value
MAX_EXPONENT = 10_000
_FLOAT_MAX = int(sys.float_info.max)  # exact integer value of the largest float
#: chance probabilities whose sum is this close to 1 (but not 1) look rounded: OpenSpiel's reader
#: accepts a sum within 1e-6 of 1 (its FloatingPointDefaultTolerance)
_ROUNDED_SUM = Fraction(1, 10**6)


class InfosetKey(tuple):
    """Key of a decision node's information set: the tuple ``(player, number)``.

    ``player`` is seqform's 0-based player, ``number`` the set's number in the file. It compares
    and hashes as the plain tuple. ``label`` is the set's name in the file, ``where`` the
    ``FILE:LINE`` of its first node, ``player_name`` the player's name. ``str(key)`` is the name
    (``"infoset N"`` when empty; the ``.efg`` writer uses it), ``repr(key)`` a description for
    error messages.
    """

    label: str
    player_name: str
    where: str
    raw: bool

    def __new__(
        cls, player: int, number: int, label: str = "", player_name: str = "", where: str = "", raw: bool = False
    ):
        self = tuple.__new__(cls, (player, number))
        self.label = label
        self.player_name = player_name
        self.where = where
        self.raw = raw  # read from a file that is not UTF-8 (see _short)
        return self

    @property
    def player(self) -> int:
        return self[0]

    @property
    def number(self) -> int:
        return self[1]

    def __str__(self) -> str:
        return self.label if self.label else f"infoset {self[1]}"

    def __repr__(self) -> str:
        # the parts from the file are escaped: this text ends up in one-line error messages
        where = f", defined at {_printable(self.where)}" if self.where else ""
        return (
            f'{self[1]} "{_short(self.label, 0, self.raw)}" (player {self[0] + 1} '
            f'"{_short(self.player_name, 0, self.raw)}" in the file{where})'
        )

    def __reduce__(self):
        return (InfosetKey, (self[0], self[1], self.label, self.player_name, self.where, self.raw))


def normalize_labels(labels: Sequence[str]) -> tuple:
    """Labels made unique and non-empty as Gambit's reader does it (``NormalizeLabels``).

    A label that occurs once and is not empty stays; an empty one and every copy of a repeated one
    get ``_1``, ``_2``, ... appended (counting per label, skipping labels already in use):
    ``("x", "x", "x_1", "")`` becomes ``("x_2", "x_3", "x_1", "_1")``.
    """
    labels = tuple(labels)
    if "" not in labels and len(set(labels)) == len(labels):
        return labels
    counts: dict = {}
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    used = set(labels)
    visited: dict = {}
    out = []
    for lab in labels:
        if counts[lab] == 1 and lab != "":
            out.append(lab)
            continue
        while True:
            k = visited.get(lab, 0) + 1
            visited[lab] = k
            cand = f"{lab}_{k}"
            if cand not in used:
                break
        used.add(cand)
        out.append(cand)
    return tuple(out)


# ----------------------------------------------------------------------------------------------
# the game
# ----------------------------------------------------------------------------------------------


class EfgGame(Game):
    """A game read from a Gambit ``.efg`` file: the explicit tree behind the ``Game`` interface.

    States are node indices ``0 .. num_nodes-1`` in the file's (depth-first pre-) order; node 0 is
    the root. Per node the tree is kept in flat integer arrays; information sets, chance
    probabilities, outcomes and the (interned) leaf payoffs in small tables.

    Attributes: ``name`` (the title), ``title``, ``comment``, ``number_type`` (``"R"`` or
    ``"D"``), ``filename``, ``num_players``, ``player_names`` / ``raw_player_names``,
    ``outcomes`` ({number: (name, payoffs)}). Queries besides the ``Game`` ones: ``line(h)``,
    ``node_name(h)``, ``outcome(h)`` (number, 0 for none), ``parent(h)``, ``children(h)``,
    ``path(h)`` (action labels from the root), ``raw_actions(h)``, ``infoset_number(h)`` (also
    for chance nodes), ``sizes()``.
    """

    def __init__(self) -> None:  # filled by the parser
        self.name = ""
        self.title = ""
        self.comment = ""
        self.number_type = "R"
        self.filename = "<string>"
        self._raw = False  # the file was not UTF-8 and was read as Latin-1 (see _short)
        self.num_players = 0
        self.player_names: tuple = ()
        self.raw_player_names: tuple = ()
        self.outcomes: dict = {}
        self._kind = array("i")  # player 0..N-1, CHANCE or TERMINAL
        self._data = array("i")  # move id (c, p) or payoff id (t)
        self._first = array("q")  # first slot of the children in _children; -1 at a leaf
        self._parent = array("i")
        self._line = array("i")
        self._outcome = array("q")  # outcome number at the node, 0 for none
        self._children = array("q")
        self._names: dict = {}  # node -> its name, where not empty
        # moves (information sets and chance sets): per move id
        self._m_owner: list = []  # player 0..N-1 or CHANCE
        self._m_number: list = []
        self._m_label: list = []
        self._m_actions: list = []  # normalised labels
        self._m_raw: list = []  # labels as in the file
        self._m_probs: list = []  # exact probabilities (chance) or None
        self._m_key: list = []  # InfosetKey (decision) or None
        self._m_line: list = []
        self._payoffs: list = []  # interned leaf payoff tuples

    # --- the Game interface -----------------------------------------------------------------

    def root(self) -> int:
        return 0

    def player(self, h: int) -> int:
        return self._kind[h]

    def infoset(self, h: int) -> InfosetKey:
        key = self._m_key[self._data[h]] if self._kind[h] >= 0 else None
        if key is None:
            raise GameError(f"{self.describe(h)} is not a decision node")
        return key

    def actions(self, h: int) -> tuple:
        if self._kind[h] == TERMINAL:
            return ()
        return self._m_actions[self._data[h]]

    def next(self, h: int, a: int) -> int:
        first = self._first[h]
        if first < 0 or not 0 <= a < len(self._m_actions[self._data[h]]):
            raise GameError(f"{self.describe(h)} has no action number {a}")
        return self._children[first + a]

    def chance(self, h: int) -> tuple:
        """Exact probabilities at chance node ``h``; ``ChanceProbabilityError`` (naming the node's
        line and path) if one is negative or they do not sum to exactly 1."""
        if self._kind[h] != CHANCE:
            raise GameError(f"{self.describe(h)} is not a chance node")
        m = self._data[h]
        probs = self._m_probs[m]
        if probs is None:  # pragma: no cover
            raise GameError(f"{self.describe(h)} is not a chance node")
        total = sum(probs)
        if total != 1 or any(p < 0 for p in probs):
            raw = self._raw
            shown = ", ".join(f'"{_short(lab, 40, raw)}" {_fmt(p)}' for lab, p in zip(self._m_actions[m], probs))
            what = (
                f"a negative probability ({_fmt(min(probs))})"
                if any(p < 0 for p in probs)
                else f"probabilities that sum to {_fmt(total)}, not exactly 1"
            )
            if total != 1 and abs(total - 1) <= _ROUNDED_SUM:
                # what a writer that prints probabilities as rounded decimals produces (OpenSpiel's
                # EFGWriter prints 10 significant digits, and its reader allows such a sum)
                what += " (rounded decimals? write exact values, such as 1/3 for 0.3333333333)"
            path = "/".join(_short(a, 40, raw) for a in self.path(h)) or "(root)"
            raise ChanceProbabilityError(
                f"chance node at {self._where(h)} (path {path}, chance information set "
                f"{self._m_number[m]}, defined at {self._where_line(self._m_line[m])}) of {self.name!r} has "
                f"{what}: {{ {shown} }}"
            )
        return probs

    def utility(self, h: int) -> tuple:
        if self._kind[h] != TERMINAL:
            raise GameError(f"{self.describe(h)} is not a leaf")
        return self._payoffs[self._data[h]]

    def describe(self, h: int) -> str:
        """``node at FILE:LINE``."""
        return f"node at {self._where(h)}"

    # --- more about nodes -------------------------------------------------------------------

    @property
    def num_nodes(self) -> int:
        return len(self._kind)

    def _where(self, h: int) -> str:
        return self._where_line(self._line[h])

    def _where_line(self, line: int) -> str:
        return f"{_printable(self.filename)}:{line}"

    def line(self, h: int) -> int:
        """Line of node ``h`` in the file (its ``c``/``p``/``t`` letter)."""
        return self._line[h]

    def node_name(self, h: int) -> str:
        return self._names.get(h, "")

    def outcome(self, h: int) -> int:
        """The outcome number at node ``h`` (0: none)."""
        return self._outcome[h]

    def parent(self, h: int) -> int:
        """The parent node (-1 at the root)."""
        return self._parent[h]

    def children(self, h: int) -> tuple:
        first = self._first[h]
        if first < 0:
            return ()
        return tuple(self._children[first : first + len(self._m_actions[self._data[h]])])

    def raw_actions(self, h: int) -> tuple:
        """Action labels at ``h`` as written in the file (before normalisation)."""
        return () if self._kind[h] == TERMINAL else self._m_raw[self._data[h]]

    def infoset_number(self, h: int) -> int | None:
        """The information-set number of a decision or chance node in the file (None at a leaf)."""
        return None if self._kind[h] == TERMINAL else self._m_number[self._data[h]]

    def infoset_label(self, h: int) -> str | None:
        return None if self._kind[h] == TERMINAL else self._m_label[self._data[h]]

    def path(self, h: int) -> list:
        """Action labels from the root to ``h``."""
        out = []
        while h > 0:
            p = self._parent[h]
            out.append(self._label_of_child(p, h))
            h = p
        out.reverse()
        return out

    def _label_of_child(self, p: int, h: int) -> str:
        first = self._first[p]
        k = len(self._m_actions[self._data[p]])
        for a in range(k):
            if self._children[first + a] == h:
                return self._m_actions[self._data[p]][a]
        raise AssertionError("node not among its parent's children")  # pragma: no cover

    def sizes(self) -> dict:
        """Nodes, terminals, chance nodes and information sets per player (as Gambit counts them)."""
        per = [0] * self.num_players
        for owner in self._m_owner:
            if owner >= 0:
                per[owner] += 1
        kinds = self._kind
        return {
            "nodes": len(kinds),
            "terminals": kinds.count(TERMINAL),
            "chance_nodes": kinds.count(CHANCE),
            "infosets": per,
            "chance_infosets": self._m_owner.count(CHANCE),
        }


def _fmt(x, limit: int = 40) -> str:
    """An exact number as text (``3``, ``-1/2``), for messages; approximately (``~1.5e-5000``) if
    that would be longer than ``limit`` characters."""
    x = Fraction(x)
    n, d = x.numerator, x.denominator
    if n.bit_length() <= 4 * limit and d.bit_length() <= 4 * limit:
        text = str(n) if d == 1 else f"{n}/{d}"
        if len(text) <= limit:
            return text
    if n == 0:
        return "0"
    sign = "-" if n < 0 else ""
    n = abs(n)
    e10 = int((n.bit_length() - d.bit_length()) * 0.30102999566398120)  # about log10(|x|)
    scaled = Fraction(n, d) / 10**e10 if e10 >= 0 else Fraction(n, d) * 10**-e10
    while scaled < 1:
        scaled, e10 = scaled * 10, e10 - 1
    while scaled >= 10:
        scaled, e10 = scaled / 10, e10 + 1
    return f"~{sign}{float(scaled):.6g}e{e10:+d}"


# ----------------------------------------------------------------------------------------------
# the reader
# ----------------------------------------------------------------------------------------------

_EOF, _STR, _WORD = "end of file", "string", "word"  # other token kinds: "{", "}", ","
# white space, then one token: punctuation, a string (closed by the first '"' not after a
# backslash), a word, an unclosed '"', or the end of the text
_TOKEN_RE = re.compile(
    r'([ \t\n\r\f\v]*)(?:([{},])|(")((?:[^"]|(?<=\\)")*)(?<!\\)"|([^ \t\n\r\f\v{},"]+)|("[\s\S]*)|\Z)'
)
_INT_RE = re.compile(r"-?[0-9]+\Z")
_RAT_RE = re.compile(r"(-?)([0-9]+)/([0-9]+)\Z")
_DEC_RE = re.compile(r"(-?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))(?:[eE]([+-]?[0-9]+))?\Z")
_NUMBER_HINT = "such as 3, -1/2, 1.5 or 2.5e-1"


def _short(s: str, limit: int = 40, raw: bool = False) -> str:
    """``s`` for a one-line message: control characters, NUL, line breaks, lone surrogates and
    other unprintable characters escaped as ``repr`` escapes them (``\\x00``, ``\\n``, ``\\x1b``,
    ``\\udcff``); with ``raw`` (a file that was not UTF-8, read as Latin-1 so that each character is
    one byte of it), every non-ASCII byte as ``\\xNN``, as ``repr`` shows bytes. Cut to ``limit``
    characters (``0``: not cut)."""
    s = repr(s.encode("latin-1", "replace"))[2:-1] if raw else repr(s)[1:-1]
    return s if not limit or len(s) <= limit else s[: limit - 3] + "..."


def _printable(s: str) -> str:
    """A file name for a message, escaped if it has anything a terminal line should not hold."""
    return s if s.isprintable() else repr(s)[1:-1]


class _Parser:
    """The grammar, iteratively, over tokens cut from the whole text by one regular expression.

    Positions are not tracked per token: a token's offset is the running sum of the lengths
    ``findall`` returns, and offsets become lines and columns only where a message or a node's
    line needs them (``_line_col``, and ``numpy.searchsorted`` for all nodes at once): a 6 MB
    file has two million tokens, and per-token bookkeeping was most of the reading time.
    """

    def __init__(self, text: str, filename: str, raw: bool = False):
        self.raw = raw  # the text is a non-UTF-8 file read as Latin-1 (see _short)
        self.text = text
        self.filename = filename
        toks = _TOKEN_RE.findall(text)
        # kinds and values, one list each; the token after the last is the end of the file
        self.kinds = [p or (_STR if q else (_WORD if w else ('"' if bad else _EOF))) for _, p, q, _, w, bad in toks]
        self.vals = [p or w or (body.replace('\\"', '"') if "\\" in body else body) for _, p, _, body, w, _ in toks]
        self._toks = toks
        self._offsets: np.ndarray | None = None  # token start offsets, computed on first need
        self._breaks: np.ndarray | None = None  # line-break offsets, computed on first need
        self.i = -1
        self.kind = _EOF
        self.val = ""

    # --- tokens -----------------------------------------------------------------------------

    def advance(self) -> None:
        i = self.i + 1
        if i == len(self.kinds):  # past the end stays at the end
            i -= 1
        self.i = i
        self.kind = self.kinds[i]
        self.val = self.vals[i]
        if self.kind == '"':
            self.fail("a closing '\"' for the string that starts here", found="end of file")

    def offsets(self) -> np.ndarray:
        """Each token's start offset in the text (after its leading white space)."""
        if self._offsets is None:
            toks, n = self._toks, len(self._toks)
            # C-level maps only: a generator per token doubled the reading time
            whole = np.fromiter(map(len, map("".join, toks)), dtype=np.int64, count=n)
            ws = np.fromiter(map(len, map(itemgetter(0), toks)), dtype=np.int64, count=n)
            quote = np.fromiter(map(len, map(itemgetter(2), toks)), dtype=np.int64, count=n)
            ends = np.cumsum(whole + quote)  # a string's closing quote is in no group
            self._offsets = ends - whole - quote + ws
        return self._offsets

    def breaks(self) -> np.ndarray:
        """Offsets of the line breaks: ``\\n``, ``\\r\\n`` (at its ``\\n``) and a lone ``\\r`` (old
        Mac files), as editors and Python's universal newlines count them."""
        if self._breaks is None:
            # (surrogatepass: a str may hold lone surrogates; each stays one code unit)
            codes = np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            lone_cr = (codes == 13) & np.append(codes[1:] != 10, True)
            self._breaks = np.flatnonzero((codes == 10) | lone_cr)
        return self._breaks

    def lines_of(self, offsets) -> np.ndarray:
        """1-based line numbers of text offsets."""
        return np.searchsorted(self.breaks(), offsets, side="right") + 1

    def _line_col(self, offset: int) -> tuple:
        k = int(np.searchsorted(self.breaks(), offset, side="right"))
        start = int(self.breaks()[k - 1]) + 1 if k else 0
        return k + 1, offset - start + 1

    def here(self) -> int:
        """The current token's index (its position is computed only if a message needs it)."""
        return self.i

    def line_of_token(self, i: int) -> int:
        return self._line_col(int(self.offsets()[i]))[0]

    def _q(self, s: str, limit: int = 40) -> str:
        """Text from the file, escaped for a one-line message (see ``_short``)."""
        return _short(s, limit, self.raw)

    def found(self) -> str:
        if self.kind == _EOF:
            return "end of file"
        if self.kind == _STR:
            return f'string "{self._q(self.val)}"'
        return f"'{self._q(self.val)}'"

    def fail(self, expected: str, found: str | None = None, at: int | None = None) -> NoReturn:
        """Raise EfgParseError at the current token (or at token index ``at``)."""
        i = self.i if at is None else at
        offs = self.offsets()
        offset = int(offs[i]) if i < len(offs) else len(self.text)
        line, col = self._line_col(offset)
        raise EfgParseError(self.filename, line, col, expected, self.found() if found is None else found)

    def expect(self, kind: str, expected: str) -> str:
        self.advance()
        if self.kind != kind:
            self.fail(expected)
        return self.val

    # --- numbers ----------------------------------------------------------------------------

    def integer(self, what: str) -> int:
        """The current token as a plain integer."""
        if self.kind != _WORD or not _INT_RE.match(self.val) or len(self.val) > MAX_DIGITS:
            self.fail(what)
        return int(self.val)

    def number(self, what: str) -> int | Fraction:
        """The current token as an exact number (int or Fraction)."""
        if self.kind != _WORD:
            self.fail(f"{what} (a number {_NUMBER_HINT})")
        s = self.val
        if len(s) <= 300 and s.isascii() and (s.isdigit() or (s[0] == "-" and s[1:].isdigit())):
            return int(s)  # the common case (below 1e300: within the float range), without regexes
        m = _RAT_RE.match(s)
        if m:
            sign, num, den = m.groups()
            num, den = num.lstrip("0") or "0", den.lstrip("0") or "0"
            if len(num) > MAX_DIGITS or len(den) > MAX_DIGITS:
                self.fail(f"{what} with at most {MAX_DIGITS} digits in numerator and denominator")
            if den == "0":
                self.fail(f"{what} (a rational with a non-zero denominator)")
            x: int | Fraction = Fraction(int(num), int(den))
            if sign:
                x = -x
        else:
            m = _DEC_RE.match(s)
            if not m:
                self.fail(f"{what} (a number {_NUMBER_HINT})")
            sign, ipart, fpart, fonly, exp = m.groups()
            if fonly is not None:
                ipart, fpart = "", fonly
            fpart = fpart or ""
            digits = (ipart + fpart).lstrip("0") or "0"
            if len(digits) > MAX_DIGITS:
                self.fail(f"{what} with at most {MAX_DIGITS} significant digits")
            e = 0
            if exp is not None:
                es = exp.lstrip("+-").lstrip("0") or "0"
                if len(es) > 6 or int(es) > MAX_EXPONENT:
                    self.fail(f"{what} with an exponent of at most {MAX_EXPONENT} in size")
                e = -int(es) if exp.startswith("-") else int(es)
            e -= len(fpart)
            mant = int(digits)
            if sign:
                mant = -mant
            x = mant * 10**e if e >= 0 else Fraction(mant, 10**-e)
        if not -_FLOAT_MAX <= x <= _FLOAT_MAX:
            self.fail(f"{what} within the float range (at most about 1.8e308 in size)")
        if type(x) is Fraction and x.denominator.bit_length() > _MAX_BITS:
            self.fail(f"{what} whose exact value has at most {MAX_DIGITS} digits in its denominator")
        if type(x) is Fraction and x.denominator == 1:
            x = x.numerator
        return x

    # --- the file ---------------------------------------------------------------------------

    def parse(self) -> EfgGame:
        g = EfgGame()
        g.filename = self.filename
        g._raw = self.raw
        self.advance()
        if self.kind != _WORD or self.val != "EFG":
            self.fail("'EFG' (the start of a Gambit extensive-form file)")
        self.advance()
        if self.kind != _WORD or self.val != "2":
            self.fail("the format version '2'")
        self.advance()
        if self.kind != _WORD or self.val not in ("R", "D"):
            self.fail("the number type 'R' or 'D'")
        g.number_type = self.val
        g.title = g.name = self.expect(_STR, "the game's title (a string)")
        self.expect("{", "'{' opening the list of player names")
        names = []
        self.advance()
        while self.kind == _STR:
            names.append(self.val)
            self.advance()
        if self.kind != "}":
            self.fail("a player name (a string) or '}'")
        if not names:
            self.fail("at least one player name (a string)")
        g.raw_player_names = tuple(names)
        g.player_names = normalize_labels(names)
        g.num_players = len(names)
        self.advance()
        if self.kind == _STR:
            g.comment = self.val
            self.advance()
        self.nodes(g)
        return g

    def nodes(self, g: EfgGame) -> None:
        """The nodes, in preorder, without recursion: a stack of nodes still awaiting children."""
        N = g.num_players
        kind_a, data_a, first_a, parent_a = g._kind, g._data, g._first, g._parent
        outcome_a, children = g._outcome, g._children
        node_tok: list = []  # each node's token index, for its line
        moves: dict = {}  # (owner, number) -> move id
        outcomes: dict = {}  # number -> (label, payoffs, line)
        payoff_ids: dict = {}
        zero = (0,) * N
        # stack entries: [node, next child slot, end slot, payoff sum above and at the node]
        stack: list = []
        while True:
            if self.kind != _WORD or self.val not in ("c", "p", "t"):
                self.fail("a node ('c', 'p' or 't')")
            t = self.val
            nid = len(kind_a)
            node_at = self.here()
            node_tok.append(node_at)
            name = self.expect(_STR, "the node's name (a string)")
            if name:
                g._names[nid] = name
            if stack:
                top = stack[-1]
                parent = top[0]
                children[top[1]] = nid
                top[1] += 1
                acc = top[3]
                if top[1] == top[2]:
                    stack.pop()
            else:
                parent, acc = -1, zero
            parent_a.append(parent)
            if t == "t":
                kind_a.append(TERMINAL)
                first_a.append(-1)
                self.advance()
                num, pay = self.outcome(outcomes, N)
                outcome_a.append(num)
                if pay is not None:
                    acc = tuple(a + b for a, b in zip(acc, pay))
                    if any(abs(x) > _FLOAT_MAX for x in acc):
                        self.fail(
                            "payoffs whose sums along the path stay within the float range "
                            "(at most about 1.8e308 in size)",
                            found="a larger sum at this leaf",
                            at=node_at,
                        )
                pid = payoff_ids.get(acc)
                if pid is None:
                    pid = payoff_ids[acc] = len(g._payoffs)
                    g._payoffs.append(acc)
                data_a.append(pid)
                if not stack:
                    break
                continue
            if t == "c":
                owner = CHANCE
                self.advance()
                number = self.integer("the chance information set's number (an integer)")
            else:
                self.advance()
                if (
                    self.kind != _WORD
                    or not _INT_RE.match(self.val)
                    or len(self.val) > 18
                    or not 1 <= int(self.val) <= N
                ):
                    self.fail(f"a player number 1..{N}")
                owner = int(self.val) - 1
                self.advance()
                number = self.integer("the information set's number (an integer)")
            mid = moves.get((owner, number))
            self.advance()
            if self.kind == _STR or self.kind == "{":
                mid = self.move(g, moves, owner, number, mid, node_at)
            elif mid is None:
                who = "chance" if owner == CHANCE else f"player {owner + 1}"
                self.fail(f"the name and actions of {who}'s information set {number} (its first node must define it)")
            kind_a.append(owner)
            data_a.append(mid)
            num, pay = self.outcome(outcomes, N)
            outcome_a.append(num)
            if pay is not None:
                acc = tuple(a + b for a, b in zip(acc, pay))
            k = len(g._m_actions[mid])
            slot = len(children)
            first_a.append(slot)
            children.extend([-1] * k)
            stack.append([nid, slot, slot + k, acc])
        if self.kind != _EOF:
            self.fail(
                f"the end of the file (the tree is complete after the node at line {self.line_of_token(node_tok[-1])})"
            )
        g.outcomes = {num: (lab, pay) for num, (lab, pay, _) in outcomes.items()}
        lines = self.lines_of(self.offsets()[np.asarray(node_tok, dtype=np.int64)])
        g._line = array("i", lines.astype(np.int32).tobytes())
        g._m_line = self.lines_of(self.offsets()[np.asarray(g._m_line, dtype=np.int64)]).tolist()
        for mid, owner in enumerate(g._m_owner):
            if owner != CHANCE:
                g._m_key[mid] = InfosetKey(
                    owner,
                    g._m_number[mid],
                    g._m_label[mid],
                    g.raw_player_names[owner],
                    f"{self.filename}:{g._m_line[mid]}",
                    self.raw,
                )

    def move(self, g: EfgGame, moves: dict, owner: int, number: int, mid: int | None, node_at: int) -> int:
        """An information set's definition (current token: its name, or the '{' of its actions
        when it has no name): a new set, or a repetition that must agree with the first definition."""
        label, label_at = self.val, self.here()
        if self.kind == "{":
            # no name: OpenSpiel writes such sets (its guess_the_ace.efg) and reads them; the
            # set's number is its identity anyway
            label = ""
        else:
            self.expect("{", "'{' opening the list of actions")
        brace_at = self.here()
        labels: list = []
        probs: list = []
        self.advance()
        while True:
            if self.kind == "}" and labels:
                break
            if self.kind != _STR:
                self.fail("an action label (a string)" + (" or '}'" if labels else ""))
            labels.append(self.val)
            self.advance()
            if owner == CHANCE:
                probs.append(self.number(f'the probability of chance outcome "{self._q(labels[-1])}"'))
                self.advance()
        who = "chance" if owner == CHANCE else f"player {owner + 1}"
        if mid is None:
            mid = len(g._m_owner)
            moves[(owner, number)] = mid
            g._m_owner.append(owner)
            g._m_number.append(number)
            g._m_label.append(label)
            g._m_raw.append(tuple(labels))
            g._m_actions.append(normalize_labels(labels))
            g._m_probs.append(tuple(probs) if owner == CHANCE else None)
            g._m_line.append(node_at)  # a token index until the end of the file
            g._m_key.append(None)  # made at the end of the file, when lines are known
        else:
            first = f"{who}'s information set {number} as defined at line {self.line_of_token(g._m_line[mid])}"
            if label != g._m_label[mid]:
                self.fail(f'the name "{self._q(g._m_label[mid])}" of {first}', found=f'"{self._q(label)}"', at=label_at)
            if tuple(labels) != g._m_raw[mid] or (owner == CHANCE and tuple(probs) != g._m_probs[mid]):
                self.fail(
                    f"the actions {self._show(g._m_raw[mid], g._m_probs[mid])} of {first}",
                    found=self._show(labels, probs if owner == CHANCE else None),
                    at=brace_at,
                )
        self.advance()
        return mid

    def _show(self, labels: Sequence[str], probs: Sequence | None) -> str:
        if probs is None:
            body = " ".join(f'"{self._q(x, 20)}"' for x in labels[:8])
        else:
            body = " ".join(f'"{self._q(x, 20)}" {_fmt(p)}' for x, p in zip(labels[:8], probs))
        return "{ " + body + (" ..." if len(labels) > 8 else "") + " }"

    def outcome(self, outcomes: dict, N: int) -> tuple:
        """``NUMBER ["name" { payoffs }]``, from the current token (the number) on: (number,
        payoffs or None). Leaves the token after the outcome as the current one."""
        num = self.integer("an outcome number (an integer; 0 for none)")
        if num >= 1 << 63:  # kept per node in a 64-bit array
            self.fail("an outcome number below 2^63")
        self.advance()
        if self.kind != _STR and self.kind != "{":
            if num == 0:
                return 0, None
            rec = outcomes.get(num)
            if rec is None:
                self.fail(f"the name and payoffs of outcome {num} (its first use must define it)")
            return num, rec[1]
        if num == 0:
            self.fail("no outcome definition after outcome number 0 (which means no outcome)")
        label, label_at = self.val, self.here()
        if self.kind == "{":
            # no name: OpenSpiel's reader allows it (and Gambit's does not); the number is the
            # outcome's identity anyway
            label = ""
        else:
            self.expect("{", f"'{{' opening the payoffs of outcome {num}")
        pay_list = []
        self.advance()
        for i in range(N):
            pay_list.append(self.number(f"payoff {i + 1} of {N}"))
            self.advance()
            if self.kind == ",":
                self.advance()
        if self.kind != "}":
            self.fail(f"'}}' after the {N} payoff{'s' if N != 1 else ''} of outcome {num}")
        pay = tuple(pay_list)
        rec = outcomes.get(num)
        if rec is None:
            outcomes[num] = (label, pay, label_at)
        else:
            where = f"outcome {num} as defined at line {self.line_of_token(rec[2])}"
            if label != rec[0]:
                self.fail(f'the name "{self._q(rec[0])}" of {where}', found=f'"{self._q(label)}"', at=label_at)
            if pay != rec[1]:
                self.fail(
                    f"the payoffs {{ {' '.join(_fmt(x) for x in rec[1])} }} of {where}",
                    found=f"{{ {' '.join(_fmt(x) for x in pay)} }}",
                    at=label_at,
                )
        self.advance()
        return num, pay


def parse_efg(text: str | bytes | bytearray, filename: str = "<string>") -> EfgGame:
    """Read the text of a Gambit ``.efg`` file (format version 2, ``R`` or ``D``).

    ``filename`` is used in messages (``FILE:LINE:COL: expected X, found Y``) and by
    ``EfgGame.describe``. Raises ``EfgParseError`` for text that is not a valid file.
    """
    raw = False
    if isinstance(text, (bytes, bytearray)):
        text, raw = _decode(bytes(text))
    if not isinstance(text, str):
        raise TypeError(f"parse_efg expects the file's text (str), got {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return _Parser(text, str(filename), raw).parse()


def _decode(data: bytes) -> tuple[str, bool]:
    """The file's text (without a UTF-8 byte-order mark), and whether it was not UTF-8 (then read
    as Latin-1: one character a byte, so lines and columns still count bytes, and messages show
    those bytes as ``\\xNN``)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("latin-1"), True


# byte classes of the lexer (``_TOKEN_RE``): a word's byte, white space, punctuation, a quote
_WORD_BYTE, _SPACE_BYTE, _PUNCT_BYTE, _QUOTE_BYTE = 0, 1, 2, 3
_BYTE_CLASS = np.zeros(256, dtype=np.uint8)
_BYTE_CLASS[list(b" \t\n\r\f\v")] = _SPACE_BYTE
_BYTE_CLASS[list(b"{},")] = _PUNCT_BYTE
_BYTE_CLASS[ord('"')] = _QUOTE_BYTE
_CHUNK = 1 << 22


def token_bound(source: bytes | IO[bytes]) -> int:
    """An upper bound on the number of tokens the reader cuts the file's text into, counted over
    its bytes in chunks of 4 MiB (memory: a few times that), without tokenizing.

    Every token but the end of the file is a punctuation byte, a string (at least two quotes, or an
    unclosed one at the end) or a word (a run of word bytes after a byte that is not one). When no
    quote follows a backslash, quotes alternate between opening and closing a string, so bytes
    inside strings are left out of the punctuation and word counts (the count is then the exact
    number of tokens); otherwise the counts over the whole text, strings' insides
    included, bound the tokens from above. ``source``: the file's bytes, or a binary file read to
    its end."""
    punct = quotes = words = escaped = 0  # outside strings
    punct_all = words_all = 0  # strings' insides included
    prev_word = prev_word_out = prev_backslash = False
    parity = 0
    view = memoryview(source) if isinstance(source, (bytes, bytearray)) else None
    at = 0
    while True:
        buf: bytes | memoryview
        if view is not None:
            buf = view[at : at + _CHUNK]
            at += _CHUNK
        else:
            buf = source.read(_CHUNK)  # type: ignore[union-attr]
        if not len(buf):
            break
        byte = np.frombuffer(buf, dtype=np.uint8)
        cls = _BYTE_CLASS[byte]
        quote = cls == _QUOTE_BYTE
        backslash = byte == 92
        escaped += int(np.count_nonzero(quote[1:] & backslash[:-1])) + int(bool(quote[0]) and prev_backslash)
        # inside a string (its opening quote included): an odd number of quotes so far
        inside = np.bitwise_xor.accumulate(quote.view(np.uint8)) ^ parity
        out = inside == 0
        word = cls == _WORD_BYTE
        word_out = word & out
        is_punct = cls == _PUNCT_BYTE
        punct_all += int(np.count_nonzero(is_punct))
        punct += int(np.count_nonzero(is_punct & out))
        quotes += int(np.count_nonzero(quote))
        words_all += int(np.count_nonzero(word[1:] & ~word[:-1])) + int(bool(word[0]) and not prev_word)
        words += int(np.count_nonzero(word_out[1:] & ~word_out[:-1])) + int(bool(word_out[0]) and not prev_word_out)
        prev_word, prev_word_out, prev_backslash = bool(word[-1]), bool(word_out[-1]), bool(backslash[-1])
        parity = int(inside[-1])
    strings = (quotes + 1) // 2
    # + 2: the end of the text is a token, and after trailing white space the lexer finds it twice
    if escaped:
        return punct_all + strings + words_all + 2
    return punct + strings + words + 2


def read_efg(source: str | os.PathLike | IO, *, memory_limit_bytes: int | None = None) -> EfgGame:
    """Read a Gambit ``.efg`` file from a path or a file object (text or binary).

    See the module's documentation and ``docs/efg-format.md`` for the format and which
    departures from Gambit's rules are accepted.

    Parameters
    ----------
    source : str, path or file object
        The file; its name in messages is the path as given (or the file object's ``name``).
    memory_limit_bytes : int, optional
        Refuse a file whose reading would need more (``seqform.model.limits.check_efg``, on
        ``token_bound``; default ``seqform.model.limits.memory_limit()``), before tokenizing it.

    Returns
    -------
    EfgGame
        A ``seqform.Game``.

    Raises
    ------
    EfgParseError
        The text is not a valid file: ``FILE:LINE:COL: expected X, found Y``, one line.
    OSError
        The file cannot be read.
    GameError
        The path is no file name (it holds a NUL byte).
    TooLargeError
        Reading the file would exceed the memory limit.

    Examples
    --------
    >>> import io, seqform
    >>> text = 'EFG 2 R "coin" { "A" "B" } c "" 1 "" { "h" 1/2 "t" 1/2 } 0 t "" 1 "" { 1, -1 } t "" 2 "" { -1, 1 }'
    >>> seqform.solve(seqform.read_efg(io.StringIO(text))).value
    Fraction(0, 1)
    """
    if isinstance(source, (str, os.PathLike)):
        try:
            f = open(source, "rb")
        except ValueError as e:  # a NUL byte in the name: no file has it
            raise GameError(f"{_printable(os.fsdecode(source))}: not a file name ({e})") from None
        limit = memory_limit() if memory_limit_bytes is None else memory_limit_bytes
        shown = _printable(os.fsdecode(source))
        with f:
            if f.seekable():
                # the bound is counted before the text is read: a file too large is refused at once
                check_efg(shown, os.fstat(f.fileno()).st_size, token_bound(f), limit)
                f.seek(0)
                data = f.read()
            else:  # a pipe is read once
                data = f.read()
                check_efg(shown, len(data), token_bound(data), limit)
        return parse_efg(data, os.fspath(source))
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        filename = name if isinstance(name, str) else "<file>"
        try:
            data = source.read()
        except UnicodeDecodeError as e:
            # a text-mode file object decodes before we see the bytes: say so in one line
            raise GameError(
                f"{_printable(filename)}: cannot read the file as {e.encoding} text ({e.reason}: "
                f"{e.object[e.start : e.end]!r}); open it in binary mode ('rb') or pass its path, and "
                f"the reader takes any bytes"
            ) from None
        if isinstance(data, (bytes, bytearray)):
            raw = data
        else:
            raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else b""
        limit = memory_limit() if memory_limit_bytes is None else memory_limit_bytes
        check_efg(_printable(filename), len(raw), token_bound(raw), limit)
        del raw
        return parse_efg(data, filename)
    raise TypeError(f"read_efg expects a path or a readable file, got {type(source).__name__}")
