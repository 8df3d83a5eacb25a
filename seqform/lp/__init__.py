"""The sequence form and its linear program: ``sequenceform`` (E, F, A; Koller, Megiddo & von
Stengel 1996), ``zerosumlp`` (the zero-sum LP, solved by HiGHS), ``highs`` (HiGHS made quiet,
interruptible and logged), ``silence`` (file-descriptor silencing for C libraries), ``solve``
(game -> certified Nash equilibrium: ``seqform.solve``)."""
