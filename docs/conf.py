"""Sphinx configuration of seqform's documentation site (built by tests/test_docs.py with -W):

    python -m sphinx -W -b html docs docs/_build/html

The guides are Markdown (myst-parser), the API reference reStructuredText (autodoc, napoleon
numpydoc). The results pages are generated at every build from bench/results/ by
generate_results.py into _generated/, which is git-ignored."""

import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate_results  # noqa: E402

generate_results.generate(HERE / "_generated" / "results")

project = "seqform"
author = "the seqform developers"
copyright = "the seqform developers"
release = metadata.version("seqform")
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections say the types; signatures stay readable
html_theme = "furo"
html_title = "seqform"
exclude_patterns = ["_build", "api/_build", "README.md"]
suppress_warnings = ["misc.highlighting_failure"]  # the json samples elide entries with "..."
