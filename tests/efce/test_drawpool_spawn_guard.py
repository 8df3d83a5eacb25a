"""``sample_efce(workers=2)`` (``efce.drawpool.DrawPool``) from a script without
``if __name__ == "__main__":``: the pool's spawned workers import the script again and would start
a pool again; ``DrawPool`` raises ``UnguardedMainError`` at once, one line naming the fix. The same
script guarded samples. Each script runs as a user runs it, ``python script.py``."""
import subprocess
import sys

BODY = '''res = sample_efce(job_market(), None, max_rounds=3, sample_size=200, seed=0, workers=2)
print("ran", res.rounds)
'''
HEAD = "from efce import job_market, sample_efce\n"


def run_script(tmp_path, code: str) -> subprocess.CompletedProcess:
    (tmp_path / "script.py").write_text(code)
    return subprocess.run([sys.executable, "script.py"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)


def test_an_unguarded_script_stops_at_once_with_one_line(tmp_path):
    r = run_script(tmp_path, HEAD + BODY)
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0, r.stdout
    assert lines[-1].startswith("seqform.errors.UnguardedMainError: script.py: "), r.stderr
    assert 'put that code under `if __name__ == "__main__":`' in lines[-1]
    assert "bootstrapping phase" not in r.stderr and "BrokenProcessPool" not in r.stderr
    assert len(lines) < 20 and r.stderr.count("Traceback") == 1, r.stderr
    assert "ran" not in r.stdout


def test_the_guarded_script_samples(tmp_path):
    guarded = HEAD + 'if __name__ == "__main__":\n' + "".join("    " + x + "\n" for x in BODY.splitlines())
    r = run_script(tmp_path, guarded)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "ran" and int(r.stdout.split()[1]) >= 1
