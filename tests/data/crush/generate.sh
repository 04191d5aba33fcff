#!/usr/bin/env bash
# Regenerates the CRUSH reference data in this directory with Ceph's own tools
# (Debian 12: apt-get install ceph-base ceph-mon ceph-common, Ceph 16.2.15).
#
# Most maps are made the way a real cluster makes them: a throw-away monitor
# on 127.0.0.1 (no OSD daemons, no auth), then per OSD in id order the two
# commands an OSD sends when it boots (`osd crush set-device-class`, then
# `osd crush create-or-move`), then rules and pools.  The monitor's own
# `ceph osd crush dump` / `ceph osd pool ls detail` / `ceph osd dump` are
# saved as JSON, `crushtool -d` as text, and the mappings come from
# `crushtool --test --show-mappings` (CRUSH layer) and
# `osdmaptool --test-map-pgs-dump` (pool layer: acting set and primary).
# The 1,000-OSD map is built with crushtool --add-item instead (no classes,
# so it is the same insert_item path, ~100x faster than the monitor).
#
# Also extracts crush_ln's lookup tables from libceph-common
# (crush_ln_tables.txt) for test_placement's table check.
#
#   tests/data/crush/generate.sh            rewrite everything here
#   tests/data/crush/generate.sh h10x6 ln   only these maps (h3x10 h10x6 h10x6ec unequal
#                                           classes osddomain racks h100x10 ln)
set -euo pipefail
want() { [ $# -ge 1 ] && [ -z "${only:-}" ] && return 0; case " $only " in *" $1 "*) return 0;; esac; return 1; }
only="$*"
here=$(cd "$(dirname "$0")" && pwd)
for t in ceph ceph-mon monmaptool ceph-authtool crushtool osdmaptool python3; do
  command -v "$t" >/dev/null || { echo "generate.sh: $t not found (apt-get install ceph-base ceph-mon ceph-common)" >&2; exit 1; }
done
work=$(mktemp -d)
mon_pid=""
cleanup() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid" 2>/dev/null || true; wait "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
port=$((41000 + $$ % 20000))
C() { ceph -c "$work/ceph.conf" "$@"; }

start_mon() {
  if [ -n "$mon_pid" ]; then kill "$mon_pid"; wait "$mon_pid" 2>/dev/null || true; mon_pid=""; fi
  rm -rf "$work/mon" && mkdir -p "$work/mon"
  local fsid; fsid=$(cat /proc/sys/kernel/random/uuid)
  cat > "$work/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$port
auth cluster required = none
auth service required = none
auth client required = none
ms bind ipv4 = true
log file = $work/mon/\$name.log
run dir = $work/mon
admin socket = $work/mon/\$name.asok
keyring = $work/mon/keyring
mon data = $work/mon/data.\$id
mon allow pool size one = true
mon max pg per osd = 100000
mon data avail warn = 1
mon data avail crit = 0
osd pool default pg autoscale mode = off
CONF
  ceph-authtool --create-keyring "$work/mon/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --addv a "[v2:127.0.0.1:$port]" --fsid "$fsid" "$work/mon/monmap" >/dev/null
  ceph-mon -c "$work/ceph.conf" --mkfs -i a --monmap "$work/mon/monmap" --keyring "$work/mon/keyring"
  ceph-mon -c "$work/ceph.conf" -i a -f >/dev/null 2>&1 &
  mon_pid=$!
  for _ in $(seq 50); do C -s >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "generate.sh: monitor did not start" >&2; exit 1
}

# boot_osd ID WEIGHT_TIB CLASS|- LOCATION...: what OSD::init sends for a new OSD
boot_osd() {
  local id=$1 w=$2 cls=$3; shift 3
  C osd new "$(cat /proc/sys/kernel/random/uuid)" "$id" >/dev/null
  [ "$cls" = - ] || C osd crush set-device-class "$cls" "osd.$id" >/dev/null 2>&1
  C osd crush create-or-move "osd.$id" "$w" "$@" >/dev/null 2>&1
}

pool() {  # pool NAME PG_NUM RULE
  C osd pool create "$1" "$2" "$2" replicated "$3" >/dev/null 2>&1
  C osd pool set "$1" size 3 >/dev/null 2>&1
}

# save NAME: dumps of the monitor's current maps
save() {
  local n=$1
  C osd crush dump --format json > "$here/$n.crush.json"
  C osd pool ls detail --format json > "$here/$n.pools.json"
  C osd getcrushmap -o "$work/$n.crush.bin" >/dev/null 2>&1
  crushtool -d "$work/$n.crush.bin" -o "$here/$n.txt"
  C osd getmap -o "$work/$n.osdmap" >/dev/null 2>&1
}

# xmap NAME RULE NUMREP [crushtool --weight args...]: CRUSH layer, x = 0..255
xmap() {
  local n=$1 r=$2 k=$3; shift 3
  local tag=${XTAG:-}
  crushtool -i "$work/$n.crush.bin" --test --show-mappings --rule "$r" --num-rep "$k" \
    --min-x 0 --max-x 255 "$@" 2>/dev/null > "$here/$n.rule$r.rep$k$tag.txt"
}

# pgmap NAME POOL [osdmaptool --mark-out args...]: pool layer, every PG
pgmap() {
  local n=$1 p=$2; shift 2
  osdmaptool "$work/$n.osdmap" --mark-up-in "$@" --test-map-pgs-dump --pool "$p" 2>/dev/null \
    | grep -v '^marking' > "$here/$n.pool$p.txt"
}

if want h3x10; then
# --- h3x10: the seed cluster (3 x 10 PM983 3.84 TB = 3.4931 TiB), pool rbd 1024 PGs
start_mon
for o in $(seq 0 29); do boot_osd "$o" 3.4931 - root=default "host=host$((o / 10))"; done
pool rbd 1024 replicated_rule
save h3x10
xmap h3x10 0 3
pgmap h3x10 1
osdmaptool "$work/h3x10.osdmap" --mark-up-in --test-map-pgs --pool 1 2>/dev/null \
  | grep -v '^marking' > "$here/h3x10.pool1.counts.txt"
fi

if want h10x6; then
# --- h10x6: osd.23 out (reweight 0; osdmaptool honours one --mark-out only),
#     partial reweights and more outs at the CRUSH layer
start_mon
for o in $(seq 0 59); do boot_osd "$o" 1.0 - root=default "host=host$((o / 6))"; done
pool rbd 512 replicated_rule
C osd out 23 >/dev/null 2>&1
save h10x6
xmap h10x6 0 3
XTAG=.reweight xmap h10x6 0 3 --weight 5 0.5 --weight 11 0 --weight 40 0.25
pgmap h10x6 1 --mark-out 23
fi

if want h10x6ec; then
# --- h10x6ec: h10x6's hosts with an erasure-coded pool (profile k=4 m=2,
#     crush-failure-domain host): the rule `ceph osd pool create NAME erasure`
#     makes (ErasureCode::create_rule: indep) and its positional acting sets
start_mon
for o in $(seq 0 59); do boot_osd "$o" 1.0 - root=default "host=host$((o / 6))"; done
C osd erasure-code-profile set ec42 k=4 m=2 crush-failure-domain=host >/dev/null 2>&1
C osd pool create ecpool 256 256 erasure ec42 >/dev/null 2>&1
save h10x6ec
xmap h10x6ec 1 6
pgmap h10x6ec 1
fi

if want unequal; then
# --- unequal: 4 hosts x 5 OSDs of mixed sizes
start_mon
ws=(1.7466 1.7466 1.7466 1.7466 1.7466  3.4931 3.4931 3.4931 3.4931 3.4931
    0.5 1.0 2.0 4.0 8.0  7.2767 7.2767 0.9 7.2767 13.9702)
for o in $(seq 0 19); do boot_osd "$o" "${ws[$o]}" - root=default "host=host$((o / 5))"; done
pool rbd 1024 replicated_rule
save unequal
xmap unequal 0 3
pgmap unequal 1
fi

if want classes; then
# --- classes: 4 hosts x 6 OSDs, the first 2 of each host ssd, the rest hdd;
#     rule 1 takes only ssd, rule 2 is an indep (EC-style) rule
start_mon
for o in $(seq 0 23); do
  if [ $((o % 6)) -lt 2 ]; then boot_osd "$o" 0.8733 ssd root=default "host=host$((o / 6))"
  else boot_osd "$o" 7.2767 hdd root=default "host=host$((o / 6))"; fi
done
C osd crush rule create-replicated replicated_ssd default host ssd >/dev/null
C osd crush rule create-simple indep_host default host indep >/dev/null
pool fast 256 replicated_ssd
pool rbd 512 replicated_rule
C osd out 3 >/dev/null 2>&1
save classes
C osd dump --format json > "$here/classes.osd-dump.json"
xmap classes 0 3
xmap classes 1 3
xmap classes 2 4
pgmap classes 1 --mark-out 3
pgmap classes 2 --mark-out 3
fi

if want osddomain; then
# --- osddomain: 2 hosts x 8 OSDs, replicas on distinct OSDs (rule 1)
start_mon
for o in $(seq 0 15); do boot_osd "$o" 1.0 - root=default "host=host$((o / 8))"; done
C osd crush rule create-replicated byosd default osd >/dev/null
pool rbd 256 byosd
save osddomain
xmap osddomain 1 3
pgmap osddomain 1
fi

if want racks; then
# --- racks: 6 hosts x 4 OSDs in 2 racks (host h in rack h % 2); rule 1 by rack
start_mon
for o in $(seq 0 23); do
  h=$((o / 4)); boot_osd "$o" 1.0 - root=default "rack=rack$((h % 2))" "host=host$h"
done
C osd crush rule create-replicated byrack default rack >/dev/null
pool rbd 256 replicated_rule
pool byrack 256 byrack
save racks
xmap racks 0 3
XTAG= xmap racks 1 2
pgmap racks 1
pgmap racks 2
fi

if want h100x10; then
# --- h100x10: 100 hosts x 10 OSDs, weight 1.0, built with crushtool
n=h100x10
cat > "$work/base.txt" <<'MAP'
tunable choose_local_tries 0
tunable choose_local_fallback_tries 0
tunable choose_total_tries 50
tunable chooseleaf_descend_once 1
tunable chooseleaf_vary_r 1
tunable chooseleaf_stable 1
tunable straw_calc_version 1
tunable allowed_bucket_algs 54
type 0 osd
type 1 host
type 2 chassis
type 3 rack
type 4 row
type 5 pdu
type 6 pod
type 7 room
type 8 datacenter
type 9 zone
type 10 region
type 11 root
root default {
	id -1
	alg straw2
	hash 0
}
rule replicated_rule {
	id 0
	type replicated
	min_size 1
	max_size 10
	step take default
	step chooseleaf firstn 0 type host
	step emit
}
MAP
crushtool -c "$work/base.txt" -o "$work/$n.crush.bin"
for o in $(seq 0 999); do
  crushtool -i "$work/$n.crush.bin" --add-item "$o" 1.0 "osd.$o" --loc host "host$((o / 10))" \
    --loc root default -o "$work/$n.crush.bin" >/dev/null 2>&1
done
crushtool -d "$work/$n.crush.bin" -o "$here/$n.txt"
crushtool -i "$work/$n.crush.bin" --dump -f json > "$here/$n.crush.json"
osdmaptool "$work/$n.osdmap" --createsimple 1000 --with-default-pool --clobber >/dev/null 2>&1
osdmaptool "$work/$n.osdmap" --import-crush "$work/$n.crush.bin" >/dev/null 2>&1
# the 1,000-OSD `osdmaptool --dump json` is ~0.5 MB: keep only its pools array
osdmaptool "$work/$n.osdmap" --dump json 2>/dev/null \
  | python3 -c 'import json,sys; print(json.dumps({"pools": json.load(sys.stdin)["pools"]}))' \
  > "$here/$n.pools.json"
xmap h100x10 0 3
osdmaptool "$work/$n.osdmap" --mark-up-in --test-map-pgs-dump --pool 1 --pg_num 4096 2>/dev/null \
  | grep -v '^marking' > "$here/$n.pool1.txt"
fi

if want ln; then
# --- crush_ln's tables, read out of the library crushtool runs
lib=$(ldd "$(command -v crushtool)" | awk '/libceph-common/ {print $3}')
python3 - "$lib" > "$here/crush_ln_tables.txt" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
def find(first):
    pat = struct.pack('<3q', *first)
    i = data.find(pat)
    assert i >= 0 and data.find(pat, i + 1) < 0, "table not found exactly once"
    return i
rh = struct.unpack('<258q', data[find((0x1000000000000, 0, 0xfe03f80fe040)):][:258 * 8])
ll = struct.unpack('<256q', data[find((0, 0x2e2a60a00, 0x70cb64ec5)):][:256 * 8])
print("# crush_ln tables read from %s: RH_LH (258) then LL (256), hex" % sys.argv[1].split('/')[-1])
for v in rh + ll:
    print("%016x" % v)
PY
fi

if [ -n "$mon_pid" ]; then kill "$mon_pid"; wait "$mon_pid" 2>/dev/null || true; mon_pid=""; fi
echo "generate.sh: done" >&2
