/* fuzz_trace_historic.c - a trace through the historic importer (fuzz_trace.h). */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_trace_format(&trace_historic_format, data, size);
}
