/* fuzz_fiojob.c - a fio job file: fiojob_parse_file (includes relative to it). */
#include "fiojob.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("job.fio", data, size);
    struct fio_jobfile jf;
    struct sim_err err = {0};
    int rc = fiojob_parse_file(path, NULL, &jf, &err);
    fuzz_check_err(rc, &err, "fiojob_parse_file");
    if (rc == 0)
        fiojob_free(&jf);
    return 0;
}
