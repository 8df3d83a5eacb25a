"""The sequence form and its linear program: ``seqform.lp.sequenceform`` (E, F, A; Koller, Megiddo
& von Stengel 1996), ``seqform.lp.zerosumlp`` (the zero-sum LP, solved by HiGHS),
``seqform.lp.highs`` (the one door to HiGHS: quiet through ``seqform.silence``, interruptible and
logged). ``seqform.solve`` builds on them (game -> certified Nash equilibrium)."""
