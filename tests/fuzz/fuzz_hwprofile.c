/* fuzz_hwprofile.c - a hardware profile: the first byte picks the kind (cpu,
   nvme, nic, switch, host), the rest is the file, loaded by path. */
#include "fuzz.h"
#include "hwprofile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static char profiles[600];
    if (!profiles[0]) {
        char cwd[512];
        if (getcwd(cwd, sizeof cwd))
            snprintf(profiles, sizeof profiles, "%s/hw-profiles", cwd);
    }
    const char *path = fuzz_write("profile.json", data + 1, size - 1);
    struct sim_err err = {0};
    int rc;
    switch (data[0] % 5) {
    case 0: { struct hw_cpu p; rc = hwprofile_load_cpu(path, profiles, &p, &err); break; }
    case 1: { struct hw_nvme p; rc = hwprofile_load_nvme(path, profiles, &p, &err); break; }
    case 2: { struct hw_nic p; rc = hwprofile_load_nic(path, profiles, &p, &err); break; }
    case 3: { struct hw_switch p; rc = hwprofile_load_switch(path, profiles, &p, &err); break; }
    default: { struct hw_host p; rc = hwprofile_load_host(path, profiles, &p, &err); break; }
    }
    fuzz_check_err(rc, &err, "hwprofile_load");
    return 0;
}
