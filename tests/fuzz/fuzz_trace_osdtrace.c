/* fuzz_trace_osdtrace.c - a trace through the osdtrace importer (fuzz_trace.h). */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_trace_format(&trace_osdtrace_format, data, size);
}
