/* DaCe AUTO-GENERATED FILE. DO NOT MODIFY */
#include <dace/dace.h>
#include "../../include/hash.h"
constexpr int64_t __I = 12;
constexpr int64_t __J = 12;
constexpr int64_t __K = 6;
constexpr int64_t __a_origin_I = 1;
constexpr int64_t __a_origin_J = 1;
constexpr int64_t __a_origin_K = 0;
constexpr int64_t __c_origin_I = 1;
constexpr int64_t __c_origin_J = 1;
constexpr int64_t __c_origin_K = 0;
constexpr int64_t __d_origin_I = 1;
constexpr int64_t __d_origin_J = 1;
constexpr int64_t __d_origin_K = 0;
constexpr int64_t __I_0 = 12;
constexpr int64_t __J_0 = 12;
constexpr int64_t __K_0 = 6;
constexpr int64_t __b_origin_I = 1;
constexpr int64_t __b_origin_J = 1;
constexpr int64_t __b_origin_K = 0;
constexpr int64_t __c_origin_I_0 = 1;
constexpr int64_t __c_origin_J_0 = 1;
constexpr int64_t __c_origin_K_0 = 0;
constexpr int64_t __I_1 = 12;
constexpr int64_t __J_1 = 12;
constexpr int64_t __K_1 = 6;
constexpr int64_t __a_origin_I_0 = 1;
constexpr int64_t __a_origin_J_0 = 1;
constexpr int64_t __a_origin_K_0 = 0;
constexpr int64_t __b_origin_I_0 = 1;
constexpr int64_t __b_origin_J_0 = 1;
constexpr int64_t __b_origin_K_0 = 0;

struct step_state_t {

};

#ifndef GT4PY_DACE_GLOBAL_05CA676920AF6BAC
#define GT4PY_DACE_GLOBAL_05CA676920AF6BAC

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <gt4py/python_semantics.hpp>

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
static thread_local bool gt_kfailed = false;

static inline std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
std::int64_t* error) {
    if (index >= 0 && index < size) return index;
    gt_kfailed = true;
    #pragma omp critical(gt_kindex_error)
    if (error[0] < 0) {
        error[0] = field;
        error[1] = index;
        error[2] = size;
    }
    return 0;
}

#endif
#ifndef GT4PY_DACE_GLOBAL_05CA676920AF6BAC
#define GT4PY_DACE_GLOBAL_05CA676920AF6BAC

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <gt4py/python_semantics.hpp>

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
static thread_local bool gt_kfailed = false;

static inline std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
std::int64_t* error) {
    if (index >= 0 && index < size) return index;
    gt_kfailed = true;
    #pragma omp critical(gt_kindex_error)
    if (error[0] < 0) {
        error[0] = field;
        error[1] = index;
        error[2] = size;
    }
    return 0;
}

#endif
#ifndef GT4PY_DACE_GLOBAL_05CA676920AF6BAC
#define GT4PY_DACE_GLOBAL_05CA676920AF6BAC

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <gt4py/python_semantics.hpp>

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
static thread_local bool gt_kfailed = false;

static inline std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
std::int64_t* error) {
    if (index >= 0 && index < size) return index;
    gt_kfailed = true;
    #pragma omp critical(gt_kindex_error)
    if (error[0] < 0) {
        error[0] = field;
        error[1] = index;
        error[2] = size;
    }
    return 0;
}

#endif
void __program_step_internal(step_state_t*__state, double * __restrict__ a, double * __restrict__ b, double * __restrict__ c, double * __restrict__ d, double w)
{
    int64_t __k;

    {

        {
            #pragma omp parallel for collapse(2)
            for (int64_t __k = Min(0, __K); __k < __K; __k += 1) {
                for (int64_t __i = 0; __i < __I; __i += 1) {
                    for (int64_t __j = 0; __j < __J; __j += 1) {
                        {
                            const double* u_a = &a[0];
                            double* u_b = b;

                            ///////////////////
                            int64_t __b_stride_J = 1;
                            int64_t __a_stride_J = 1;
                            int64_t __a_stride_K = 196;
                            int64_t __a_stride_I = 14;
                            int64_t __b_stride_K = 196;
                            int64_t __b_stride_I = 14;
                            u_b[(__i + 0 + __b_origin_I) * __b_stride_I + (__j + 0 + __b_origin_J) * __b_stride_J + (__k + 0 + __b_origin_K) * __b_stride_K] = gt4py::convert<double>(((((((4.0) * u_a[(__i + 0 + __a_origin_I) * __a_stride_I + (__j + 0 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]) - u_a[(__i + 1 + __a_origin_I) * __a_stride_I + (__j + 0 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]) - u_a[(__i + -1 + __a_origin_I) * __a_stride_I + (__j + 0 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]) - u_a[(__i + 0 + __a_origin_I) * __a_stride_I + (__j + 1 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]) - u_a[(__i + 0 + __a_origin_I) * __a_stride_I + (__j + -1 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]));
                            ///////////////////

                        }
                    }
                }
            }
        }
        {
            #pragma omp parallel for collapse(2)
            for (int64_t __k = Min(0, __K); __k < __K; __k += 1) {
                for (int64_t __i = 0; __i < __I; __i += 1) {
                    for (int64_t __j = 0; __j < __J; __j += 1) {
                        {
                            const double* u_b = &b[0];
                            double u_w = w;
                            double* u_c = c;

                            ///////////////////
                            int64_t __c_stride_K = 196;
                            int64_t __b_stride_J = 1;
                            int64_t __c_stride_I = 14;
                            int64_t __b_stride_K = 196;
                            int64_t __b_stride_I = 14;
                            int64_t __c_stride_J = 1;
                            u_c[(__i + 0 + __c_origin_I) * __c_stride_I + (__j + 0 + __c_origin_J) * __c_stride_J + (__k + 0 + __c_origin_K) * __c_stride_K] = gt4py::convert<double>((u_w * u_b[(__i + 0 + __b_origin_I) * __b_stride_I + (__j + 0 + __b_origin_J) * __b_stride_J + (__k + 0 + __b_origin_K) * __b_stride_K]));
                            ///////////////////

                        }
                    }
                }
            }
        }

    }
    for (__k = min(max((0 + 0), 0), __K); (__k < min(max((0 + 1), 0), __K)); __k = (__k + 1)) {
        {

            {
                #pragma omp parallel for collapse(2)
                for (int64_t __i = 0; __i < __I; __i += 1) {
                    for (int64_t __j = 0; __j < __J; __j += 1) {
                        {
                            const double* u_c = &c[0];
                            const double* u_a = &a[0];
                            double* u_d = d;

                            ///////////////////
                            int64_t __c_stride_K = 196;
                            int64_t __d_stride_I = 14;
                            int64_t __c_stride_I = 14;
                            int64_t __a_stride_J = 1;
                            int64_t __a_stride_K = 196;
                            int64_t __a_stride_I = 14;
                            int64_t __d_stride_K = 196;
                            int64_t __d_stride_J = 1;
                            int64_t __c_stride_J = 1;
                            u_d[(__i + 0 + __d_origin_I) * __d_stride_I + (__j + 0 + __d_origin_J) * __d_stride_J + (__k + 0 + __d_origin_K) * __d_stride_K] = gt4py::convert<double>((u_a[(__i + 0 + __a_origin_I) * __a_stride_I + (__j + 0 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K] + u_c[(__i + 0 + __c_origin_I) * __c_stride_I + (__j + 0 + __c_origin_J) * __c_stride_J + (__k + 0 + __c_origin_K) * __c_stride_K]));
                            ///////////////////

                        }
                    }
                }
            }

        }

    }
    for (__k = min(max((0 + 1), 0), __K); (__k < min(max((__K + 0), 0), __K)); __k = (__k + 1)) {
        {

            {
                #pragma omp parallel for collapse(2)
                for (int64_t __i = 0; __i < __I; __i += 1) {
                    for (int64_t __j = 0; __j < __J; __j += 1) {
                        {
                            const double* u_c = &c[0];
                            const double* u_a = &a[0];
                            double* u_d = d;

                            ///////////////////
                            int64_t __c_stride_K = 196;
                            int64_t __d_stride_I = 14;
                            int64_t __c_stride_I = 14;
                            int64_t __a_stride_J = 1;
                            int64_t __a_stride_K = 196;
                            int64_t __a_stride_I = 14;
                            int64_t __d_stride_K = 196;
                            int64_t __d_stride_J = 1;
                            int64_t __c_stride_J = 1;
                            u_d[(__i + 0 + __d_origin_I) * __d_stride_I + (__j + 0 + __d_origin_J) * __d_stride_J + (__k + 0 + __d_origin_K) * __d_stride_K] = gt4py::convert<double>(((u_d[(__i + 0 + __d_origin_I) * __d_stride_I + (__j + 0 + __d_origin_J) * __d_stride_J + (__k + -1 + __d_origin_K) * __d_stride_K] + u_a[(__i + 0 + __a_origin_I) * __a_stride_I + (__j + 0 + __a_origin_J) * __a_stride_J + (__k + 0 + __a_origin_K) * __a_stride_K]) + u_c[(__i + 0 + __c_origin_I) * __c_stride_I + (__j + 0 + __c_origin_J) * __c_stride_J + (__k + 0 + __c_origin_K) * __c_stride_K]));
                            ///////////////////

                        }
                    }
                }
            }

        }

    }
}

DACE_EXPORTED void __program_step(step_state_t *__state, double * __restrict__ a, double * __restrict__ b, double * __restrict__ c, double * __restrict__ d, double w)
{
    __program_step_internal(__state, a, b, c, d, w);
}

DACE_EXPORTED step_state_t *__dace_init_step()
{

    int __result = 0;
    step_state_t *__state = new step_state_t();

    if (__result) {
        delete __state;
        return nullptr;
    }

    if (__result) {
        delete __state;
        return nullptr;
    }

    return __state;
}

DACE_EXPORTED int __dace_exit_step(step_state_t *__state)
{

    int __err = 0;
    delete __state;
    return __err;
}
