"""``sample_efce(options=SamplerOptions(workers=2))`` (``efce.drawpool.DrawPool``) from a script without
``if __name__ == "__main__":``: the pool's spawned workers import the script again and would start
a pool again; ``DrawPool`` raises ``UnguardedMainError`` at once, one line naming the fix. The same
script guarded samples. Each script runs as a user runs it, ``python script.py``."""

import pytest

from tests.spawnscripts import assert_stopped_with_one_line, run_script, script

BODY = """res = sample_efce(job_market(), None, max_rounds=3, seed=0,
                  options=SamplerOptions(expectations="mcmc", sample_size=200, workers=2))
print("ran", res.rounds)
"""
HEAD = "from efce import SamplerOptions, job_market, sample_efce\n"


pytestmark = pytest.mark.runtime  # spawned worker processes


def test_an_unguarded_script_stops_at_once_with_one_line(tmp_path):
    assert_stopped_with_one_line(run_script(tmp_path, script(HEAD, BODY, guarded=False)))


def test_the_guarded_script_samples(tmp_path):
    r = run_script(tmp_path, script(HEAD, BODY, guarded=True))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "ran" and int(r.stdout.split()[1]) >= 1
