/*
 * replay_cmd.h - the `cephsim replay` command: a captured trace through the
 * full model of a scenario (models/ceph/replay.h does the work).
 */
#ifndef CEPHSIM_EXPLORER_REPLAY_CMD_H
#define CEPHSIM_EXPLORER_REPLAY_CMD_H

/*
 * cephsim replay TRACE... --scenario S [--mode open|closed] [--iodepth N] [--speed X]
 *                [--set PATH=VALUE]... [-o DIR] [-q]
 * Writes DIR/fio.json, osd.N.perf.json, osd.N.historic_ops.json, replay.json,
 * replay_lat.1.log (fio lat log of the replayed I/Os) and replay.iolog (fio iolog v3
 * of the simulated issue times).  Exit 0 ok, 1 failure, 2 usage or bad input.
 */
int cmd_replay(int argc, char **argv);

#endif
