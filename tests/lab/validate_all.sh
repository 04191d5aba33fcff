#!/usr/bin/env bash
# validate_all.sh CAPTURES [SCENARIO] -- run `cephsim validate --run SCENARIO` on every
# run directory under CAPTURES (default scenario scenarios/lab.json) and print one line
# per run: PASS/FAIL/ERROR, IOPS and clat mean real vs simulated.  Tables and CDF plots
# go to $OUT/<run>/ (default out/validate).  Runs from the repository root.
#   CEPHSIM=path/to/cephsim   (default out/bin/cephsim)
#   TOLERANCE=iops=20%,...    passed to --tolerance
#   SETS="ceph.x=y ..."       extra --set for every simulation
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CAPS="${1:?usage: validate_all.sh CAPTURES [SCENARIO]}"
SCEN="${2:-scenarios/lab.json}"
CAPS="$(cd "$CAPS" && pwd)"
cd "$ROOT"
CEPHSIM="${CEPHSIM:-out/bin/cephsim}"
OUT="${OUT:-out/validate}"
mkdir -p "$OUT"
extra=()
[ -n "${TOLERANCE:-}" ] && extra+=(--tolerance "$TOLERANCE")
for s in ${SETS:-}; do extra+=(--set "$s"); done
for d in "$CAPS"/*/; do
    [ -f "$d/fio.json" ] || continue
    name="$(basename "$d")"
    "$CEPHSIM" validate --real "$d" --run "$SCEN" --sim "$OUT/$name" "${extra[@]}" \
        > "$OUT/$name.txt" 2> "$OUT/$name.err"
    rc=$?
    case $rc in 0) res=PASS ;; 1) res=FAIL ;; *) res=ERROR ;; esac
    line="$(python3 - "$OUT/$name/validate/validate.json" 2>/dev/null <<'PY'
import json, sys
rows = {r["key"]: r for r in json.load(open(sys.argv[1]))["rows"]}
print("  ".join("%s %.0f/%.0f (%+.0f%%)" % (k, rows[k]["real"], rows[k]["sim"], 100 * rows[k]["rel_error"])
                for k in ("iops", "lat_mean", "lat_p99")))
PY
)"
    printf '%-5s %-48s %s\n' "$res" "$name" "$line"
done
