/*
 * test_replay_cmd.c - `cephsim replay` as a user meets it: where its outputs
 * go by default (an OSD's dump is named after its capture directory, not all
 * into out/replay/osd), -o replaces only a replay's own directory, and a
 * version 2 iolog without timing replays in order at the job's iodepth (as
 * fio's read_iolog does) with a message, instead of every I/O at t = 0.
 *
 * Runs the binary named by $CEPHSIM_BIN, else out/bin/cephsim (skips if absent),
 * from the repository root; scratch files go under out/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *bin(void)
{
    const char *b = getenv("CEPHSIM_BIN");
    return b && *b ? b : "out/bin/cephsim";
}

/* Run "cephsim ARGS" with stderr (and stdout) into buf; the exit code. */
static int run(const char *dir, const char *args, char *buf, size_t n)
{
    char cmd[4096], log[300];
    snprintf(log, sizeof log, "%s/cmd.log", dir);
    snprintf(cmd, sizeof cmd, "'%s' %s >%s 2>&1", bin(), args, log);
    int st = system(cmd);
    FILE *f = fopen(log, "r");
    size_t k = f ? fread(buf, 1, n - 1, f) : 0;
    buf[k] = '\0';
    if (f)
        fclose(f);
    unlink(log);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static char scratch[] = "out/test_replay_cmd.XXXXXX";

static int setup(void **state)
{
    (void)state;
    if (access(bin(), X_OK) != 0)
        return 0;
    return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

static void untimed_v2_iolog_replays_at_iodepth(void **state)
{
    (void)state;
    if (access(bin(), X_OK) != 0)
        skip();
    char log[300], args[1000], out[8192];
    snprintf(log, sizeof log, "%s/v2.log", scratch);
    FILE *f = fopen(log, "w");
    assert_non_null(f);
    fputs("fio version 2 iolog\n/dev/rbd0 add\n/dev/rbd0 open\n", f);
    for (int i = 0; i < 40; i++)
        fprintf(f, "/dev/rbd0 write %d 4096\n", i * 4096);
    fputs("/dev/rbd0 close\n", f);
    fclose(f);
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --set fio.iodepth=4 -o %s/v2", log, scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    if (!strstr(out, "the trace has no timing") || !strstr(out, "in order at iodepth 4") ||
        !strstr(out, "closed loop, iodepth 4"))
        fail_msg("%s", out);
    /* asked for open loop: it does so, and says every I/O starts at t = 0 */
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --mode open -o %s/v2", log, scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    if (!strstr(out, "warning:") || !strstr(out, "issues all 40 I/Os at t = 0"))
        fail_msg("%s", out);
}

static void outputs_named_and_replaced_safely(void **state)
{
    (void)state;
    if (access(bin(), X_OK) != 0)
        skip();
    char args[1000], out[8192], path[400];
    /* a window dump of the kit: named after its capture, not out/replay/osd */
    const char *dump = "tests/data/lab2/captures/noparent_randw-qd1_sched-none_r1/osd.0.historic_window.json.gz";
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --max-s 1", dump);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    if (!strstr(out, "outputs: out/replay/noparent_randw-qd1_sched-none_r1.osd.0.historic_window/"))
        fail_msg("%s", out);
    assert_true(exists("out/replay/noparent_randw-qd1_sched-none_r1.osd.0.historic_window/replay.json"));
    /* -o on a directory holding a file replay did not write: refused, nothing touched */
    snprintf(path, sizeof path, "%s/mine", scratch);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/mine/notes.txt", scratch);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --max-s 1 -o %s/mine", dump, scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 1);
    if (!strstr(out, "holds 'notes.txt', which cephsim replay did not write: not replacing"))
        fail_msg("%s", out);
    assert_true(exists(path));
    /* its own directory is replaced: run twice into one -o */
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --max-s 1 -o %s/own -q", dump, scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/own/replay.json", scratch);
    assert_true(exists(path));
    /* a run directory (sim.json) is not a replay's */
    snprintf(args, sizeof args, "run scenarios/lab.json --set sim.duration_s=0.05 --set sim.warmup_s=0.01 -q -o %s/arun",
             scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 0);
    snprintf(args, sizeof args, "replay %s --scenario scenarios/lab.json --max-s 1 -o %s/arun", dump, scratch);
    assert_int_equal(run(scratch, args, out, sizeof out), 1);
    assert_non_null(strstr(out, "which cephsim replay did not write"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(untimed_v2_iolog_replays_at_iodepth),
        cmocka_unit_test(outputs_named_and_replaced_safely),
    };
    return cmocka_run_group_tests_name("replay_cmd", tests, setup, teardown);
}
