#!/usr/bin/env bash
# Regenerate the committed locks (needs uv: `pip install uv`):
#     bash requirements/lock.sh
# lock.txt    every package of the test environment, newest releases at the time of locking, for
#             every Python from 3.10 (uv's universal resolution: one file, markers per Python).
# lowest.txt  the lower bounds of pyproject.toml's dependencies (uv --resolution lowest-direct), with
#             lock.txt's pytest, hypothesis, pytest-timeout and pytest-xdist: the oldest releases we claim to support.
# .ci/run installs the first for the whole suite and the second for the smoke subset.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
uv pip compile pyproject.toml --extra test --universal --python-version 3.10 --quiet \
    --custom-compile-command "bash requirements/lock.sh" -o requirements/lock.txt
# the core's dependencies and the study extra's pyarrow (the lowest smoke subset writes a study table)
python3 -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(p["dependencies"] + p["optional-dependencies"]["study"]))' > "$tmp/lowest.in"
printf 'pytest\nhypothesis\npytest-timeout\npytest-xdist\n' >> "$tmp/lowest.in"
grep -E '^(pytest|hypothesis|pytest-timeout|pytest-xdist|execnet)==' requirements/lock.txt > "$tmp/tools.txt"
uv pip compile "$tmp/lowest.in" -c "$tmp/tools.txt" --resolution lowest-direct --python-version 3.11 --quiet \
    --no-annotate --no-header -o "$tmp/lowest.txt"
{ echo "# The lower bounds of pyproject.toml, resolved by: bash requirements/lock.sh (do not edit)"; cat "$tmp/lowest.txt"; } \
    > requirements/lowest.txt
