/*
 * tracereplay.h - captured traces (explorer/io/trace.h) as replay traces for the
 * client model (models/ceph/replay.h).
 */
#ifndef CEPHSIM_EXPLORER_IO_TRACEREPLAY_H
#define CEPHSIM_EXPLORER_IO_TRACEREPLAY_H

#include <stdint.h>

#include "err.h"
#include "replay.h"
#include "trace.h"

/* Append the reads and writes of a fio iolog (v3 timestamps, v2 summed waits). */
int tracereplay_from_iolog(struct replay_trace *tr, const struct trace_iolog *log, struct sim_err *err);
/* Append the primary osd_op reads/writes of an op-tracker dump; objects are 1 << order bytes. */
int tracereplay_from_ops(struct replay_trace *tr, const struct trace_ops *ops, uint32_t order,
                         struct sim_err *err);
/*
 * Longest span of arrival times (last - first, over all the files) an open-loop replay
 * accepts at --speed 1: one day of simulated time.  The replay walks the whole span, idle
 * or not (about 0.1 s of wall time per simulated day on lab.json, so one stray timestamp
 * 10^4 days out costs minutes), while real captures span seconds to hours (an op-tracker
 * window, a fio run): a longer span is almost surely a wild timestamp, and is refused
 * before simulating, naming the record.
 */
#define TRACEREPLAY_SPAN_MAX_NS (INT64_C(86400) * 1000000000)

/*
 * Load one or more files (iolog detected by its first line, else op-tracker dumps, gzip ok),
 * then sort by arrival (stable).  Empty files, fio latency logs and osdtrace logs (nothing a
 * replay can issue) are errors naming the file.  max_span_ns > 0: a record whose arrival
 * puts more than that between the first and last arrival is an error naming its file and
 * line (iolog) or op (dump); 0 = any span.
 */
int tracereplay_load(struct replay_trace *tr, const char *const *paths, int n, uint32_t order,
                     int64_t max_span_ns, struct sim_err *err);

#endif
