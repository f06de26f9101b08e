// SPDX-License-Identifier: LGPL-2.1-or-later
// The one main() of the numaplace_bench program; benchmarks live in the other files here.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
