#!/usr/bin/env python3
"""range_limits.py - every documented range is supported or refused cleanly.

For each parameter `cephsim list-params` gives a range for, run the model at
the minimum and at the maximum (on the small lab scenario, a few simulated
milliseconds), and just outside both ends.  A value inside the range must run
(exit 0); a value outside must be refused with exit 1 and one line on stderr
naming the parameter.  Nothing may die of a signal (an assertion, a sanitizer
report).  CPU and host profile fields are written into copies of the lab's
profiles (--set cannot reach cstates[], governors[] or hw.host).  A limit that
needs other values to be consistent (min_size <= size, ccx_cores divides
cores, ...) is run with them (COMPANION).

Runs whose cost is the value itself (sim.duration_s = 10^6 simulated seconds,
sim.replications = 1,000) are checked by a dry sweep (`sweep -n` resolves and
validates every point's scenario) instead of being run.  Also fio's numjobs
and iodepth limits (fio REAL_MAX_JOBS 4,096; the job file's own ranges).

    tests/range_limits.py BINDIR
Prints one line per failing case and a summary "range limits: N runs, 0 aborts".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "out/bin"), "cephsim")
BASE = os.path.join(ROOT, "scenarios", "lab.json")
FAST = ["--set", "sim.duration_s=0.002", "--set", "sim.warmup_s=0", "--set", "sim.replications=1"]
# cost of the run is the value: validated by a dry sweep, not run
DRY = {("sim", "duration_s"), ("sim", "warmup_s"), ("sim", "replications")}
# what else a limit needs to be a consistent configuration (the scenario's
# cross-checks: min_size <= size, ccx_cores divides cores, ...): --set
# strings, or for the CPU profile edits of its fields ("governors[]": {...})
COMPANION = {
    ("cluster", "osds_per_host", "1"): ["cluster.hosts=3", "cluster.failure_domain=host"],
    ("pool", "size", "1"): ["pool.min_size=1"],
    # CRUSH needs spare OSDs to find 10 distinct ones (choose_total_tries 50)
    ("pool", "size", "10"): ["cluster.osds_per_host=30"],
    ("pool", "min_size", "10"): ["pool.size=10", "cluster.osds_per_host=30"],
    ("hw.cpu", "cores", "1"): {"ccx_cores": 1, "threads": 1},
    ("hw.cpu", "cores", "1024"): {"threads": 1024},
    ("hw.cpu", "threads", "1"): {"cores": 1, "ccx_cores": 1},
    ("hw.cpu", "base_clock_ghz", "10"): {"boost_clock_ghz": 10, "all_core_clock_ghz": 10},
    ("hw.cpu", "base_clock_ghz", "0.1"): {"all_core_clock_ghz": 0.1},
    ("hw.cpu", "boost_clock_ghz", "0.1"): {"base_clock_ghz": 0.1, "all_core_clock_ghz": 0.1,
                                           "governors[]": {"idle_clock_ghz": 0.1, "max_clock_ghz": 0.1}},
    ("hw.cpu", "all_core_clock_ghz", "10"): {"boost_clock_ghz": 10},
    ("hw.cpu", "ccx_cores", "1024"): {"cores": 1024, "threads": 1024},
    ("hw.cpu.cstates[]", "exit_latency_us", "100000"): {"cstates[]": {"target_residency_us": 1e6}},
    ("hw.cpu.cstates[]", "target_residency_us", "0"): {"cstates[]": {"exit_latency_us": 0}},
    ("hw.cpu.governors[]", "idle_clock_ghz", "10"): {"boost_clock_ghz": 10, "governors[]": {"max_clock_ghz": 10}},
    ("hw.cpu.governors[]", "max_clock_ghz", "0.1"): {"governors[]": {"idle_clock_ghz": 0.1}},
    ("hw.cpu.governors[]", "max_clock_ghz", "10"): {"boost_clock_ghz": 10},
    ("hw.nvme", "tail_spike_prob", "1"): ["hw.nvme.tail_spike_us=1"],
    ("hw.nic", "header_bytes", "0"): ["hw.nic.l3_header_bytes=0"],
    ("hw.nic", "l3_header_bytes", "512"): ["hw.nic.header_bytes=512"],
    ("hw.switch", "port_to_port_latency_us", "1000"): ["cluster.switch=tor-cut-through"],
    ("hw.host", "drives_per_host", "1"): ["pool.size=1", "pool.min_size=1"],
    # OSDs share an NVMe in whole groups of a host's OSDs
    ("cluster", "osds_per_nvme", "16"): ["cluster.osds_per_host=16"],
    # the reduction simulates at most the cluster's own hosts
    ("sim", "reduce_to_hosts", "1000"): ["cluster.hosts=1000"],
}
# the erasure-code profile's fields act on an erasure pool: run on a copy of
# the lab scenario whose pool is one (size k + m, so not given); k + m <= 32
# shards on enough OSDs
EC_PARAMS = {("pool", "k"), ("pool", "m"), ("pool", "stripe_unit")}
COMPANION.update({
    ("pool", "k", "31"): ["pool.m=1", "cluster.osds_per_host=40"],
    ("pool", "m", "30"): ["pool.k=2", "cluster.osds_per_host=40"],
})
# a cluster limit that needs a CPU profile big enough for it: the lab's
# profile with these fields, named by cluster.cpu
CPU_COMPANION = {
    ("cluster", "osd_cpus", "1024"): {"cores": 1024, "threads": 1024},
}
RANGE = re.compile(r"^(-?[0-9.e+]+)\.\.(-?[0-9.e+]+)$")


def params():
    out = subprocess.run([BIN, "list-params"], check=True, capture_output=True, text=True).stdout
    section = None
    for line in out.splitlines():
        m = re.match(r"^\[(.+)\]$", line)
        if m:
            section = m.group(1)
            continue
        f = line.split()
        if len(f) < 5 or f[1] not in ("int", "number"):
            continue
        for tok in f[3:6]:
            r = RANGE.match(tok)
            if r:
                yield section, f[0], f[1], r.group(1), r.group(2)
                break


def outside(kind, lo, hi):
    """Values just outside [lo, hi]: ints by one, numbers by a relative step."""
    if kind == "int":
        return [str(int(lo) - 1), str(int(hi) + 1)]
    lo_f, hi_f = float(lo), float(hi)
    return [repr(lo_f - max(abs(lo_f) * 0.01, 1e-9)), repr(hi_f + max(abs(hi_f) * 0.01, 1e-9))]


class Runner:
    def __init__(self, tmp):
        self.tmp = tmp
        self.runs = self.aborts = self.bad = 0
        self.n = 0

    def run(self, label, args, want_ok, name=None):
        self.runs += 1
        self.n += 1
        out = os.path.join(self.tmp, "run%d" % self.n)
        p = subprocess.run([BIN] + args, capture_output=True, text=True, cwd=self.tmp, timeout=600)
        shutil.rmtree(out, ignore_errors=True)
        err = p.stderr.strip()
        if p.returncode < 0 or p.returncode >= 128:
            self.aborts += 1
            self.bad += 1
            print("ABORT %s: exit %d: %s" % (label, p.returncode, err[-300:]))
        elif want_ok and p.returncode != 0:
            self.bad += 1
            print("REFUSED inside the range %s: %s" % (label, err))
        elif not want_ok and p.returncode == 0:
            self.bad += 1
            print("ACCEPTED outside the range %s" % label)
        elif not want_ok and (len(err.splitlines()) != 1 or (name and name not in err)):
            self.bad += 1
            print("UNCLEAR error for %s: %r" % (label, err))
        return p

    def cli(self, sets, want_ok, label, name=None, dry=False, scenario=BASE):
        if dry:
            grid = os.path.join(self.tmp, "g%d.json" % self.n)
            with open(grid, "w") as f:
                json.dump({"name": "limits", "base": scenario,
                           "set": dict(s.split("=", 1) for s in sets), "axes": {"sim.seed": [1]}}, f)
            return self.run(label, ["sweep", grid, "--db", os.path.join(self.tmp, "dry.db"), "-n", "-q"],
                            want_ok, name)
        args = ["run", scenario, "-q", "-o", "run%d" % (self.n + 1)] + FAST
        for s in sets:
            args += ["--set", s]
        return self.run(label, args, want_ok, name)


def set_field(doc, name, value):
    """name "cstates[]" / "governors[]" sets value's fields in every entry."""
    if name.endswith("[]"):
        for entry in doc[name[:-2]]:
            entry.update(value)
    else:
        doc[name] = value


def profile_case(r, section, name, value, want_ok):
    """The CPU or host profile: a copy of the lab's with the field set, by path."""
    label = "%s.%s=%s" % (section, name, value)
    extra = COMPANION.get((section, name, value), {})
    if section == "hw.host":
        # the lab's host profile (its parts by path), the lab scenario naming it
        doc = json.load(open(os.path.join(ROOT, "hw-profiles", "host", "lab.json")))
        for k in ("cpu", "nvme", "nic", "switch"):
            doc[k] = os.path.join(ROOT, "hw-profiles", k, doc[k] + ".json")
        doc[name] = json.loads(value)
        path = os.path.join(r.tmp, "host-%d.json" % r.n)
        json.dump(doc, open(path, "w"))
        scen = json.load(open(BASE))
        drop = ("cpu", "nvme", "nic", "switch") + (("osds_per_host",) if name == "drives_per_host" else ())
        scen["cluster"] = {k: v for k, v in scen["cluster"].items() if k not in drop}
        scen["cluster"]["host"] = path
        scen["clients"]["jobfile"] = os.path.join(ROOT, "scenarios", scen["clients"]["jobfile"])
        spath = os.path.join(r.tmp, "scen-%d.json" % r.n)
        json.dump(scen, open(spath, "w"))
        return r.cli(extra, want_ok, label, name, scenario=spath)
    doc = json.load(open(os.path.join(ROOT, "hw-profiles", "cpu", "lab-vm.json")))
    for k, v in extra.items():
        set_field(doc, k, v)
    key = section[len("hw.cpu."):] if section != "hw.cpu" else name
    set_field(doc, key, {name: json.loads(value)} if key.endswith("[]") else json.loads(value))
    path = os.path.join(r.tmp, "cpu-%d.json" % r.n)
    json.dump(doc, open(path, "w"))
    return r.cli(["cluster.cpu=" + path], want_ok, label, name)


def main():
    tmp = tempfile.mkdtemp(prefix="cephsim-limits-")
    r = Runner(tmp)
    ec_base = os.path.join(tmp, "lab-ec.json")
    scen = json.load(open(BASE))
    scen["pool"] = {"type": "erasure", "k": 2, "m": 1, "pg_num": scen["pool"]["pg_num"]}
    scen["clients"]["jobfile"] = os.path.join(ROOT, "scenarios", scen["clients"]["jobfile"])
    json.dump(scen, open(ec_base, "w"))
    try:
        n_params = 0
        for section, name, kind, lo, hi in params():
            n_params += 1
            for value, ok in [(lo, True), (hi, True)] + [(v, False) for v in outside(kind, lo, hi)]:
                cpu_edit = CPU_COMPANION.get((section, name, value))
                if cpu_edit:
                    doc = json.load(open(os.path.join(ROOT, "hw-profiles", "cpu", "lab-vm.json")))
                    doc.update(cpu_edit)
                    path = os.path.join(r.tmp, "cpu-%d.json" % r.n)
                    json.dump(doc, open(path, "w"))
                    r.cli(["cluster.cpu=" + path, "%s.%s=%s" % (section, name, value)], ok,
                          "%s.%s=%s" % (section, name, value), name)
                elif section.startswith("hw.cpu") or section == "hw.host":
                    profile_case(r, section, name, value, ok)
                else:
                    r.cli(COMPANION.get((section, name, value), []) + ["%s.%s=%s" % (section, name, value)], ok,
                          "%s.%s=%s" % (section, name, value), name, dry=(section, name) in DRY,
                          scenario=ec_base if (section, name) in EC_PARAMS else BASE)
        # fio's own ranges (fiojob.c): numjobs 1..4096 (REAL_MAX_JOBS), iodepth
        for opt, lo, hi in (("numjobs", 1, 4096), ("iodepth", 1, 65536)):
            for value, ok in ((lo, True), (hi, True), (lo - 1, False), (hi + 1, False)):
                r.cli(["fio.%s=%d" % (opt, value), "image.size_gib=1"], ok, "fio.%s=%d" % (opt, value), opt)
        print("range limits: %d parameters, %d runs, %d aborts, %d failures" % (n_params, r.runs, r.aborts, r.bad))
        return 1 if r.bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
