/* bench-model.h: nanobragg-bench's model workload (bench-model.c). */
#pragma once

/* bench_models: times 1HPV's structure factors and a large model's to 2
 * Angstrom (the plan, and gemmi sfcalc beside it when gemmi is on PATH) with
 * the models in @data_dir, @repeat rounds (the large model one), and prints
 * a row each (JSON with @json).  Returns 1, or 0 after a message on stderr. */
int bench_models (const char *data_dir, int threads, int repeat, int json);
