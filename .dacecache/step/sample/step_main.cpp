#include <cstdlib>
#include "../include/step.h"

int main(int argc, char **argv) {
    stepHandle_t handle;
    int err;
    double w = 42;
    double * __restrict__ a = (double*) calloc(1176, sizeof(double));
    double * __restrict__ b = (double*) calloc(1176, sizeof(double));
    double * __restrict__ c = (double*) calloc(1176, sizeof(double));
    double * __restrict__ d = (double*) calloc(1176, sizeof(double));


    handle = __dace_init_step();
    __program_step(handle, a, b, c, d, w);
    err = __dace_exit_step(handle);

    free(a);
    free(b);
    free(c);
    free(d);


    return err;
}
