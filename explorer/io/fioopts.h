/*
 * fioopts.h - fio's own option vocabulary (fio 3.33, Debian 12's fio), generated
 * from fio's options.c and engines/NAME.c by tools/gen_fio_options.py into
 * fioopts_table.c.  fiojob.c uses it to tell an option fio does not have from
 * one cephsim does not model, to name an engine's options as that engine's,
 * and to draw did-you-means from fio's names; list-params prints the help of
 * the options cephsim models (fio's `--cmdhelp` text).
 */
#ifndef CEPHSIM_IO_FIOOPTS_H
#define CEPHSIM_IO_FIOOPTS_H

struct fio_optinfo {
    const char *name;
    const char *alias;    /* NULL = none */
    const char *lname;    /* fio's long name */
    const char *help;     /* fio's .help, as `fio --cmdhelp=NAME` prints it */
    const char *category; /* fio's FIO_OPT_C_*: "general", "io", "file", "stat", "log", "profile", "engine" */
    const char *engines;  /* comma-separated ioengines owning it; NULL = a general option */
};

struct fio_engineinfo {
    const char *name;
    const char *help;     /* NULL when fio's ioengine option lists no help for it */
};

/* Sorted by name; an engine option whose meaning differs per engine (net's and
   libhdfs's "port") has one row per meaning. */
extern const struct fio_optinfo fio_optinfo_table[];
extern const int fio_optinfo_count;
extern const struct fio_engineinfo fio_engineinfo_table[];
extern const int fio_engineinfo_count;
/* Names a later fio has and fio_vocabulary_release does not. */
extern const char *const fio_newer_options[];
extern const int fio_newer_options_count;
extern const char *const fio_newer_engines[];
extern const int fio_newer_engines_count;
extern const char fio_vocabulary_release[]; /* "fio-3.33" */
extern const char fio_vocabulary_newer[];   /* the later fio the newer names come from */

#endif
