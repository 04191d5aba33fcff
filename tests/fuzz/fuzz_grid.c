/* fuzz_grid.c - a sweep grid: grid_load and grid_validate (the base
   scenario reference resolves against the shipped scenarios, linked). */
#include "fuzz.h"
#include "grid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int linked;
    if (!linked++) {
        char cwd[512], src[600], dst[600];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(src, sizeof src, "%s/scenarios", cwd);
            snprintf(dst, sizeof dst, "%s/scenarios", fuzz_dir());
            if (symlink(src, dst) != 0 && errno != EEXIST)
                perror(dst);
            snprintf(src, sizeof src, "%s/hw-profiles", cwd);
            setenv("CEPHSIM_PROFILES", src, 0);
        }
    }
    const char *path = fuzz_write("grid.json", data, size);
    struct grid g;
    struct sim_err err = {0};
    int rc = grid_load(&g, path, NULL, &err);
    fuzz_check_err(rc, &err, "grid_load");
    if (rc < 0)
        return 0;
    rc = grid_validate(&g, &err);
    fuzz_check_err(rc, &err, "grid_validate");
    grid_free(&g);
    return 0;
}
