#!/usr/bin/env bash
# cluster_facts.sh OUTDIR -- the cluster's own outputs `cephsim import OUTDIR` reads,
# all `--format json` (read-only: it asks, it never changes anything):
#
#   osd_crush_dump.json      ceph osd crush dump
#   osd_pool_ls_detail.json  ceph osd pool ls detail
#   osd_metadata.json        ceph osd metadata          (CPU, devices, addresses)
#   config_dump.json         ceph config dump           (the mon's config database)
#   versions.json            ceph versions
#   osd.0.asok_config_diff.json  the running osd.0's non-default values
#                            (`ceph daemon osd.0 config diff` on its host, else `ceph tell`)
#   ceph.conf                the client's ceph.conf ($CEPH_CONF), secrets removed
#   rbd_images.json          `rbd info --format json` of every image of $POOL, one per line
#   osd_erasure_code_profiles.json  {NAME: `ceph osd erasure-code-profile get NAME`, ...}
#                            for every profile (k, m, stripe_unit of an EC data pool)
#
# Lab cluster (minicluster.sh):   ./cluster_facts.sh OUTDIR
# Any cluster:                    EXTERNAL=1 CEPH_CONF=/etc/ceph/ceph.conf POOL=rbd ./cluster_facts.sh OUTDIR
# The lab's data-dir path is written as ${CEPHLAB_DIR}; key = lines of ceph.conf are dropped.
set -u
set -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${1:?usage: cluster_facts.sh OUTDIR}"
POOL="${POOL:-rbd}"
if [ "${EXTERNAL:-0}" = 1 ]; then
    export CEPH_CONF="${CEPH_CONF:-/etc/ceph/ceph.conf}"
    LAB=""
else
    eval "$("$HERE/minicluster.sh" env)"
    LAB="$(dirname "$CEPH_CONF")"
fi
san() { if [ -n "$LAB" ]; then sed "s#$LAB#\${CEPHLAB_DIR}#g"; else cat; fi; }
mkdir -p "$OUT"
C() { timeout 30 ceph "$@"; }
fail=0
get() { # get FILE CMD...: one JSON output, or a line on stderr naming what failed
    local f="$1"; shift
    if ! C "$@" --format json 2>"$OUT/$f.err" | san > "$OUT/$f"; then
        echo "cluster_facts: '$*' failed: $(head -c 300 "$OUT/$f.err")" >&2
        fail=1
    else
        rm -f "$OUT/$f.err"
    fi
}
get osd_crush_dump.json osd crush dump
get osd_pool_ls_detail.json osd pool ls detail
get osd_metadata.json osd metadata
get config_dump.json config dump
get versions.json versions
# osd.0's running values: its admin socket when it is on this host, else ceph tell
if ! timeout 30 ceph daemon osd.0 config diff 2>/dev/null | san > "$OUT/osd.0.asok_config_diff.json"; then
    timeout 30 ceph tell osd.0 config diff 2>/dev/null | san > "$OUT/osd.0.asok_config_diff.json" ||
        { echo "cluster_facts: osd.0 config diff: neither its admin socket nor ceph tell answered" >&2;
          rm -f "$OUT/osd.0.asok_config_diff.json"; }
fi
# every erasure-code profile, one JSON object by name (an RBD image's data pool may be one)
{
    sep=""
    echo "{"
    for p in $(C osd erasure-code-profile ls 2>/dev/null); do
        prof="$(C osd erasure-code-profile get "$p" --format json 2>/dev/null)" || continue
        printf '%s"%s": %s\n' "$sep" "$p" "$prof"
        sep=","
    done
    echo "}"
} > "$OUT/osd_erasure_code_profiles.json"
grep -viE '^[[:space:]]*(key|secret)[[:space:]]*=' "$CEPH_CONF" | san > "$OUT/ceph.conf"
: > "$OUT/rbd_images.json"
for img in $(timeout 30 rbd ls -p "$POOL" 2>/dev/null); do
    timeout 30 rbd info --format json "$POOL/$img" >> "$OUT/rbd_images.json" && echo >> "$OUT/rbd_images.json"
done
[ -s "$OUT/rbd_images.json" ] || rm -f "$OUT/rbd_images.json"
echo "cluster facts written to $OUT (cephsim import $OUT)" >&2
exit $fail
