"""Checks of strategies against ground truth: ``seqform.verify.exploitability`` (float best
responses, NashConv), ``seqform.verify.infosetregret`` (per-information-set regret; Kroer, Farina
& Sandholm 2017, section 4), ``seqform.verify.evaluate`` (exact or float evaluation of a profile).
An iterative solver tracked against the certified value (``seqform verify``) is
``seqform.study.verifyharness``, above the solve pipeline it needs for its ground truth.

References:

- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
"""
