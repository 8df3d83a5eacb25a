"""Iterative solvers over the compiled tree: ``cfr`` (CFR, CFR+, discounted and chance-sampled
CFR; Zinkevich et al. 2007) and ``egt`` (the excessive gap technique; Hoda et al. 2010, Kroer,
Farina & Sandholm 2017).

References:

- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
- Hoda, Gilpin, Pena & Sandholm (2010), "Smoothing Techniques for Computing Nash Equilibria of Sequential Games", Mathematics of Operations Research.
"""
