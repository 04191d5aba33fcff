#!/usr/bin/env bash
# uprobes.sh add|del: the four uprobes of run_probe.sh MODE=uprobe on Debian's ceph-osd
# 16.2.15+ds-0+deb12u2 (addresses from its debug info: nm / objdump -dl; other builds differ).
#   osdproc    OSD::ShardedOpWQ::_process entry (0x67bb60)
#   osdenq     OSD::ShardedOpWQ::_enqueue entry (0x656540)
#   osddeq     OSD::dequeue_op entry (0x64a130)
#   osdfutile  _process OSD.cc:11033-11035: back from sdata_cond.wait, scheduler still empty
#              (and no oncommit for this thread): shard_lock.unlock(); return (0x67cfb7)
set -eu
B=/usr/bin/ceph-osd
case "$1" in
  add) perf probe -q -x $B -a 'osdproc=0x67bb60' -a 'osdenq=0x656540' -a 'osddeq=0x64a130' -a 'osdfutile=0x67cfb7' ;;
  del) perf probe -q -d 'probe_ceph:*' ;;
esac
