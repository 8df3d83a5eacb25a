"""Checks of strategies against ground truth: ``exploitability`` (float best responses, NashConv),
``regret`` (per-information-set regret; Kroer, Farina & Sandholm 2017, section 4), ``evaluate``
(exact or float evaluation of a profile), ``convergence`` (an iterative solver tracked against
the certified value).

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""
