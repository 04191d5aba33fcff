/*
 * version.h - cephsim's release and the identity of its model code, as they
 * are stamped into outputs: sim.json, fio.json's "fio version", the gnuplot
 * scripts of cephsim plot, sweep point ids and the database.
 */
#ifndef CEPHSIM_EXPLORER_VERSION_H
#define CEPHSIM_EXPLORER_VERSION_H

#include "model_id.h" /* generated: CEPHSIM_MODEL_ID, a hash of the sources */

#define CEPHSIM_VERSION "0.1.0"
/* What results depend on: the release and the exact model code. */
#define CEPHSIM_MODEL_VERSION CEPHSIM_VERSION "+" CEPHSIM_MODEL_ID

#endif
