/* fuzz_scenario.c - a scenario file: scenario_load, then scenario_to_spec
   (what `cephsim run` does before building the cluster). */
#include "fuzz.h"
#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* relative references (fio/X.fio) resolve next to the input: the shipped
       job files are linked there, the profiles found through CEPHSIM_PROFILES */
    static int linked;
    if (!linked++) {
        char cwd[512], src[600], dst[600];
        if (getcwd(cwd, sizeof cwd)) {
            snprintf(src, sizeof src, "%s/scenarios/fio", cwd);
            snprintf(dst, sizeof dst, "%s/fio", fuzz_dir());
            if (symlink(src, dst) != 0 && errno != EEXIST)
                perror(dst);
            snprintf(src, sizeof src, "%s/hw-profiles", cwd);
            setenv("CEPHSIM_PROFILES", src, 0);
        }
    }
    const char *path = fuzz_write("scenario.json", data, size);
    struct scenario sc;
    struct sim_err err = {0};
    int rc = scenario_load(&sc, path, NULL, NULL, NULL, 0, &err);
    fuzz_check_err(rc, &err, "scenario_load");
    if (rc < 0)
        return 0;
    struct cluster_spec spec;
    rc = scenario_to_spec(&sc, 0, &spec, &err);
    fuzz_check_err(rc, &err, "scenario_to_spec");
    scenario_free(&sc);
    return 0;
}
