"""Iterative solvers over the compiled tree: ``cfr`` (CFR, CFR+, discounted and chance-sampled
CFR; Zinkevich et al. 2007) and ``egt`` (the excessive gap technique; Hoda et al. 2010, Kroer,
Farina & Sandholm 2017)."""
