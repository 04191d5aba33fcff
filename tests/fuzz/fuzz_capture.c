/* fuzz_capture.c - a capture directory (validate --real): the first byte
   picks the file the input replaces (fio.json, osd.0.perf.json,
   osd.0.historic_ops.json, meta.json) in a directory whose other files are
   valid; validate_capture_load reads the whole directory. */
#include "fuzz.h"
#include "validate.h"

static const char *const files[] = {"fio.json", "osd.0.perf.json", "osd.0.historic_ops.json", "meta.json"};

/* A minimal valid capture: fio's JSON of one write job. */
static const char fio_json[] =
    "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"w\", \"job options\": {\"rw\": \"randwrite\","
    " \"bs\": \"4k\", \"iodepth\": \"1\"}, \"read\": {\"io_bytes\": 0, \"iops\": 0, \"total_ios\": 0},"
    " \"write\": {\"io_bytes\": 4096000, \"iops\": 1000.0, \"total_ios\": 1000, \"runtime\": 1000,"
    " \"clat_ns\": {\"mean\": 900000.0, \"percentile\": {\"50.000000\": 880000, \"99.000000\": 1200000}},"
    " \"lat_ns\": {\"mean\": 1000000.0}}}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *dir = fuzz_dir();
    char path[700];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    size_t pick = data[0] % (sizeof files / sizeof files[0]);
    if (pick != 0)
        fuzz_write("fio.json", (const uint8_t *)fio_json, sizeof fio_json - 1);
    fuzz_write(files[pick], data + 1, size - 1);
    struct validate_capture cap;
    struct sim_err err = {0};
    int rc = validate_capture_load(dir, &cap, &err);
    fuzz_check_err(rc, &err, "validate_capture_load");
    if (rc == 0)
        validate_capture_free(&cap);
    return 0;
}
