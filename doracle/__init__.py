"""Double oracle for extensive-form games (Bosansky, Kiekintveld, Lisy & Pechoucek, JAIR 2014).

In progress (the project's double-oracle issue). Here so far: ``bestresponse.best_response``, the
best-response oracle on the implicit game (a depth-first walk over the opponent's support, exact),
and the Flip-It game (``seqform.games.flipit``). Still to come: restricted games with temporary
leaves, the loop, ``doracle.solve`` and ``seqform solve GAME --method doracle``.
"""
