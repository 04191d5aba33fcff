/*
 * trace.h - importers of captured op traces, for `cephsim replay`, `validate` and `plot`.
 *
 * Four formats, each read into one flat container that owns all its memory:
 *   - Ceph OSD op-tracker dumps (`dump_historic_ops`, `_by_duration`, `dump_ops_in_flight`,
 *     `dump_historic_slow_ops`, `dump_blocked_ops`), every shape from Hammer to Squid,
 *     with a parser for the op `description` strings (trace_historic.c, trace_desc.c;
 *     the container and its queries in trace_ops.c);
 *   - fio iologs (`write_iolog`/`read_iolog`, versions 2 and 3: trace_iolog.c);
 *   - fio per-I/O logs (`write_lat_log`: *_lat.N.log, *_clat.N.log, *_slat.N.log:
 *     trace_latlog.c);
 *   - the eBPF `osdtrace` per-op stage log (taodd/cephtrace: trace_osdtrace.c).
 * Files are read plain or gzip'd, through zlib, and at most TRACE_READ_MAX bytes of text
 * (trace_slurp.c).  Each format is also an entry of one importer table (struct
 * trace_format, trace.c) for callers that must find out what a file holds.
 * Every loader returns 0 or a negative errno and fills a struct sim_err with one line that
 * names the file and the line, byte offset or JSON path at fault.
 */
#ifndef CEPHSIM_EXPLORER_IO_TRACE_H
#define CEPHSIM_EXPLORER_IO_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* "No such time or interval": negative intervals are real in op-tracker dumps, so -1 is not used. */
#define TRACE_NS_NONE INT64_MIN

/* ------------------------------------------------------------------ importers: trace.c */

/* Flags of trace_load() and of the typed loaders; each importer reads those meant for it. */
#define TRACE_LOAD_SALVAGE 1u        /* op-tracker dumps: on malformed JSON or a truncated
                                        gzip, recover every (partial) op found */
#define TRACE_LOAD_LAT_OFFSET 2u     /* latency logs: a 5th column is an offset */
#define TRACE_LOAD_LAT_NO_OFFSET 4u  /* latency logs: no offset column (neither: guess) */

/*
 * One importer, in the manner of fio's ioengine_ops: what a caller needs to read a file
 * whose format it does not know beforehand.  The typed functions further down
 * (trace_ops_parse(), trace_iolog_parse(), ...) are the same importers for callers that do.
 */
struct trace_format {
    const char *name;          /* "historic", "iolog", "latlog", "osdtrace" */
    size_t size;               /* size of the container parse() fills (struct trace_ops, ...) */
    /* Whether text looks like this format; reads only its first bytes or lines. */
    bool (*sniff)(const char *text, size_t len);
    /* Parse text[0..len) into out (size bytes); name is used in messages.  0 or -errno;
       on error out holds nothing to free. */
    int (*parse)(const char *name, const char *text, size_t len, unsigned flags, void *out,
                 struct sim_err *err);
    /* Release what parse() put into out; out is zeroed. */
    void (*free)(void *out);
    /* Optional: note in out that the file was cut short (a truncated or corrupt gzip) and
       parse() worked on what could be read; why is the read error.  Called only with
       TRACE_LOAD_SALVAGE.  NULL: such a file is an error, as it is without the flag. */
    void (*damaged)(void *out, const char *why);
};

extern const struct trace_format trace_historic_format;  /* op-tracker JSON dumps */
extern const struct trace_format trace_iolog_format;     /* fio iolog v2 / v3 */
extern const struct trace_format trace_latlog_format;    /* fio lat/clat/slat logs */
extern const struct trace_format trace_osdtrace_format;  /* eBPF osdtrace log */

/* Every importer, in the order trace_format_sniff() tries them; NULL-terminated. */
extern const struct trace_format *const trace_formats[];

/* The first importer whose sniff() accepts text[0..len), or NULL if none does. */
const struct trace_format *trace_format_sniff(const char *text, size_t len);

/* Read path with trace_slurp() and parse it with fmt into out (zeroed first); flags as
   for fmt->parse(), TRACE_LOAD_SALVAGE also letting fmt->damaged() take a cut-off gzip. */
int trace_load(const struct trace_format *fmt, const char *path, unsigned flags, void *out,
               struct sim_err *err);

/* ------------------------------------------------------------------ reading: trace_slurp.c */

/* Most text any importer reads from one file (after gunzip): the limit ends the read of
   /dev/zero, an endless pipe or a gzip bomb with an error naming the file. */
#define TRACE_READ_MAX ((size_t)1 << 30)

/*
 * Read a whole file, gunzipping it (magic 1f 8b, zlib) when it is compressed; NUL-terminated,
 * *len (may be NULL) without the NUL.  A truncated or corrupt gzip, a read error and more
 * than TRACE_READ_MAX bytes are errors that name the file.
 */
int trace_slurp(const char *path, char **out, size_t *len, struct sim_err *err);

/* ------------------------------------------------------------------ descriptions: trace_desc.c */

struct trace_ops;  /* below: descriptions keep their strings in an op-tracker container */

enum trace_desc_kind {
    TRACE_DESC_OTHER = 0,     /* not an OSD client/replica op (or unparsed) */
    TRACE_DESC_OSD_OP,        /* osd_op(...): a client op on the primary */
    TRACE_DESC_REPOP,         /* osd_repop(...) (osd_sub_op before Jewel): replica write */
    TRACE_DESC_REPOP_REPLY,   /* osd_repop_reply(...) / osd_sub_op_reply(...) on the primary */
};

/* One element of an osd_op op vector, e.g. "write 4141056~4096 [fadvise_sequential]". */
struct trace_osdop {
    const char *name;         /* "write", "writefull", "stat", "call", "set-alloc-hint", ... */
    int64_t offset, length;   /* the "OFF~LEN" extent; -1 when the element has none */
    const char *extra;        /* rest of the element verbatim ("rbd.copyup in=10b",
                                 "[fadvise_sequential]", "object_size 4194304 write_size
                                 4194304", "in=4096b"); "" when nothing follows */
};

/* Fields of a parsed description; absent numbers are -1, absent strings "". */
struct trace_desc {
    enum trace_desc_kind kind;
    const char *msg;          /* message name before '(' ("osd_op", "osd_repop", ...) */
    const char *entity;       /* request source of the reqid ("client.4118") */
    int64_t inc, tid;         /* reqid "client.4118.0:47" -> inc 0, tid 47 */
    int64_t pool;             /* from the object locator or the pgid */
    const char *pgid;         /* "4.298", "2.1cs0", Hammer raw pg "2.8eb4757c" */
    const char *object;       /* object name ("rbd_data.2f65e994b93ec.0000000000002ca8") */
    const char *snap;         /* "head", a snap id, or "" */
    size_t osdop_first;       /* op vector: osdops[osdop_first .. +n_osdops) of the container */
    size_t n_osdops;
    const char *flags;        /* "ondisk+write+known_if_redirected"; repop reply: "ondisk" */
    int64_t epoch;            /* osdmap epoch ("e196"; repop "e24/16" -> 24) */
    int64_t min_epoch;        /* repop "e24/16" -> 16 */
    const char *version;      /* repop "v 24'83543" -> "24'83543" */
    int64_t result;           /* repop reply "result = 0"; INT64_MIN when absent */
    int64_t retry;            /* "RETRY=N", else 0 */
};

/*
 * Parse an op description; strings and the op vector are stored in t (which may be a
 * zeroed container used only for this).  Unknown message types give kind OTHER and 0;
 * a known one that does not parse is -EINVAL ("what: osd_op: bad reqid 'x'").
 */
int trace_desc_parse(struct trace_ops *t, const char *text, struct trace_desc *d,
                     const char *what, struct sim_err *err);

/* Name of a description kind ("osd_op", "repop", "repop_reply", "other"). */
const char *trace_desc_kind_name(enum trace_desc_kind k);

/* The op vector of a description (n = d->n_osdops); NULL when it is empty. */
const struct trace_osdop *trace_desc_osdops(const struct trace_ops *t, const struct trace_desc *d);

/* ------------------------------------------------------------------ op tracker: trace_ops.c */

/* One tracked event ("initiated", "queued_for_pg", "waiting for subops from 1,2", ...). */
struct trace_event {
    const char *name;         /* verbatim, interned in the container */
    int64_t t_ns;             /* event time, ns since the Unix epoch (UTC) */
    int64_t dur_ns;           /* reported "duration" (Octopus+), TRACE_NS_NONE if absent;
                                 a wrapped value is replaced by the signed gap recomputed
                                 from the timestamps */
    bool dur_wrapped;         /* reported as 4294967295.99... (negative utime_t) */
};

struct trace_op {
    const char *description;  /* verbatim */
    struct trace_desc desc;   /* parsed description */
    int64_t initiated_ns;     /* initiated_at (received_at before Jewel), ns since epoch */
    double age_s;             /* NAN when absent */
    int64_t duration_ns;      /* reported duration; recomputed when wrapped; TRACE_NS_NONE */
    bool duration_wrapped;
    const char *flag_point;   /* "" when absent */
    const char *client;       /* client_info.client, "" for replica ops */
    const char *client_addr;
    int64_t client_tid;       /* -1 when absent */
    size_t ev_first, n_ev;    /* events[ev_first .. +n_ev) of the container, in dump order */
    bool truncated;           /* salvaged from a cut-off file: trailing fields/events missing */
};

/* Container of one dump.  Everything is owned by it; release with trace_ops_free(). */
struct trace_ops {
    struct trace_op *ops;
    size_t n;
    struct trace_event *events;  /* all ops' events, op by op */
    size_t n_events;
    struct trace_osdop *osdops;  /* all descriptions' op vectors */
    size_t n_osdops;
    int64_t hist_size;           /* "size" / "num to keep" / "num_ops"; -1 when absent */
    double hist_duration_s;      /* "duration" / "duration to keep" / "threshold to keep"; NAN */
    bool salvaged;               /* loaded with TRACE_LOAD_SALVAGE from a damaged file */
    char damage[512];            /* when salvaged: the file's parse error and what was recovered */
    /* private to trace_ops.c */
    size_t cap_ops, cap_events, cap_osdops;
    char **blocks;               /* string arena: blocks never move, so pointers stay valid */
    size_t n_blocks, blk_used, blk_cap;
};

/* Release everything a loader or trace_desc_parse() put into t; t is zeroed. */
void trace_ops_free(struct trace_ops *t);

/* The events of op (n = op->n_ev), in dump order; NULL when it has none. */
const struct trace_event *trace_op_events(const struct trace_ops *t, const struct trace_op *op);

/*
 * Time of the first event called name (a trailing '*' matches a prefix:
 * "waiting for subops*"), TRACE_NS_NONE if there is none.
 */
int64_t trace_op_event_time(const struct trace_ops *t, const struct trace_op *op, const char *name);

/* Time from the first `from` event to the first `to` event (signed ns); TRACE_NS_NONE if
 * either is missing.  Names match as in trace_op_event_time(). */
int64_t trace_op_interval(const struct trace_ops *t, const struct trace_op *op,
                          const char *from, const char *to);

/* Stages the validator compares, in order (see trace_op_stages()). */
enum trace_stage {
    TRACE_ST_QUEUED_FOR_PG = 0,  /* "queued_for_pg" (first) */
    TRACE_ST_REACHED_PG,         /* "reached_pg" (first; again after lock waits) */
    TRACE_ST_STARTED,            /* "started" */
    TRACE_ST_WAIT_SUBOPS,        /* "waiting for subops from ..." */
    TRACE_ST_OP_COMMIT,          /* "op_commit": local commit on the primary */
    TRACE_ST_SUBOP_COMMIT_REC,   /* the LAST "sub_op_commit_rec[ from N]" */
    TRACE_ST_COMMIT_SENT,        /* "commit_sent" */
    TRACE_ST_DONE,               /* "done" */
    TRACE_ST_N
};

struct trace_stages {
    int64_t at_ns[TRACE_ST_N];   /* since "initiated" (initiated_at without one); NONE if absent */
    int64_t gap_ns[TRACE_ST_N];  /* since the previous stage present (initiated for the first):
                                    the README's "initiated->queued_for_pg, ->reached_pg, ...";
                                    signed (replica acks may precede op_commit) */
    int rw_lock_waits;           /* number of "waiting for rw locks" events */
};

/* Fill st with the per-stage times of op; a replica op chains initiated->...->started->commit_sent. */
void trace_op_stages(const struct trace_ops *t, const struct trace_op *op, struct trace_stages *st);

/* Event name of a stage ("queued_for_pg", ..., "waiting for subops", "sub_op_commit_rec"). */
const char *trace_stage_name(enum trace_stage s);

/* ------------------------------------------------------------------ dumps: trace_historic.c */

/*
 * Load an op-tracker dump (plain JSON or gzip).  Without TRACE_LOAD_SALVAGE a malformed or
 * truncated file is an error naming line:col, byte and the JSON path where it broke; with
 * it, complete and cut-off op objects are recovered (op.truncated) and t->damage keeps the
 * error; -EINVAL if none.  A truncated gzip is read up to where it breaks, then likewise.
 */
int trace_ops_load(const char *path, unsigned flags, struct trace_ops *t, struct sim_err *err);

/* Same from text in memory; name is used in messages.  text[len] need not be NUL. */
int trace_ops_parse(const char *name, const char *text, size_t len, unsigned flags,
                    struct trace_ops *t, struct sim_err *err);

/*
 * Parse a Ceph timestamp: "2024-01-02T03:04:05.123456+0000" (any +-HHMM, +-HH:MM or Z) or
 * "2024-01-02 03:04:05.123456" (taken as UTC); up to 9 fraction digits.  0 or -EINVAL.
 */
int trace_time_parse(const char *s, int64_t *ns);

/* ------------------------------------------------------------------ fio iologs: trace_iolog.c */

enum trace_io_act {
    TRACE_IO_READ = 0, TRACE_IO_WRITE, TRACE_IO_TRIM, TRACE_IO_SYNC, TRACE_IO_DATASYNC,
    TRACE_IO_ADD, TRACE_IO_OPEN, TRACE_IO_CLOSE,   /* file actions: offset = length = -1 */
};

struct trace_io {
    int64_t t_ns;             /* v3: timestamp; v2: sum of the preceding "wait"s */
    enum trace_io_act act;
    int64_t offset, length;   /* bytes */
    size_t file;              /* index into trace_iolog.files */
    int64_t line;             /* line of the file it was read from (from 1) */
};

struct trace_iolog {
    int version;              /* 2 or 3 */
    struct trace_io *ios;     /* in file order ("wait" lines are folded into t_ns) */
    size_t n, cap;
    char **files;             /* names in order of their "add" */
    size_t n_files;
};

/* Load a fio iolog ("fio version 2 iolog" / "fio version 3 iolog"); errors name the line. */
int trace_iolog_load(const char *path, struct trace_iolog *log, struct sim_err *err);
/* Same from text in memory; name is used in messages. */
int trace_iolog_parse(const char *name, const char *text, size_t len, struct trace_iolog *log,
                      struct sim_err *err);
/* Release what a loader put into log; log is zeroed. */
void trace_iolog_free(struct trace_iolog *log);
/* fio's action word ("read", "write", "trim", "sync", "datasync", "add", "open", "close"). */
const char *trace_io_act_name(enum trace_io_act a);

/* ------------------------------------------------------------------ lat logs: trace_latlog.c */

struct trace_lat {
    int64_t t_ms;             /* time since job start (ms) */
    int64_t lat_ns;           /* the value: latency in ns for lat/clat/slat logs */
    int ddir;                 /* 0 read, 1 write, 2 trim */
    int64_t bs;               /* bytes (0 in windowed logs) */
    int64_t offset;           /* bytes; -1 without log_offset */
    int prio;                 /* command priority (0/1, or the ioprio with log_prio); -1 */
    int64_t issue_ns;         /* issue time with log_issue_time; -1 */
};

struct trace_latlog {
    struct trace_lat *s;
    size_t n, cap;
    int ncols;                /* columns per line (4..7) */
    bool has_offset;
};

/* How to read a 5-column line, which fio writes both as "..., offset" (log_offset=1, no
 * priority column: fio before 2020) and as "..., prio" (log_offset=0, fio since 2020). */
#define TRACE_LAT_AUTO (-1)    /* "prio" if every 5th value is 0/1 or hex, else "offset" */
#define TRACE_LAT_NO_OFFSET 0
#define TRACE_LAT_OFFSET 1

/* Load a fio per-I/O log ("time, value, ddir, bs[, offset][, prio][, issue_time]"). */
int trace_latlog_load(const char *path, int offset_mode, struct trace_latlog *log,
                      struct sim_err *err);
/* Same from text in memory; name is used in messages. */
int trace_latlog_parse(const char *name, const char *text, size_t len, int offset_mode,
                       struct trace_latlog *log, struct sim_err *err);
/* Release what a loader put into log; log is zeroed. */
void trace_latlog_free(struct trace_latlog *log);

/* ------------------------------------------------------------------ osdtrace: trace_osdtrace.c */

enum trace_osdt_kind { TRACE_OSDT_OP_W = 0, TRACE_OSDT_SUBOP_W, TRACE_OSDT_OP_R };

/* Per-op stage latencies osdtrace prints, in µs. */
enum trace_osdt_field {
    TRACE_OSDT_THROTTLE = 0, TRACE_OSDT_RECV, TRACE_OSDT_DISPATCH, TRACE_OSDT_QUEUE,
    TRACE_OSDT_OSD, TRACE_OSDT_BLUESTORE, TRACE_OSDT_BS_PREPARE, TRACE_OSDT_BS_AIO_WAIT,
    TRACE_OSDT_BS_SEQ_WAIT, TRACE_OSDT_BS_KV_COMMIT, TRACE_OSDT_OP_LAT,
    TRACE_OSDT_NFIELDS
};

struct trace_osdt_peer {
    int osd;
    int64_t lat_us;
};

struct trace_osdt_op {
    int osd;
    char pgid[24];
    enum trace_osdt_kind kind;
    int64_t size;             /* bytes */
    int64_t client, tid;
    int64_t us[TRACE_OSDT_NFIELDS];  /* -1 when absent or invalid (see invalid) */
    int64_t aio_size;         /* -1 when absent */
    uint32_t invalid;         /* bit f set: field f printed an unsigned-underflow value */
    size_t peer_first, n_peers;      /* peers[peer_first .. +n_peers) */
};

struct trace_osdtrace {
    struct trace_osdt_op *ops;
    size_t n, cap;
    struct trace_osdt_peer *peers;
    size_t n_peers, cap_peers;
    size_t n_invalid_ops;     /* ops with at least one invalid field */
};

/* A µs value at or above this is an unsigned underflow in the tracer (2^63 ns in µs). */
#define TRACE_OSDT_US_INVALID_MIN (INT64_C(9223372036854775807) / 1000)

/* Load an osdtrace log: "osd N pg P op_w size ... op_lat N" lines; other lines skipped. */
int trace_osdtrace_load(const char *path, struct trace_osdtrace *tr, struct sim_err *err);
/* Same from text in memory; name is used in messages. */
int trace_osdtrace_parse(const char *name, const char *text, size_t len,
                         struct trace_osdtrace *tr, struct sim_err *err);
/* Release what a loader put into tr; tr is zeroed. */
void trace_osdtrace_free(struct trace_osdtrace *tr);
/* Field name as osdtrace prints it ("throttle_lat", ..., "prepare", "kv_commit", "op_lat"). */
const char *trace_osdt_field_name(enum trace_osdt_field f);

#endif
