/* fuzz_trace_iolog.c - a trace through the iolog importer, with and without its
   flags: parsed in memory (the importer's parse()), and a gzip'd input
   (magic 1f 8b) through trace_load from a file (trace_slurp's gunzip and
   read cap first). */
#include "fuzz.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct trace_format *fmt = &trace_iolog_format;
    static const unsigned flags[] = {0, TRACE_LOAD_SALVAGE, TRACE_LOAD_LAT_OFFSET, TRACE_LOAD_LAT_NO_OFFSET};
    bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    const char *path = gz ? fuzz_write("trace.log.gz", data, size) : NULL;
    void *out = calloc(1, fmt->size);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        struct sim_err err = {0};
        int rc = gz ? trace_load(fmt, path, flags[i], out, &err)
                    : fmt->parse("trace.log", (const char *)data, size, flags[i], out, &err);
        fuzz_check_err(rc, &err, gz ? "trace_load" : "parse");
        if (rc == 0)
            fmt->free(out);
    }
    (void)fmt->sniff((const char *)data, size);
    free(out);
    return 0;
}
