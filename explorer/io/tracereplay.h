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
/* Load one or more files (iolog detected by its first line, else op-tracker dumps, gzip ok),
   then sort by arrival (stable). */
int tracereplay_load(struct replay_trace *tr, const char *const *paths, int n, uint32_t order,
                     struct sim_err *err);

#endif
