"""``python -m seqform`` runs the command line."""

import sys

from seqform.cli import main

sys.exit(main())
