/* The blur's estimate and a star's mask in the tool (docs/estimate.md):
 * --estimate-blur prints a file's blur; --shape auto and --star make each
 * file's own mask from the file, before it is convolved or deconvolved.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later WITH NVIDIA-CUDA-exception
 */
#ifndef CC_TOOL_ESTIMATE_H
#define CC_TOOL_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"

/* --region X,Y,W,H (whole numbers, W and H above 0) and --star X,Y,R (R
 * whole, 1 or more) from their text; false where malformed. */
bool estimate_parse_region (const char *text, CcRect *region);
bool estimate_parse_star   (const char *text, FileMask *how);

/* The estimate in the terms --shape, --radius and --angle take: one line
 * ("shape disc radius 4.25 angle 0 confidence 0.78"), or one JSON object
 * with the same names. */
void estimate_format       (const CcBlurEstimate *e, bool json, char *text, size_t size);

/* The file's own mask, as s->file_mask makes it from 'work' (the samples
 * job_work gives, and its options): the blur estimated (into
 * job->estimate) or the star's; its values malloc'd into *values.  False
 * where the engine refuses, the job failed saying why. */
bool file_mask_make        (Job *job, const Settings *s, const CcImage *work,
                            const CcOptions *options, CcMask *mask, double **values);

/* --estimate-blur IN: the file's blur printed on standard output (with
 * 'verbose', the device and the time too); the exit code (1 where the
 * file cannot be read or the engine refuses, saying why on stderr). */
int  estimate_file         (const char *path, const Settings *s, bool json);

#endif /* CC_TOOL_ESTIMATE_H */
