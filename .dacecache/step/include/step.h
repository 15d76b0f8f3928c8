#include <dace/dace.h>
typedef void * stepHandle_t;
extern "C" stepHandle_t __dace_init_step();
extern "C" int __dace_exit_step(stepHandle_t handle);
extern "C" void __program_step(stepHandle_t handle, double * __restrict__ a, double * __restrict__ b, double * __restrict__ c, double * __restrict__ d, double w);
