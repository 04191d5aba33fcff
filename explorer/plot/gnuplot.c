/*
 * gnuplot.c - finding and running gnuplot (see gnuplot.h).
 *
 * gnuplot runs as a child process (posix_spawnp), never through a shell, so
 * no path or title needs shell quoting; strings inside its scripts are quoted
 * by plot_gp_str.
 */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plotutil.h"

extern char **environ;

bool plot_have_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin"; /* execvp's default */
    char *copy = sim_xstrdup(path);
    bool found = false;
    /* strtok_r would skip empty entries, which mean the current directory */
    for (char *p = copy, *end; !found && p; p = end ? end + 1 : NULL) {
        end = strchr(p, ':');
        if (end)
            *end = '\0';
        char *cand = plot_asprintf("%s/gnuplot", *p ? p : ".");
        found = plot_is_file(cand) && access(cand, X_OK) == 0;
        free(cand);
    }
    free(copy);
    return found;
}

void plot_gp_str(FILE *f, char q, const char *s)
{
    SIM_ASSERT(q == '"' || q == '\'');
    fputc(q, f);
    for (; *s; s++) {
        if (*s == q)
            fputs(q == '"' ? "\\\"" : "''", f);
        else if (*s == '\\' && q == '"')
            fputs("\\\\", f);
        else if (*s == '\n' && q == '"')
            fputs("\\n", f);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc(q, f);
}

int plot_gnuplot(const char *dir, const char *pre, const char *script, const char *expect, struct sim_err *err)
{
    char *cmds = NULL;
    size_t len = 0;
    if (dir || pre) {
        FILE *m = open_memstream(&cmds, &len);
        if (!m)
            return sim_errf(err, -errno, "cannot run gnuplot: %s", strerror(errno));
        if (dir) {
            fputs("cd ", m);
            plot_gp_str(m, '"', dir);
            fputs(pre ? "; " : "", m);
        }
        fputs(pre ? pre : "", m);
        fclose(m);
    }
    char *argv[5] = {"gnuplot"};
    int n = 1;
    if (cmds) {
        argv[n++] = "-e";
        argv[n++] = cmds;
    }
    argv[n] = (char *)script;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    fflush(stdout); /* our output so far comes before gnuplot's */
    fflush(stderr);
    pid_t pid;
    int sp = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(cmds);
    if (sp == ENOENT)
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    if (sp != 0)
        return sim_errf(err, -sp, "cannot run gnuplot: %s", strerror(sp));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return sim_errf(err, -errno, "gnuplot: wait: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) /* a C library whose posix_spawnp exits so when exec fails */
        return sim_errf(err, -ENOENT, "gnuplot not found; install gnuplot-nox (tools/setup.sh does)");
    if (WIFSIGNALED(st))
        return sim_errf(err, -EIO, "%s: gnuplot killed by signal %d", script, WTERMSIG(st));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return sim_errf(err, -EIO, "%s: gnuplot failed (status %d; its messages are above)", script,
                        WIFEXITED(st) ? WEXITSTATUS(st) : st);
    if (expect) {
        char *out = dir && expect[0] != '/' ? plot_asprintf("%s/%s", dir, expect) : sim_xstrdup(expect);
        struct stat sb;
        bool ok = stat(out, &sb) == 0 && sb.st_size > 0;
        free(out);
        if (!ok)
            return sim_errf(err, -EIO, "%s: gnuplot wrote no %s", script, expect);
    }
    return 0;
}

void plot_gp_terminal(FILE *f, const char *name, int w, int h)
{
    fprintf(f, "if (!exists(\"fmt\")) fmt = \"png\"\n"
               "if (fmt eq \"svg\") {\n"
               "    set terminal svg size %d,%d dynamic noenhanced font \"Sans,12\" background rgb \"white\"\n"
               "} else {\n"
               "    if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
               "        set terminal pngcairo size %d,%d noenhanced font \"Sans,10\" background rgb \"white\"\n"
               "    } else {\n"
               "        set terminal png size %d,%d noenhanced background rgb \"white\"\n"
               "    }\n"
               "}\n"
               "set output \"%s.\".fmt\n",
            w, h, w, h, w, h, name);
}

int plot_gp_render(const char *dir, const char *name, unsigned formats, struct sim_err *err)
{
    static const char *const fmts[] = {"png", "svg"}; /* bit k: PLOT_PNG, PLOT_SVG */
    char *script = plot_asprintf("%s.gp", name);
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!(formats & (1u << k)))
            continue;
        char *pre = plot_asprintf("fmt = \"%s\"", fmts[k]);
        char *out = plot_asprintf("%s.%s", name, fmts[k]);
        rc = plot_gnuplot(dir, pre, script, out, err);
        free(pre);
        free(out);
    }
    free(script);
    return rc;
}
