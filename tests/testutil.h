/*
 * testutil.h - helpers several test suites share (header-only: the suites are
 * single-file cmocka runners).  Include after <cmocka.h>.
 */
#ifndef CEPHSIM_TESTS_TESTUTIL_H
#define CEPHSIM_TESTS_TESTUTIL_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "stats.h"

/* Fail unless theory lies inside the 95 % confidence interval of the samples x. */
static inline void assert_in_ci(const char *what, double theory, const double *x, int n)
{
    struct ci c = stats_ci95(x, n);
    if (!(fabs(c.mean - theory) <= c.half))
        fail_msg("%s: theory %.6g outside the 95%% CI %.6g +- %.3g (n=%d)", what, theory, c.mean, c.half,
                 n);
}

/*
 * Parse JSON text with every number replaced by the string "#I" (integer
 * text) or "#F" (has '.', 'e' or 'E'), so the int/float distinction of the
 * printed document survives into a comparable tree (fio's JSON keeps it).
 */
static inline cJSON *typed_parse(const char *text)
{
    size_t n = strlen(text);
    char *buf = malloc(n * 2 + 16), *o = buf;
    bool in_str = false;
    for (size_t i = 0; i < n;) {
        char c = text[i];
        if (in_str) {
            *o++ = c;
            if (c == '\\' && i + 1 < n) {
                *o++ = text[i + 1];
                i += 2;
                continue;
            }
            in_str = c != '"';
            i++;
        } else if (c == '"') {
            in_str = true;
            *o++ = c;
            i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            bool is_float = false;
            while (i < n && ((text[i] >= '0' && text[i] <= '9') || strchr("+-.eE", text[i]))) {
                is_float |= text[i] == '.' || text[i] == 'e' || text[i] == 'E';
                i++;
            }
            memcpy(o, is_float ? "\"#F\"" : "\"#I\"", 4);
            o += 4;
        } else {
            *o++ = c;
            i++;
        }
    }
    *o = '\0';
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

#endif
