/* bench-adaptive.h: nanobragg-bench's workload d (bench-adaptive.c). */
#pragma once

#include "nanobragg.h"

/* bench_adaptive: the viewer's scene at N = 10, 30, 100, 300 with exact and
 * adaptive integration, times and errors against the high-oversample limit,
 * printed as a table or (@json) one object per line; @hkl the 1HPV
 * structure factors, @reference (NULL: none) a reference nanoBragg binary
 * timed on the same scenes, @data_dir the folder holding @hkl for its
 * process, @threads the engine's threads, @repeat the timed executes per
 * measurement (median).  Returns 0 after an error (printed on stderr). */
int bench_adaptive (const char *hkl,
                    const char *reference,
                    const char *data_dir,
                    int threads,
                    int repeat,
                    int json);
