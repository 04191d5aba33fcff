/* fuzz_trace_historic.c - a trace file through the historic importer: trace_load
   (trace_slurp's gunzip and read cap, then the format's parse), with and
   without its flags. */
#include "fuzz.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct trace_format *fmt = &trace_historic_format;
    const char *path = fuzz_write("trace.log", data, size);
    static const unsigned flags[] = {0, TRACE_LOAD_SALVAGE, TRACE_LOAD_LAT_OFFSET, TRACE_LOAD_LAT_NO_OFFSET};
    void *out = calloc(1, fmt->size);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        struct sim_err err = {0};
        int rc = trace_load(fmt, path, flags[i], out, &err);
        fuzz_check_err(rc, &err, "trace_load");
        if (rc == 0)
            fmt->free(out);
    }
    (void)fmt->sniff((const char *)data, size);
    free(out);
    return 0;
}
