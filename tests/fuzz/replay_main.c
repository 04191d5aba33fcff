/*
 * replay_main.c - a harness of tests/fuzz/ as a plain program: runs
 * LLVMFuzzerTestOneInput once per file named on the command line (the way
 * libFuzzer replays a crash file), so that the normal and the ASan/UBSan test
 * builds replay the seeds and every input that once failed
 * (tests/fuzz/regress/<harness>/) without clang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        size_t cap = 1 << 16, n = 0, got;
        uint8_t *buf = malloc(cap);
        while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0)
            if ((n += got) == cap)
                buf = realloc(buf, cap *= 2);
        fclose(f);
        if (!buf)
            return 2;
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    printf("replayed %d input%s\n", argc - 1, argc == 2 ? "" : "s");
    return 0;
}
