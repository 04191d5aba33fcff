/*
 * yaml.h - a YAML subset reader, into cJSON: what cbt's benchmark files use.
 *
 * Read: block mappings and block sequences (by indentation, spaces only),
 * "- key: value" items, flow sequences and mappings ([1, 4, 16], {a: b}),
 * plain, 'single' and "double" quoted scalars, # comments (whole lines at any
 * indentation, or after a value), "---" / "..." document markers.
 * Scalars resolve as PyYAML's yaml.safe_load does (YAML 1.1, which cbt uses):
 * null/~ -> null; true/false/yes/no/on/off (any case form PyYAML knows) ->
 * bool; integers (decimal, 0x, 0o) and floats -> number; anything else ->
 * string.  Quoted scalars are always strings.
 *
 * Refused, with a one-line error "FILE:LINE: ...": tabs in indentation,
 * anchors/aliases (&x, *x), tags (!!str), block scalars (| and >), multi-line
 * plain scalars, several documents, duplicate keys.  A refusal is never a
 * silent misreading.
 */
#ifndef CEPHSIM_EXPLORER_IO_YAML_H
#define CEPHSIM_EXPLORER_IO_YAML_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "err.h"

/* Parse YAML text (file names the source in errors); NULL with err set on error. */
cJSON *yaml_parse(const char *text, size_t len, const char *file, struct sim_err *err);
/* Read and parse the file at path. */
cJSON *yaml_load_file(const char *path, struct sim_err *err);

#endif
