#!/usr/bin/env bash
# mpi_check.sh - an MPI sweep on localhost must equal the local one.
#
#   tests/mpi_check.sh [BINDIR]      (default: out/bin; run from the repo root)
#
# Runs a tiny grid with `cephsim sweep -j 2` and with
# `mpirun --allow-run-as-root --oversubscribe -n 3 cephsim sweep --mpi`
# (rank 0 writes, ranks 1-2 run), then compares every run and its metrics
# (all but wall time, worker and dates) with `cephsim query --sql`, and checks
# that rerunning the MPI sweep resumes with nothing to do.  Skips (exit 0 with
# a message) when mpirun or cephsim-mpi is missing; exit 1 on a difference.
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=${1:-out/bin}
cephsim=$bindir/cephsim

if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi_check: SKIPPED: mpirun not found (apt-get install -y openmpi-bin libopenmpi-dev)"
  exit 0
fi
if [ ! -x "$bindir/cephsim-mpi" ]; then
  echo "mpi_check: SKIPPED: $bindir/cephsim-mpi not built (tools/configure adds it where mpicc exists)"
  exit 0
fi
if [ ! -x "$cephsim" ]; then
  echo "mpi_check: $cephsim not built" >&2
  exit 1
fi

tmp=$(mktemp -d /tmp/cephsim-mpi-check-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/grid.json" <<'EOF'
{"name": "mpi-check", "base": "scenarios/qd1-latency.json",
 "set": {"sim.duration_s": 0.05, "sim.warmup_s": 0.01, "cluster.hosts": 2, "cluster.osds_per_host": 1,
         "pool.size": 2, "pool.pg_num": 16},
 "axes": {"fio.iodepth": [1, 4, 16], "cluster.nic": ["10gbase-t", "100gbe"]},
 "replications": 2}
EOF

"$cephsim" sweep "$tmp/grid.json" --db "$tmp/local.db" -j 2 -q
mpirun --allow-run-as-root --oversubscribe -n 3 "$cephsim" sweep "$tmp/grid.json" --db "$tmp/mpi.db" --mpi -q

rows="SELECT r.point_id, r.replication, r.seed, r.status, r.events, m.* FROM runs r
      JOIN metrics m ON m.point_id = r.point_id AND m.replication = r.replication ORDER BY 1, 2"
"$cephsim" query "$tmp/local.db" --csv --sql "$rows" > "$tmp/local.csv"
"$cephsim" query "$tmp/mpi.db" --csv --sql "$rows" > "$tmp/mpi.csv"
n=$(($(wc -l < "$tmp/local.csv") - 1))
if [ "$n" -ne 12 ]; then
  echo "mpi_check: FAILED: the local sweep has $n runs, expected 12" >&2
  exit 1
fi
if ! cmp -s "$tmp/local.csv" "$tmp/mpi.csv"; then
  echo "mpi_check: FAILED: the MPI sweep differs from the local one:" >&2
  diff "$tmp/local.csv" "$tmp/mpi.csv" | head -20 >&2
  exit 1
fi
ranks=$("$cephsim" query "$tmp/mpi.db" --csv --sql "SELECT count(DISTINCT worker) FROM runs" | tail -1)
out=$(mpirun --allow-run-as-root --oversubscribe -n 3 "$cephsim" sweep "$tmp/grid.json" --db "$tmp/mpi.db" --mpi 2>&1)
case "$out" in
  *"0 done now, 12 already done"*) ;;
  *) echo "mpi_check: FAILED: rerunning the MPI sweep did not resume: $out" >&2; exit 1 ;;
esac
echo "mpi_check: OK: 12 runs over $ranks MPI worker ranks equal the local sweep; a rerun resumes"
