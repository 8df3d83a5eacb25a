"""Reading and writing: Gambit ``.efg`` files (``seqform.io.efgread``, ``seqform.io.efgwrite``),
strategy profiles as JSON and pygambit profiles (``seqform.io.strategyjson``), OpenSpiel games and
policies (``seqform.io.openspiel``), and game specifications such as ``leduc(ranks=5)``, a file,
or ``openspiel:NAME`` (``seqform.io.gamespec``)."""
