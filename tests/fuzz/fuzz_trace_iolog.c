/* fuzz_trace_iolog.c - a trace through the iolog importer (fuzz_trace.h). */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_trace_format(&trace_iolog_format, data, size);
}
