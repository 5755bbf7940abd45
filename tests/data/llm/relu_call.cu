/*
 * The op library's own relu submitted as a candidate: no device code, one
 * library call. The judge must find it exactly as fast as the reference
 * (measured 0.999x [0.998, 1.000] at kb1 on an H200): a calibration of the
 * judge's fairness, used as a recorded candidate by tests/rl/test_optimize.c.
 */
/*@plan
call relu(x) -> y
@*/
