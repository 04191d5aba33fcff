/* fuzz_trace_latlog.c - a trace through the latlog importer (fuzz_trace.h). */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_trace_format(&trace_latlog_format, data, size);
}
