"""The game model and its compiler: the ``Game`` interface (``seqform.model.game``), the compiled
``Tree`` (``seqform.model.tree``: one walk of the game into flat arrays), size limits
(``seqform.model.limits``), and strategies over the sequence form (``seqform.model.strategy``:
behavioural strategies and realization plans)."""
