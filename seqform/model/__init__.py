"""The game model and its compiler: the ``Game`` interface (``game``), the compiled ``Tree``
(``tree``: one walk of the game into flat arrays), size limits (``limits``), and strategies over
the sequence form (``strategy``: behavioural strategies and realization plans)."""
