#!/usr/bin/env bash
# seeds.sh HARNESS DIR - fill DIR with the seed corpus of one harness: the
# files the project ships (scenarios/, hw-profiles/, explorer/grids/,
# tests/data/), a small simulated run's outputs (fio.json, perf dumps,
# historic ops) where the harness reads captures, and ../shared's lab
# captures when that directory is there.  Run from the tree's root.
set -euo pipefail
name=$1 dir=$2
mkdir -p "$dir"
add() { for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr / _)"; done; return 0; }
# a profile seed is the kind's byte (fuzz_hwprofile.c) then the file
add_profile() { local k=$1; shift; for f in "$@"; do printf "\\$(printf %o "$k")" | cat - "$f" > "$dir/$k-$(basename "$f")"; done; }
case $name in
fuzz_scenario) add scenarios/*.json tests/data/hw/host-*.json ;;
fuzz_fiojob) add scenarios/fio/*.fio tests/data/fio/*.fio ;;
fuzz_grid) add explorer/grids/*.json ;;
fuzz_hwprofile)
  add_profile 0 hw-profiles/cpu/*.json tests/data/hw/cpu-*.json
  add_profile 1 hw-profiles/nvme/*.json tests/data/hw/nvme-*.json
  add_profile 2 hw-profiles/nic/*.json tests/data/hw/nic-*.json
  add_profile 3 hw-profiles/switch/*.json tests/data/hw/switch-*.json
  add_profile 4 hw-profiles/host/*.json ;;
fuzz_crushdump) add tests/data/crush/*.json tests/data/lab2/cluster/osd_crush_dump.json \
  tests/data/lab2/cluster/osd_dump.json tests/data/lab2/cluster/osd_pool_ls_detail.json ;;
fuzz_trace_historic) add tests/data/trace/*.json tests/data/trace/*.json.gz \
  tests/data/lab2/cluster/osd.0.asok_dump_historic_ops*.json
  for f in tests/data/lab2/captures/*_r1/osd.0.historic.json.gz; do add "$f"; break; done ;;
fuzz_trace_iolog) add tests/data/trace/iolog_*.log ;;
fuzz_trace_latlog) add tests/data/trace/*lat*.log ;;
fuzz_trace_osdtrace)
  printf 'Tracing ceph-osd at: /usr/bin/ceph-osd\nosd 3 pg 1.2f op_r size 4096 client 77 tid 9 throttle_lat 0 recv_lat 5 dispatch_lat 8 queue_lat 12 osd_lat 30 bluestore_lat 22 op_lat 80 \nosd 3 pg 1.2f subop_w size 100 client 77 tid 10 throttle_lat 18446744073709551 recv_lat 1 dispatch_lat 1 queue_lat 1 osd_lat 1 bluestore_lat 5 (prepare 1 aio_wait 2 (aio_size 0) seq_wait 1 kv_commit 1) subop_lat 12\n' > "$dir/osdtrace.log"
  for f in ../shared/seeds/*osdtrace*.log ../shared/*/historic_ops_samples/*osdtrace*.log; do add "$f"; done ;;
fuzz_capture)
  # the harness's first byte picks the file: 0 fio.json, 1 perf dump, 2 historic ops, 3 meta.json
  n=0
  for c in tests/data/lab2/captures/*_r1; do
    [ $n -ge 4 ] && break; n=$((n + 1))
    printf '\0' | cat - "$c/fio.json" > "$dir/0-$n.json"
    printf '\1' | cat - "$c/osd.0.perf.json" > "$dir/1-$n.json"
    printf '\2' | cat - <(gzip -dc "$c/osd.0.historic.json.gz") > "$dir/2-$n.json"
    [ -f "$c/meta.json" ] && printf '\3' | cat - "$c/meta.json" > "$dir/3-$n.json"
  done ;;
*) echo "seeds.sh: unknown harness $name" >&2; exit 1 ;;
esac
[ -n "$(ls "$dir")" ]
