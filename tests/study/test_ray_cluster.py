"""``seqform study --ray ADDRESS`` on a real two-node Ray cluster, started on this machine as a user
starts one: ``ray start --head`` and ``ray start --address HEAD:PORT``, two raylets with their own
ports, temporary directories, one CPU and a custom resource each (``head``, ``node2``), and Ray's
token authentication with a token made for the test. The study runs as a user runs it, through
the command line in a subprocess joining the cluster by its address.

* the cells run on both nodes, and the table's ``node`` column says which ran each cell;
* the same table as the local process pool (timings and places masked);
* killing the second node (SIGKILL to its processes) once it has finished a cell: its cell in
  flight fails, is retried on the head, and the study ends with every cell done, the cells
  finished before the kill untouched, and ``--json`` still one object on standard output.

``ray.cluster_utils.Cluster`` would also give two raylets, but started from inside the test's
process through Ray's private node API; ``ray start`` is what a user (and ``ray up``, and KubeRay)
runs, with the same flags, address and processes, so that is what the fixture runs. Each node is
its own session (``start_new_session``): teardown kills exactly the processes of that session,
never another Ray on the machine (``ray stop`` would stop every Ray of this user).

The cluster's tests are slow (Ray's start-up and its detection of a dead node take tens of
seconds): run them with ``python -m pytest -m slow tests/study/test_ray_cluster.py``. The two
cluster configurations the guide shows (``examples/studies/ray-up.yaml``, ``kuberay.yaml``) are
checked in the default tier, in a second.
"""

from __future__ import annotations

import copy
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest


def on_the_cluster(test):
    """The cluster's tests are slow, and touch processes and signals (the runtime tier); the checks
    of the example configurations are fast."""
    return pytest.mark.slow(pytest.mark.runtime(test))


pytest.importorskip("ray", reason="Ray is the distributed extra (pip install 'seqform[distributed]')")
pytest.importorskip("pyarrow", reason="studies write their tables with pyarrow (the study extra)")
import pyarrow.parquet as pq  # noqa: E402

from seqform.study.studytable import DETERMINISTIC_COLUMNS, read_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RAY = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")

# one deterministic solver (one cell) and a sampler over 8 seeds: 9 cells of a few seconds each,
# so that a node killed after its first finished cell leaves cells still to run
STUDY = """[study]
name = "cluster"
games = ["kuhn"]
seeds = 8
iterations = 40000
checkpoints = 3

[[solvers]]
name = "cfr+"
iterations = 2000

[[solvers]]
name = "es-mccfr"
"""
CELLS = 9

# connects to the cluster, waits until a node with each of the custom resources is alive, prints
# {resource: node id} and the head's address as Ray registered it
NODES = """
import json, sys, time, ray
ray.init(address=sys.argv[1], log_to_driver=False, logging_level="ERROR")
want = set(sys.argv[2].split(","))
deadline = time.time() + float(sys.argv[3])
while True:
    alive = [n for n in ray.nodes() if n["Alive"]]
    found = {r: n["NodeID"] for n in alive for r in n["Resources"] if r in want}
    if set(found) == want and len(alive) == len(want) or time.time() > deadline:
        break
    time.sleep(0.5)
ip = next((n["NodeManagerAddress"] for n in alive if "head" in n["Resources"]), None)
print(json.dumps({"nodes": found, "alive": len(alive), "ip": ip}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _sessions() -> dict:
    """pid -> session id of every process on the machine."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":  # a zombie holds nothing
            out[int(stat.parent.name)] = int(fields[3])
    return out


def session_pids(sid: int) -> list:
    return [pid for pid, s in _sessions().items() if s == sid]


def kill_session(sid: int, sig: int = signal.SIGKILL) -> None:
    """Signal every process of the session ``sid`` (a node: ``ray start`` and what it started)."""
    for pid in session_pids(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class LocalCluster:
    """A head and a second node on this machine, each ``ray start --block`` in its own session."""

    def __init__(self, base: Path):
        self.base = base
        self.port = free_port()
        token = base / "token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        # Ray's token authentication, with a token of the cluster's own (never the user's)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        self.env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
        self.procs: dict = {}
        self.ids: dict = {}
        self.address = f"127.0.0.1:{self.port}"

    def _start(self, name: str, first: list) -> None:
        args = [
            RAY,
            "start",
            *first,
            "--temp-dir",
            str(self.base / name),
            "--num-cpus",
            "1",
            "--resources",
            json.dumps({name: 1}),
            "--object-store-memory",
            str(100 * 2**20),
            "--disable-usage-stats",
            # every port of its own: other Ray runtimes may run on this machine
            *("--node-manager-port", str(free_port()), "--object-manager-port", str(free_port())),
            *("--metrics-export-port", str(free_port()), "--runtime-env-agent-port", str(free_port())),
            *("--dashboard-agent-listen-port", str(free_port()), "--dashboard-agent-grpc-port", str(free_port())),
            "--block",
        ]
        log = open(self.base / f"{name}.log", "w")
        self.procs[name] = subprocess.Popen(
            args, env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()

    def start_head(self) -> None:
        # no dashboard (a study needs none), but the port of the jobs API it still serves
        self._start(
            "head",
            ["--head", "--port", str(self.port), "--include-dashboard", "false"]
            + ["--dashboard-port", str(free_port())],
        )
        self.wait_for({"head"})

    def start_node2(self) -> None:
        self._start("node2", ["--address", self.address])
        self.wait_for({"head", "node2"})

    def alive(self, name: str) -> bool:
        return name in self.procs and self.procs[name].poll() is None

    def wait_for(self, names: set, limit: float = 240) -> None:
        """Until exactly the nodes ``names`` are alive; their ids into ``self.ids``."""
        t0 = time.time()
        while True:  # the head's port first: ray.init gives up on a port nobody listens on yet
            for name in names:
                assert self.alive(name), f"ray start of {name} exited: {self.log(name)}"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.time() - t0 < limit, self.log("head")
                time.sleep(0.2)
        query = subprocess.Popen(
            [sys.executable, "-c", NODES, self.address, ",".join(sorted(names)), str(limit)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            while query.poll() is None:  # a node whose `ray start` exits fails the wait at once
                for name in names:
                    assert self.alive(name), f"ray start of {name} exited: {self.log(name)}"
                time.sleep(0.2)
        finally:
            if query.poll() is None:
                query.kill()
            stdout, stderr = query.communicate()
        assert query.returncode == 0, stderr[-3000:]
        got = json.loads(stdout)
        assert set(got["nodes"]) == names and got["alive"] == len(names), (got, {n: self.log(n) for n in names})
        self.ids = got["nodes"]
        # the address as the head registered it, the one `ray start --head` tells users to join
        self.address = f"{got['ip']}:{self.port}"

    def log(self, name: str) -> str:
        try:
            return (self.base / f"{name}.log").read_text()[-3000:]
        except OSError:
            return ""

    def ensure_two_nodes(self) -> None:
        if not self.alive("node2"):
            self.start_node2()

    def kill(self, name: str) -> int:
        """SIGKILL every process of the node: its raylet, object store, workers and agents. Again
        until none is left: a process may fork (a raylet starting a worker) while it is killed.
        Returns the node's session id. The node is then forgotten: once its session is empty, its
        number may be a new process's, which is not ours to signal."""
        proc = self.procs[name]
        t0 = time.time()
        while session_pids(proc.pid) and time.time() - t0 < 30:
            kill_session(proc.pid)
            time.sleep(0.05)
        proc.wait(timeout=60)
        if not session_pids(proc.pid):
            del self.procs[name]
        return proc.pid

    def stop(self) -> None:
        for proc in self.procs.values():
            kill_session(proc.pid, signal.SIGTERM)  # a raylet told to stop stops its workers
        t0 = time.time()
        while any(session_pids(p.pid) for p in self.procs.values()) and time.time() - t0 < 10:
            time.sleep(0.2)
        for name in list(self.procs):
            try:
                self.kill(name)
            except subprocess.TimeoutExpired:  # (the fixture then names what outlived it)
                pass


def short_dir(tmp_path_factory) -> Path:
    """A directory for the nodes' files: Ray's sockets live under it, and a Unix socket's path
    has at most 107 characters (Ray adds about 60): pytest's own temporary directory when it is
    short enough, else one under /tmp."""
    d = tmp_path_factory.mktemp("ray")
    if len(str(d)) <= 40:
        return d
    return Path(tempfile.mkdtemp(prefix="sfr", dir="/tmp" if os.path.isdir("/tmp") else None))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if RAY is None:
        pytest.skip("the ray command is not installed")
    base = short_dir(tmp_path_factory)
    c = LocalCluster(base)
    try:
        c.start_head()
        c.start_node2()
        yield c
    finally:
        c.stop()
        left = [pid for p in c.procs.values() for pid in session_pids(p.pid)]
        if not str(base).startswith(str(tmp_path_factory.getbasetemp())):
            shutil.rmtree(base, ignore_errors=True)
        assert not left, f"processes of the cluster outlived it: {left}"


@pytest.fixture(scope="module")
def study_file(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("study") / "cluster.toml"
    p.write_text(STUDY)
    return p


def seqform_study(study: Path, out: Path, *flags, env=None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "seqform", "study", str(study), "--out", str(out), "--json", *flags],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 900) -> dict:
    """The study's exit status 0 and its ``--json``: one object, alone on standard output."""
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr[-3000:]
    assert stdout.count("\n") == 1, f"standard output is not one JSON line:\n{stdout}"
    return json.loads(stdout)


def frame(out: Path, masked=()):
    """The table's deterministic columns (less ``masked``), rows in a fixed order."""
    t = pq.read_table(out / "results.parquet")
    keep = [c for c in DETERMINISTIC_COLUMNS if c not in masked]
    return t.select(keep).sort_by([("cell", "ascending"), ("iteration", "ascending")])


@pytest.fixture(scope="module")
def local_table(study_file, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local") / "out"
    res = finish(seqform_study(study_file, out, "--workers", "2", "--quiet"))
    assert (res["executor"], res["ok"], res["failed"]) == ("local", CELLS, 0)
    return out


@pytest.fixture(scope="module")
def cluster_run(cluster, study_file, tmp_path_factory):
    cluster.ensure_two_nodes()
    out = tmp_path_factory.mktemp("cluster") / "out"
    res = finish(seqform_study(study_file, out, "--ray", cluster.address, env=cluster.env))
    return out, res, dict(cluster.ids)


@on_the_cluster
def test_cells_run_on_both_nodes(cluster_run):
    out, res, ids = cluster_run
    assert (res["executor"], res["workers"], res["ok"], res["failed"], res["retried"]) == ("ray", 2, CELLS, 0, 0)
    rows = read_table(out)
    assert len({r["cell"] for r in rows}) == CELLS and {r["status"] for r in rows} == {"ok"}
    by_cell = {}
    for r in rows:  # every row of a cell names the node that ran it
        by_cell.setdefault(r["cell"], set()).add(r["node"])
    assert all(len(nodes) == 1 for nodes in by_cell.values())
    assert {r["node"] for r in rows} == {ids["head"], ids["node2"]}  # both nodes ran cells, none other


@on_the_cluster
def test_the_cluster_gives_the_local_pools_table(cluster_run, local_table):
    """Same seeds, same numbers: the deterministic columns agree exactly; the pool's rows name no
    Ray node."""
    out, _, _ = cluster_run
    assert frame(out).equals(frame(local_table))
    assert {r["node"] for r in read_table(local_table)} == {None}
    assert frame(out).num_rows == len(read_table(local_table)) > CELLS


def _node_of(path: Path):
    try:
        return pq.read_table(path, columns=["node"]).column("node")[0].as_py()
    except Exception:  # renamed into place a moment ago and read half-way: read it again next time
        return None


@on_the_cluster
def test_a_killed_node_loses_no_cell(cluster, study_file, local_table, tmp_path):
    """SIGKILL the second node once it has finished a cell: the study retries what it was
    running on the head and ends with every cell done; the cells finished before the kill stay
    as they were, and every cell finished after it ran on the head."""
    cluster.ensure_two_nodes()
    head, node2 = cluster.ids["head"], cluster.ids["node2"]
    out = tmp_path / "out"
    # `--ray auto` with RAY_ADDRESS, as a Ray job's driver finds its cluster (ray job submit)
    proc = seqform_study(
        study_file, out, "--ray", "auto", "--quiet", env=dict(cluster.env, RAY_ADDRESS=cluster.address)
    )
    try:
        seen: dict = {}
        t0 = time.time()
        while node2 not in seen.values():
            assert proc.poll() is None, proc.communicate()
            assert time.time() - t0 < 600, "no cell finished on the second node"
            for f in (out / "cells").glob("*.parquet") if (out / "cells").is_dir() else []:
                if seen.get(f.name) is None:
                    seen[f.name] = _node_of(f)
            time.sleep(0.05)
        # the cells finished before the kill (a node-2 cell takes seconds: none finishes between
        # this snapshot and the kill)
        before = {f.name: f.read_bytes() for f in (out / "cells").glob("*.parquet")}
        assert not session_pids(cluster.kill("node2"))
    finally:
        res = finish(proc)
    assert len(before) < CELLS, "the study ended before the kill: nothing to retry"
    assert (res["ok"], res["failed"]) == (CELLS, 0) and res["retried"] >= 1
    rows = read_table(out)
    assert {r["status"] for r in rows} == {"ok"} and len({r["cell"] for r in rows}) == CELLS
    for name, data in before.items():  # not run again
        assert (out / "cells" / name).read_bytes() == data
    after = {f.name for f in (out / "cells").glob("*.parquet")} - set(before)
    assert after and {_node_of(out / "cells" / n) for n in after} == {head}
    retried = [r for r in rows if r["attempts"] == 2]
    assert retried and {r["node"] for r in retried} == {head}  # the killed node's cell ran again, on the head
    assert {r["node"] for r in rows} == {head, node2}
    # and the numbers are the pool's: a retried cell starts again from its seed
    assert frame(out, masked=("attempts",)).equals(frame(local_table, masked=("attempts",)))


def test_the_ray_up_example_is_a_cluster_configuration_ray_up_accepts():
    """ray up's own checks (its defaults merged, then its JSON schema, which refuses unknown keys),
    and what the guide says of it: every node installs the copied checkout with both extras."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with Ray")
    from ray.autoscaler._private.util import prepare_config, validate_config  # what `ray up` runs

    path = ROOT / "examples" / "studies" / "ray-up.yaml"
    config = yaml.safe_load(path.read_text())
    validate_config(prepare_config(copy.deepcopy(config)))
    assert config["provider"]["type"] == "local" and config["provider"]["worker_ips"]
    (mounted,) = [k for k, v in config["file_mounts"].items() if v == "."]
    assert any(f"{mounted.replace('~', '$HOME')}[distributed,study]" in c for c in config["setup_commands"])
    runs = re.findall(r"seqform study \S+\.toml .*", path.read_text())
    assert runs and all(" --ray auto " in line for line in runs)  # the driver on the head joins its cluster


def test_the_kuberay_example_runs_one_image_and_keeps_the_table_on_its_volume():
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with Ray")
    path = ROOT / "examples" / "studies" / "kuberay.yaml"
    docs = {d["kind"]: d for d in yaml.safe_load_all(path.read_text())}
    cluster = docs["RayCluster"]
    assert cluster["apiVersion"] == "ray.io/v1"
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]
    pods = [head] + [g["template"]["spec"] for g in cluster["spec"]["workerGroupSpecs"]]
    images = {c["image"] for pod in pods for c in pod["containers"]}
    assert len(images) == 1  # the same seqform on every node
    built = re.search(r"docker build -t (\S+)", path.read_text())
    assert built and built[1] == images.pop()
    # the job's --out is on the head's volume, and that volume is the claim defined beside it
    (mount,) = [m for c in head["containers"] for m in c["volumeMounts"]]
    (volume,) = [v for v in head["volumes"] if v["name"] == mount["name"]]
    assert volume["persistentVolumeClaim"]["claimName"] == docs["PersistentVolumeClaim"]["metadata"]["name"]
    out = re.search(r"seqform study .* --out (\S+)", path.read_text())
    assert out and out[1].startswith(mount["mountPath"] + "/")
    assert f"service/{cluster['metadata']['name']}-head-svc" in path.read_text()  # KubeRay's name for it
