#ifndef BIKEBEACON_CSPAWN_H
#define BIKEBEACON_CSPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor from
/// `lowest` up, so it inherits only what the actions gave it. A GNU extension Swift's Glibc module
/// does not import, hence this shim.
int bikebeacon_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// pipe2(O_CLOEXEC): both ends close-on-exec from the start, so a child another thread spawns at
/// the same moment cannot inherit them (and keep a reader from seeing end of file).
int bikebeacon_pipe_cloexec(int fds[2]);

#endif
