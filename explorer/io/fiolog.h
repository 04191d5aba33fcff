/*
 * fiolog.h - the files fio's per-I/O logging options write, written from a
 * run's I/O stream as fio 3.33 writes them, so fio's own tools
 * (fio_generate_plots, fiologparser, fio-plot -g) read cephsim's.
 *
 *  - write_lat_log[=PREFIX]: PREFIX_lat.N.log, PREFIX_slat.N.log,
 *    PREFIX_clat.N.log (values in ns);
 *  - write_bw_log[=PREFIX]: PREFIX_bw.N.log (KiB/s);
 *  - write_iops_log[=PREFIX]: PREFIX_iops.N.log;
 *  - write_iolog=FILE: fio's iolog version 3 (µs timestamps; what
 *    read_iolog and `cephsim replay` read).
 * N is fio's thread_number (1-based over every job clone); per_job_logs=0
 * drops it.  PREFIX defaults to the job's name.  Lines are "time (ms),
 * value, direction, block size, [offset,] priority" (iolog.c
 * flush_samples; log_offset=1 adds the offset).  log_avg_msec=0 logs every
 * I/O (stat.c add_*_sample); log_avg_msec=M logs per direction the mean of
 * each M ms window (add_log_sample, __add_stat_to_log: mean + 0.5 truncated,
 * block size and offset 0) and the bandwidth and IOPS over each M ms
 * interval (__add_samples); averaged lines carry block size and offset 0
 * (__add_stat_to_log), as fio's do.
 */
#ifndef CEPHSIM_EXPLORER_IO_FIOLOG_H
#define CEPHSIM_EXPLORER_IO_FIOLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster.h"
#include "err.h"
#include "workload.h"

struct fiolog;

/*
 * Open, in dir, the logs jobs ask for: slot_job[i] is the job of result slot
 * i (fio's thread_number i + 1), slot_name[i] its name.  *out is NULL when no
 * job asks for a log.  Names that are paths keep only their last component
 * (the logs stay in the run directory).  Returns 0 or a negative errno (err
 * names the file).
 */
int fiolog_open(struct fiolog **out, const char *dir, const struct workload_job *const *slot_job,
                const char *const *slot_name, uint32_t n_slots, struct sim_err *err);

/* The observer feeding l (cluster_set_io_observer); t0 = when measuring starts is read at each event. */
struct cluster_io_observer fiolog_observer(struct fiolog *l, const struct cluster *c);

/*
 * Finish the logs at end_ns (simulated time the run stopped, measured from
 * t = 0): the last averaging windows, the iolog's close line; close every
 * file.  Lists the names written into names (may be NULL) as a cJSON-free
 * '\n'-separated string the caller frees.  Returns 0 or a negative errno.
 */
int fiolog_close(struct fiolog *l, sim_time_t end_ns, char **names, struct sim_err *err);

#endif
