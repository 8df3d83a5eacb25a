"""Reading and writing: Gambit ``.efg`` files (``efgread``, ``efgwrite``), strategy profiles as
JSON (``strategyjson``), OpenSpiel games (``openspiel``), and game specifications such as
``leduc(ranks=5)``, a file, or ``openspiel:NAME`` (``gamespec``)."""
