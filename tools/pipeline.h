/* The tool's pipeline: the next file is read while the current one is
 * convolved and the previous one written, one thread each, with a
 * progress line on a terminal and what ran with --verbose.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_TOOL_PIPELINE_H
#define CC_TOOL_PIPELINE_H

#include "job.h"

/* Runs every job; 0 where all succeeded, else 1. */
int run_jobs (Job *jobs, int n_jobs, const Settings *settings);

#endif /* CC_TOOL_PIPELINE_H */
