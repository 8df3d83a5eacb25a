"""The ``seqform`` command line (``main``): see ``seqform.cli.main``."""

from seqform.cli.common import Progress
from seqform.cli.main import build_parser, main

__all__ = ["main", "build_parser", "Progress"]
