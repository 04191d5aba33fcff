#!/usr/bin/env python3
"""gen_fio_options.py - fio's option vocabulary as a C table (explorer/io/fioopts_table.c).

Usage: tools/gen_fio_options.py FIO_GIT_DIR [TAG [NEWER_TAG]] > explorer/io/fioopts_table.c

FIO_GIT_DIR is a clone of https://github.com/axboe/fio (bare or not).  TAG
(default fio-3.33, Debian 12's fio) is the release whose vocabulary cephsim
follows: every `struct fio_option` entry of its options.c (fio_options[]) and
of engines/NAME.c (each engine's options[], attributed to the ioengine_ops whose
.options points at that array), with fio's .lname, .help, .category and .type,
and the ioengine names with their help (the .posval of "ioengine").  NEWER_TAG
(default: the clone's HEAD, named by git describe) adds the names that fio gained after TAG, so
that cephsim can say "newer than fio 3.33" instead of "unknown".
"""
import re
import subprocess
import sys


def git_show(repo, ref, path):
    return subprocess.run(["git", "-C", repo, "show", f"{ref}:{path}"], check=True,
                          capture_output=True, text=True, errors="replace").stdout


def git_ls(repo, ref, path):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", f"{ref}", path + "/"],
                         check=True, capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.endswith(".c")]


def strip_comments(src):
    """Drop /* */ and // comments, keeping string literals intact."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif c == "'":
            j = i + 1
            while j < n and src[j] != "'":
                j += 2 if src[j] == '\\' else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_at(src, start):
    """The text between the '{' at src[start] and its matching '}'."""
    depth, i = 0, start
    while i < len(src):
        c = src[i]
        if c == '"':
            j = i + 1
            while src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            i = j
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return src[start + 1:i]
        i += 1
    raise ValueError("unbalanced braces")


def top_entries(body):
    """The top-level { ... } entries of an initializer list."""
    i, out = 0, []
    while True:
        j = body.find("{", i)
        if j < 0:
            return out
        inner = block_at(body, j)
        out.append(inner)
        i = j + len(inner) + 2


def c_strings(expr):
    """Concatenated string literals of a C expression (fio's .help spans lines)."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', expr)
    return "".join(parts) if parts else None


def field(entry, name):
    """.name = value, at the entry's top level (not inside .posval)."""
    depth, i, n = 0, 0, len(entry)
    pat = re.compile(r"\.\s*" + name + r"\s*=")
    while i < n:
        c = entry[i]
        if c == '"':
            j = i + 1
            while entry[j] != '"':
                j += 2 if entry[j] == '\\' else 1
            i = j + 1
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
        elif depth == 0 and c == '.':
            m = pat.match(entry, i)
            if m:
                j, d = m.end(), 0
                while j < n and not (d == 0 and entry[j] == ','):
                    if entry[j] == '"':
                        k = j + 1
                        while entry[k] != '"':
                            k += 2 if entry[k] == '\\' else 1
                        j = k
                    elif entry[j] in "({":
                        d += 1
                    elif entry[j] in ")}":
                        d -= 1
                    j += 1
                return entry[m.end():j].strip()
        i += 1
    return None


def option_arrays(src):
    """{array name: [option dict]} of every struct fio_option array in src."""
    arrays = {}
    for m in re.finditer(r"struct\s+fio_option\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{", src):
        body = block_at(src, m.end() - 1)
        opts = []
        for e in top_entries(body):
            name = field(e, "name")
            if not name or name == "NULL":
                continue
            o = {k: field(e, k) for k in ("lname", "alias", "help", "type", "category")}
            o["name"] = c_strings(name)
            for k in ("lname", "alias", "help"):
                o[k] = c_strings(o[k]) if o[k] else None
            o["posval"] = re.findall(r'\.ival\s*=\s*"([^"]*)"\s*,\s*\.help\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', e)
            opts.append(o)
        arrays[m.group(1)] = opts
    return arrays


def engine_ops(src):
    """[(engine name, options array name or None)] of the ioengine_ops in src."""
    out = []
    for m in re.finditer(r"struct\s+ioengine_ops\s+\w+\s*=\s*\{", src):
        body = block_at(src, m.end() - 1)
        name = field(body, "name")
        opts = field(body, "options")
        if name:
            out.append((c_strings(name), opts))
    return out


def vocabulary(repo, ref):
    general = option_arrays(strip_comments(git_show(repo, ref, "options.c")))["fio_options"]
    # a file's own (static) arrays first, then the shared ones (librpma_fio_options)
    files, shared, engines = [], {}, []
    for path in git_ls(repo, ref, "engines"):
        if path.endswith("skeleton_external.c"):
            continue  # a template for external engines, not an engine
        src = strip_comments(git_show(repo, ref, path))
        local = option_arrays(src)
        files.append((local, engine_ops(src)))
        shared.update({k: v for k, v in local.items() if k != "options"})
    by_engine = {}
    for local, ops in files:
        for eng, arr in ops:
            engines.append((eng, arr))
            for o in (local.get(arr) or shared.get(arr) or []) if arr else []:
                # one row per meaning: net's and hdfs's "port" have their own help
                by_engine.setdefault((o["name"], o["help"]), ({}, o))[0][eng] = True
    return general, by_engine, engines


def merge_variants(opts):
    """One entry per name: fio repeats a name under #ifdef with FIO_OPT_UNSUPPORTED."""
    seen = {}
    for o in opts:
        prev = seen.get(o["name"])
        if prev is None or (prev["type"] == "FIO_OPT_UNSUPPORTED" and o["type"] != "FIO_OPT_UNSUPPORTED"):
            seen[o["name"]] = o
    return list(seen.values())


def cstr(s):
    """A C string literal: fio's strings are C literals already (escapes kept)."""
    return "NULL" if s is None else '"' + s + '"'


def main():
    repo = sys.argv[1]
    tag = sys.argv[2] if len(sys.argv) > 2 else "fio-3.33"
    if len(sys.argv) > 3:
        newer = sys.argv[3]
    else:
        newer = subprocess.run(["git", "-C", repo, "describe", "--tags", "HEAD"], check=True,
                               capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", repo, "rev-list", "-n1", tag], check=True, capture_output=True,
                            text=True).stdout.strip()
    general, by_engine, engines = vocabulary(repo, tag)
    general = merge_variants(general)
    ngen, nby, neng = vocabulary(repo, newer)
    names = {o["name"] for o in general} | {k[0] for k in by_engine}
    aliases = {o["alias"] for o in general if o["alias"]} | {o["alias"] for _, o in by_engine.values() if o["alias"]}
    newer_names = sorted(({o["name"] for o in ngen} | {k[0] for k in nby}) - names - aliases)
    ioeng = next(o for o in general if o["name"] == "ioengine")
    eng_names = sorted({e for e, _ in engines})

    w = sys.stdout.write
    w("/*\n * fioopts_table.c - fio's option vocabulary, GENERATED: do not edit.\n *\n")
    w(f" * tools/gen_fio_options.py FIO_GIT {tag} {newer} > explorer/io/fioopts_table.c\n")
    w(f" * from axboe/fio {tag} (commit {commit}): options.c fio_options[] and the options[]\n")
    w(" * of engines/NAME.c (attributed to the ioengine_ops naming them), with fio's own\n")
    w(" * .lname/.help (what `fio --cmdhelp=NAME` prints) and .category; the ioengine\n")
    w(f" * names of {tag}; and the option names fio gained by {newer}.\n */\n")
    w('#include <stddef.h>\n\n#include "fioopts.h"\n\n')
    w("const struct fio_optinfo fio_optinfo_table[] = {\n")
    rows = []
    for o in general:
        rows.append((o["name"], o, None))
    general_names = {r[0] for r in rows}
    for (name, _), (engs, o) in by_engine.items():
        if name in general_names:
            continue  # an engine reuses a general name (fio lets the general one win)
        rows.append((name, o, ",".join(sorted(engs))))
    rows.sort(key=lambda r: (r[0], r[2] or ""))
    for name, o, engs in rows:
        cat = (o["category"] or "").replace("FIO_OPT_C_", "").lower() or None
        w(f"    {{ {cstr(name)}, {cstr(o['alias'])}, {cstr(o['lname'])}, {cstr(o['help'])}, "
          f"{cstr(cat)}, {cstr(engs)} }},\n")
    w("};\nconst int fio_optinfo_count = (int)(sizeof fio_optinfo_table / sizeof fio_optinfo_table[0]);\n\n")
    helps = {v: c_strings(h) for v, h in ioeng["posval"]}
    w("const struct fio_engineinfo fio_engineinfo_table[] = {\n")
    for e in eng_names:
        w(f"    {{ {cstr(e)}, {cstr(helps.get(e))} }},\n")
    w("};\nconst int fio_engineinfo_count = (int)(sizeof fio_engineinfo_table / sizeof fio_engineinfo_table[0]);\n\n")
    w(f"/* names in {newer} and not in {tag} */\n")
    w("const char *const fio_newer_options[] = {\n")
    for n in newer_names:
        w(f"    {cstr(n)},\n")
    w("};\nconst int fio_newer_options_count = (int)(sizeof fio_newer_options / sizeof fio_newer_options[0]);\n")
    w(f"/* ioengines in {newer} and not in {tag} */\n")
    w("const char *const fio_newer_engines[] = {\n")
    for n in sorted({e for e, _ in neng} - set(eng_names)):
        w(f"    {cstr(n)},\n")
    w("};\nconst int fio_newer_engines_count = (int)(sizeof fio_newer_engines / sizeof fio_newer_engines[0]);\n")
    w(f'const char fio_vocabulary_release[] = "{tag}";\n')
    w(f'const char fio_vocabulary_newer[] = "{newer}";\n')


if __name__ == "__main__":
    main()
