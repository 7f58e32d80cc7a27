/* bench-panels.h: nanobragg-bench's multi-panel workload (bench-panels.c). */
#pragma once

#include "nanobragg.h"

/* nb_bench_panels: renders the -detector @geom (workload e's scene) with one
 * plan and with one plan per panel (its CUSTOM vectors), @repeat rounds
 * after a warm-up round, alternating, on @threads threads in @precision on
 * @backend (NB_BACKEND_CPU or NB_BACKEND_CUDA: every plan on the GPU, into
 * page-locked images); prints the medians (milliseconds) and their ratio,
 * one line (JSON with @json).  Returns 1 when the images are identical, 0
 * when they differ or a plan fails (said on stderr). */
int
nb_bench_panels (const char *geom, int precision, int backend, int threads, int repeat, int json);
