"""The names ``lossless`` exports (its front door, read by type checkers and by ``seqform.lazyexports``)."""

from .abstractgame import AbstractGame as AbstractGame
from .betting import (
    DECIDE as DECIDE,
)
from .betting import (
    FOLD as FOLD,
)
from .betting import (
    NEXT as NEXT,
)
from .betting import (
    SHOWDOWN as SHOWDOWN,
)
from .betting import (
    Betting as Betting,
)
from .betting import (
    BettingBuilder as BettingBuilder,
)
from .betting import (
    limit_betting as limit_betting,
)
from .betting import (
    outcomes as outcomes,
)
from .betting import (
    split_pot as split_pot,
)
from .cardmatrices import CardMatrices as CardMatrices
from .cardmatrices import card_matrices as card_matrices
from .errors import AbstractionError as AbstractionError
from .errors import OrderedSignalError as OrderedSignalError
from .gameshrink import Abstraction as Abstraction
from .gameshrink import gameshrink as gameshrink
from .orderedsignals import PUBLIC as PUBLIC
from .orderedsignals import OrderedSignalGame as OrderedSignalGame
from .poker import four_card as four_card
from .poker import leduc_os as leduc_os
from .poker import rhode_island as rhode_island
from .sequencelayout import SequenceLayout as SequenceLayout
from .sequencelayout import sequence_layout as sequence_layout
from .shrink import Shrunk as Shrunk
from .shrink import ShrunkSolution as ShrunkSolution
from .shrink import shrink as shrink
from .shrink import solve as solve
from .signaltree import SignalTree as SignalTree
from .signaltree import build_signal_tree as build_signal_tree
from .sparsifiedlp import (
    SparsifiedLP as SparsifiedLP,
)
from .sparsifiedlp import (
    SparsifiedSolution as SparsifiedSolution,
)
from .sparsifiedlp import (
    solve_sparsified as solve_sparsified,
)
from .sparsifiedlp import (
    sparsified_lp as sparsified_lp,
)
from .treesizes import game_tree_nodes as game_tree_nodes
from .treesizes import node_count_conventions as node_count_conventions
from .vectorbestresponse import Bracket as Bracket
from .vectorbestresponse import VectorBestResponse as VectorBestResponse
from .vectorbestresponse import bracket as bracket
from .vectorcfr import VectorCFRResult as VectorCFRResult
from .vectorcfr import cfr_plus as cfr_plus
