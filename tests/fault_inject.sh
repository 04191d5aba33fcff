#!/usr/bin/env bash
# fault_inject.sh - the result writers under faults, in the manner of
# SQLite's own fault tests: a full file system (ulimit -f: writes past the
# limit fail with EFBIG; /dev/full for stdout), a read-only directory (as an
# unprivileged user: root ignores permission bits), an existing file at the
# output path, and kill -9 at random points of a sweep, then resume.  For
# every writer (run -o, replay -o, plot -o, sweep --db): the command fails
# with one line on stderr naming the file, and nothing written before is lost
# or damaged (byte-identical run directories, the same database rows,
# PRAGMA integrity_check ok).
#
#   tests/fault_inject.sh [BINDIR]
# Prints one line per case and "fault injection: N cases, N ok[, N skipped]".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$(cd "${1:-out/bin}" && pwd)/cephsim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cephsim-fault-XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cases=0 bad=0 skipped=0
FAST=(--set sim.duration_s=0.005 --set sim.warmup_s=0 --set sim.replications=1)
scen=$root/scenarios/lab.json

ok() { cases=$((cases + 1)); printf 'ok    %s\n' "$1"; }
fail() { cases=$((cases + 1)); bad=$((bad + 1)); printf 'FAIL  %s: %s\n' "$1" "$2"; }
skip() { cases=$((cases + 1)); skipped=$((skipped + 1)); printf 'skip  %s: %s\n' "$1" "$2"; }
tree_sum() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum) | md5sum; }
# expect_error LABEL NAME CMD...: non-zero exit (no signal), one stderr line containing NAME
expect_error() {
  local label=$1 name=$2; shift 2
  "$@" >out.txt 2>err.txt
  local rc=$?
  local lines
  lines=$(wc -l < err.txt)
  if [ $rc -eq 0 ]; then fail "$label" "exit 0"; return 1; fi
  if [ $rc -ge 128 ]; then fail "$label" "killed by signal $((rc - 128)): $(tail -c 300 err.txt)"; return 1; fi
  if [ "$lines" -ne 1 ]; then fail "$label" "$lines lines on stderr: $(head -c 400 err.txt)"; return 1; fi
  if ! grep -qF -- "$name" err.txt; then fail "$label" "does not name $name: $(cat err.txt)"; return 1; fi
  return 0
}

# ---- run -o: a complete earlier run stays as it was whatever fails after it
"$bin" run "$scen" "${FAST[@]}" -q -o prev >/dev/null 2>&1 || { echo "setup run failed"; exit 1; }
before=$(tree_sum prev)

# an existing plain file at the output path
echo "my notes" > notes.txt
if expect_error "run -o FILE (an existing file)" notes.txt "$bin" run "$scen" "${FAST[@]}" -q -o notes.txt; then
  [ "$(cat notes.txt)" = "my notes" ] && ok "run -o FILE: refused, the file kept" || fail "run -o FILE" "file changed"
fi
# a directory cephsim did not write
mkdir -p mine && echo data > mine/keep.txt
if expect_error "run -o DIR (not a cephsim run)" mine "$bin" run "$scen" "${FAST[@]}" -q -o mine; then
  [ "$(cat mine/keep.txt)" = data ] && ok "run -o DIR of other files: refused, the files kept" || fail "run -o DIR" "lost"
fi
# a full file system: writes fail past 2 KiB (ulimit -f counts 512-byte blocks; fio.json is ~5 KiB)
if expect_error "run -o, file system full" prev bash -c 'trap "" XFSZ; ulimit -f 4; exec "$@"' _ \
  "$bin" run "$scen" "${FAST[@]}" -q -o prev; then
  [ "$(tree_sum prev)" = "$before" ] && ok "run -o on a full file system: one-line error, the earlier run intact" ||
    fail "run -o full" "the earlier run changed"
fi
ls -d prev.tmp.* >/dev/null 2>&1 && fail "run -o full" "left a temporary directory behind"
# a read-only directory, as an unprivileged user (root ignores the permission bits)
mkdir -p ro && chmod 555 ro
as_user=()
if [ "$(id -u)" -ne 0 ]; then
  as_user=()
elif command -v setpriv >/dev/null 2>&1; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
  skip "run -o in a read-only directory" "root without setpriv: permission bits do not apply"
elif ! "${as_user[@]}" test -x "$bin"; then
  skip "run -o in a read-only directory" "the unprivileged user cannot reach $bin"
else
  if expect_error "run -o, read-only directory" ro/out "${as_user[@]}" "$bin" run "$scen" "${FAST[@]}" -q -o ro/out; then
    [ -z "$(ls -A ro)" ] && ok "run -o in a read-only directory: one-line error naming it" || fail "run -o ro" "wrote"
  fi
fi

# ---- replay -o: the same promises
# a v3 iolog (timed: a v2 log without 'wait' lines adds a note on stderr)
printf 'fio version 3 iolog\n0 f add\n0 f open\n100 f write 0 4096\n200 f write 4096 4096\n300 f read 0 4096\n400 f close\n' > t.iolog
"$bin" replay t.iolog --scenario "$scen" -q -o rprev >/dev/null 2>&1 || { echo "setup replay failed"; exit 1; }
rbefore=$(tree_sum rprev)
if expect_error "replay -o, file system full" rprev bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' _ \
  "$bin" replay t.iolog --scenario "$scen" -q -o rprev; then
  [ "$(tree_sum rprev)" = "$rbefore" ] && ok "replay -o on a full file system: one-line error, the earlier output intact" ||
    fail "replay -o full" "the earlier output changed"
fi
if expect_error "replay -o FILE" notes.txt "$bin" replay t.iolog --scenario "$scen" -q -o notes.txt; then
  [ "$(cat notes.txt)" = "my notes" ] && ok "replay -o FILE: refused, the file kept" || fail "replay -o FILE" "changed"
fi

# ---- plot -o
if command -v gnuplot >/dev/null 2>&1; then
  if expect_error "plot -o FILE" notes.txt "$bin" plot prev -o notes.txt; then
    [ "$(cat notes.txt)" = "my notes" ] && ok "plot -o FILE: refused, the file kept" || fail "plot -o FILE" "changed"
  fi
  if expect_error "plot -o, file system full" figs bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' _ \
    "$bin" plot prev -o figs; then
    ok "plot -o on a full file system: one-line error naming the file"
  fi
else
  skip "plot -o" "no gnuplot"
fi

# ---- stdout on a full device
if expect_error "list-params > /dev/full" "standard output" bash -c 'exec "$@" > /dev/full' _ "$bin" list-params; then
  ok "a report to a full stdout (/dev/full): exit 1, one line"
fi

# ---- sweep --db: a full disk, then kill -9 at random points and resume
cat > g.json <<EOF
{"name": "fi", "base": "$scen", "set": {"sim.duration_s": 0.02, "sim.warmup_s": 0},
 "axes": {"fio.iodepth": [1, 2, 4], "ceph.rbd_io_scheduler": ["none", "simple"]}, "replications": 2}
EOF
rows() { sqlite3 "$1" "select * from metrics order by point_id, replication" | md5sum; }
"$bin" sweep g.json --db ref.db -j 2 -q >/dev/null 2>&1 || { echo "reference sweep failed"; exit 1; }
ref=$(rows ref.db)
nref=$(sqlite3 ref.db "select count(*) from metrics")
[ "$nref" -eq 12 ] || fail "reference sweep" "$nref rows, want 12"

# a full disk: a second sweep of more points into a copy of the database;
# its write-ahead log cannot grow past 20 KiB (the sweep's first rows fit)
cp ref.db full.db
sed 's/"fio.iodepth": \[1, 2, 4\]/"fio.iodepth": [1, 2, 4, 8, 16, 32, 64]/; s/"name": "fi"/"name": "fi2"/' g.json > g2.json
of_fi() { sqlite3 "$1" "select m.* from metrics m join sweep_points sp using (point_id) join sweeps s using (sweep_id)
                       where s.name = 'fi' order by m.point_id, m.replication" | md5sum; }
ref_fi=$(of_fi ref.db)
if expect_error "sweep, file system full" full.db bash -c 'trap "" XFSZ; ulimit -f 40; exec "$@"' _ \
  "$bin" sweep g2.json --db full.db -j 2 -q; then
  if [ "$(sqlite3 full.db 'pragma integrity_check')" = ok ] && [ "$(of_fi full.db)" = "$ref_fi" ]; then
    ok "sweep on a full file system: one-line error naming the database, integrity ok, the earlier rows kept"
  else
    fail "sweep full" "database damaged or rows lost"
  fi
fi
# resumed with room: the rest of the points, the earlier ones unchanged
if "$bin" sweep g2.json --db full.db -j 2 -q >/dev/null 2>&1 && [ "$(of_fi full.db)" = "$ref_fi" ] &&
   [ "$(sqlite3 full.db 'select count(*) from metrics')" -eq 28 ]; then
  ok "sweep resumed after the full disk: all 28 runs of the second grid, the first grid's rows unchanged"
else
  fail "sweep resume after full" "rows missing or changed"
fi

# kill -9 at random points, then resume: exactly the rows of an uninterrupted sweep
RANDOM=16
trials=${FAULT_KILL_TRIALS:-12}
good=0
for t in $(seq 1 "$trials"); do
  rm -f k.db k.db-journal k.db-wal k.db-shm
  kills=0
  for attempt in 1 2 3; do
    setsid "$bin" sweep g.json --db k.db -j 2 -q >/dev/null 2>&1 &
    pid=$!
    sleep "0.$(printf '%03d' $((RANDOM % 900 + 20)))"
    kill -9 -- -"$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
  done
  "$bin" sweep g.json --db k.db -j 2 -q >/dev/null 2>err.txt
  rc=$?
  if [ $rc -ne 0 ]; then
    fail "kill -9 trial $t" "resume exit $rc: $(head -c 300 err.txt)"
  elif [ "$(sqlite3 k.db 'pragma integrity_check')" != ok ]; then
    fail "kill -9 trial $t" "integrity_check failed"
  elif [ "$(rows k.db)" != "$ref" ]; then
    fail "kill -9 trial $t" "rows differ from the uninterrupted sweep"
  else
    good=$((good + 1))
  fi
done
[ "$good" -eq "$trials" ] && ok "kill -9 at random points of a sweep ($trials trials, 3 kills each), resumed: $good of $trials identical to the uninterrupted sweep"

echo "fault injection: $cases cases, $((cases - bad - skipped)) ok, $bad failed$([ $skipped -gt 0 ] && echo ", $skipped skipped")"
if [ $skipped -gt 0 ]; then echo "SKIPPED: $skipped fault cases (see above)"; fi
[ $bad -eq 0 ]
