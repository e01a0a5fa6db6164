/* The tool's output files under temporary names (outputs.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "outputs.h"

#define TEMP_SLOTS 8
static char                  temp_paths[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];
static pthread_mutex_t       temp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned              temp_serial;

static void
on_signal (int sig)
{
  for (int i = 0; i < TEMP_SLOTS; i++)
    if (temp_used[i])
      unlink (temp_paths[i]);
  signal (sig, SIG_DFL);
  raise (sig);
}

int
output_claim (const char *out)
{
  const char *slash = strrchr (out, '/');
  int dir_len = slash ? (int) (slash - out + 1) : 0;
  int slot = -1;

  pthread_mutex_lock (&temp_lock);
  for (int i = 0; i < TEMP_SLOTS && slot < 0; i++)
    if (!temp_used[i])
      {
        int n = snprintf (temp_paths[i], PATH_MAX, "%.*s.%s.partial-%ld-%u", dir_len, out,
                          out + dir_len, (long) getpid (), ++temp_serial);

        if (n > 0 && n < PATH_MAX)
          {
            temp_used[i] = 1;
            slot = i;
          }
      }
  pthread_mutex_unlock (&temp_lock);
  return slot;
}

const char *
output_temp_path (int slot)
{
  return temp_paths[slot];
}

bool
output_release (int slot, const char *out, bool ok, char *error, size_t size)
{
  if (ok && rename (temp_paths[slot], out) != 0)
    {
      snprintf (error, size, "%s: %s", out, strerror (errno));
      ok = false;
    }
  if (!ok)
    unlink (temp_paths[slot]);
  pthread_mutex_lock (&temp_lock);
  temp_used[slot] = 0;
  pthread_mutex_unlock (&temp_lock);
  return ok;
}

void
outputs_catch_signals (void)
{
  struct sigaction action;

  memset (&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset (&action.sa_mask);
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGTERM, &action, NULL);
  sigaction (SIGHUP, &action, NULL);
}
