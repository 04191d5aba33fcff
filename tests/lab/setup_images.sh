#!/usr/bin/env bash
# setup_images.sh -- create the rbd pool and the images used by capture.sh.
# Idempotent: existing images are left alone.  Needs a running minicluster.
#
#   pool  rbd        size 3 / min_size 2, 32 PGs, application rbd
#   parent           IMG_SIZE, fully written with 4 MiB writes, snapshot @base (protected)
#   noparent         IMG_SIZE, no parent, fully written with 4 MiB writes
#   clone-written    clone of parent@base, every object written over with full-object
#                    4 MiB writes (objects exist in the child, parent link kept)
#   clone-flat       clone of parent@base, then `rbd flatten` (parent link removed)
#   clone-fresh-*    made per run by capture.sh (clone with no child objects yet)
#
# EXTERNAL=1: use an existing cluster ($CEPH_CONF, default /etc/ceph/ceph.conf); the
# pool is created only if missing, with PG_NUM placement groups and size 3.
set -eu
set -o pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ "${EXTERNAL:-0}" = 1 ]; then
    export CEPH_CONF="${CEPH_CONF:-/etc/ceph/ceph.conf}"
else
    eval "$("$HERE/minicluster.sh" env)"
fi
POOL="${POOL:-rbd}"
IMG_SIZE="${IMG_SIZE:-2G}"
PG_NUM="${PG_NUM:-32}"

log() { echo "[setup_images] $*" >&2; }
exists() { rbd info "$POOL/$1" >/dev/null 2>&1; }

# full-object sequential 4 MiB writes over the whole image
fill() { rbd bench --io-type write --io-size 4M --io-threads 4 --io-pattern seq \
             --io-total "$IMG_SIZE" "$POOL/$1" >/dev/null; }

if ! ceph osd pool ls | grep -qx "$POOL"; then
    log "creating pool $POOL ($PG_NUM PGs, size 3, min_size 2)"
    ceph osd pool create "$POOL" "$PG_NUM" "$PG_NUM" replicated
    ceph osd pool set "$POOL" size 3 --yes-i-really-mean-it
    ceph osd pool set "$POOL" min_size 2
    ceph osd pool set "$POOL" pg_autoscale_mode off
    rbd pool init "$POOL"
fi

if ! exists parent; then
    log "parent: create + fill $IMG_SIZE"
    rbd create --size "$IMG_SIZE" "$POOL/parent"
    fill parent
fi
if ! rbd snap ls "$POOL/parent" | awk '{print $2}' | grep -qx base; then
    rbd snap create "$POOL/parent@base"
fi
rbd snap protect "$POOL/parent@base" 2>/dev/null || true

if ! exists noparent; then
    log "noparent: create + fill $IMG_SIZE"
    rbd create --size "$IMG_SIZE" "$POOL/noparent"
    fill noparent
fi

if ! exists clone-written; then
    log "clone-written: clone + overwrite every object (full-object writes, no copyup)"
    rbd clone "$POOL/parent@base" "$POOL/clone-written"
    fill clone-written
fi

if ! exists clone-flat; then
    log "clone-flat: clone + rbd flatten"
    rbd clone "$POOL/parent@base" "$POOL/clone-flat"
    t0=$(date +%s.%N)
    rbd flatten --no-progress "$POOL/clone-flat"
    t1=$(date +%s.%N)
    log "flatten took $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s"
fi

for i in parent noparent clone-written clone-flat; do
    rbd info "$POOL/$i" | sed -n '1p;/features/p;/parent/p;/block_name_prefix/p'
done
rbd du -p "$POOL" 2>/dev/null || true
ceph df
