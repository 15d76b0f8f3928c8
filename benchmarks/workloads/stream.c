/* The memory-bandwidth limit for the Laplacian benchmarks: a streaming copy and a 5-point
   Laplacian over 256 x 256 x 80 doubles (k contiguous), written by hand in C with OpenMP.
   Prints one JSON object: median seconds of each over 25 runs.
       cc -O3 -march=native -fopenmp stream.c -o stream && ./stream */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

enum { NI = 256, NJ = 256, NK = 80, RUNS = 25 };

static int by_value(const void *left, const void *right) {
  double a = *(const double *)left, b = *(const double *)right;
  return (a > b) - (a < b);
}

static double median(double *samples) {
  qsort(samples, RUNS, sizeof(double), by_value);
  return samples[RUNS / 2];
}

#define AT(i, j, k) (((size_t)(i) * NJ + (j)) * NK + (k))

int main(void) {
  size_t points = (size_t)NI * NJ * NK;
  double *in = aligned_alloc(64, points * sizeof(double));
  double *out = aligned_alloc(64, points * sizeof(double));
  double copy[RUNS], laplacian[RUNS];
#pragma omp parallel for
  for (size_t p = 0; p < points; ++p) { in[p] = (double)(p % 97) * 0.01; out[p] = 0.0; }
  for (int run = 0; run < RUNS; ++run) {
    double start = omp_get_wtime();
#pragma omp parallel for
    for (size_t p = 0; p < points; ++p) out[p] = in[p];
    copy[run] = omp_get_wtime() - start;
    start = omp_get_wtime();
#pragma omp parallel for collapse(2)
    for (int i = 1; i < NI - 1; ++i)
      for (int j = 1; j < NJ - 1; ++j)
#pragma omp simd
        for (int k = 0; k < NK; ++k)
          out[AT(i, j, k)] = in[AT(i + 1, j, k)] + in[AT(i - 1, j, k)] + in[AT(i, j + 1, k)] +
                             in[AT(i, j - 1, k)] - 4.0 * in[AT(i, j, k)];
    laplacian[run] = omp_get_wtime() - start;
  }
  double copy_s = median(copy);
  printf("{\"copy_s\": %.6f, \"copy_gb_s\": %.1f, \"laplacian_s\": %.6f, \"threads\": %d}\n",
         copy_s, 2.0 * points * sizeof(double) / copy_s / 1e9, median(laplacian),
         omp_get_max_threads());
  free(in);
  free(out);
  return 0;
}
