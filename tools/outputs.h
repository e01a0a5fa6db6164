/* The tool's output files: each written under a temporary name beside it
 * and renamed when complete; Ctrl-C, a kill or a hang-up removes what is
 * half written.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_TOOL_OUTPUTS_H
#define CC_TOOL_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

/* Removes half-written outputs on SIGINT, SIGTERM and SIGHUP. */
void        outputs_catch_signals (void);
/* A temporary name beside 'out' for it to be written under; -1 when none
 * is free. */
int         output_claim          (const char *out);
const char *output_temp_path      (int slot);
/* Renames the finished file into place (ok) or removes it; false and why
 * where the rename fails. */
bool        output_release        (int slot, const char *out, bool ok, char *error,
                                   size_t size);

#endif /* CC_TOOL_OUTPUTS_H */
