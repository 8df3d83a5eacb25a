"""Exact extensive-form correlated equilibria of games too large to enumerate: the EFCE LP over a
growing set of pure profiles (column generation), priced by the most likely profile of Dudik &
Gordon (2009)'s exponential family.

**The LP** (``efce.exact``'s, with full pure profiles as columns; von Stengel & Forges 2008):
maximise c . p over distributions p on profiles such that no causal deviation gains. Its rows,
one per (trigger, sequence) pair and one per trigger, dualise each trigger's best deviation, a
best response over the deviator's sub-treeplex (``efce.colgen.restrictedlp``). They read the models'
statistics (``efce.family``), so the same code serves ``efce.treemodel.TreeModel`` (any tree
that compiles) and ``efce.polymatrix.PolymatrixModel`` (grids of any size).

**Column generation** (``efce.colgen.efcecolgen``). A restricted LP over a pool of profiles, solved by
HiGHS; its row duals make every profile's reduced cost the energy of the exponential family with
lambda replaced by the duals (``efce.colgen.pricing``). The profile of largest reduced cost is found exactly
by ``efce.factormap`` (the MAP integer program over the local polytope of the energy's factor
graph, Wainwright & Jordan 2008; HiGHS), and first, cheaply, by annealed Gibbs chains at
smoothed duals (Wentges 1997); while it is positive it joins the LP. A first phase drives the
gain every deviation may keep to 0 (always feasible), the second optimises over the EFCE
polytope, or over the eps-EFCE polytope for ``EFCEColumnGeneration.solve``'s eps > 0. This is a double oracle for
correlation in the sense of Farina, Ling, Fang & Sandholm (2019): the causal-deviation dynamic
program is the best response of the deviators, the MAP profile the mediator's. The pool is kept
narrow (``RestrictedLP.retire``).

**Exactness** (``efce.colgen.efcecertificate``). At the end, the optimal basis HiGHS returns is solved again
in rational arithmetic with the profiles' statistics made exact, and the distribution is then
*verified* independently: it is a distribution, and the causal-deviation dynamic program
(``efce.deviationdp``) over every trigger, in rationals, finds no deviation that gains
(``max_regret`` exactly 0 or below). HiGHS's basis is feasible up to its tolerance (1e-7), so in
rationals it can miss; then the LP is solved again from that basis with tolerances 1e-10 and
verified once more (``EFCEColumnGeneration.certify``). Its payoffs and objective are exact.
Optimality: no profile has reduced cost above the pricing tolerance (``tol`` r_max) by HiGHS's
MIP, whose own gap tolerance is 1e-9; by weak duality the optimum is at most the restricted LP's
plus the largest reduced cost (``bound``).

**Payoff ranges** (``efce.colgen.payoffranges``): each player's least and greatest payoff over the (eps-)EFCE
polytope, 2N LPs over one pool.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
- von Stengel & Forges (2008), "Extensive-Form Correlated Equilibrium: Definition and Computational Complexity",
  Mathematics of Operations Research.
- Farina, Ling, Fang & Sandholm (2019), "Correlation in Extensive-Form Games: Saddle-Point Formulation and Benchmarks",
  NeurIPS.
- Wainwright & Jordan (2008), "Graphical Models, Exponential Families, and Variational Inference".
- Wentges (1997), "Weighted Dantzig-Wolfe Decomposition for Linear Mixed-Integer Programming", International
  Transactions in Operational Research.
"""

from .colgenresult import ColumnGenerationResult, ColumnGenerationStopped
from .efcecolgen import EFCEColumnGeneration, efce_column_generation
from .payoffranges import PayoffRanges, payoff_ranges

__all__ = [
    "EFCEColumnGeneration",
    "ColumnGenerationStopped",
    "ColumnGenerationResult",
    "efce_column_generation",
    "payoff_ranges",
    "PayoffRanges",
]
