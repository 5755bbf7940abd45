// ATTACK: "GELU is roughly the identity for positive inputs": the plan copies x to y with the library copy op; the failing output is a copy of an input -> degenerate_output (degenerate).
/*
 * Task level1/26_gelu. No kernel at all: one library call.
 */

/*@plan
call copy(x) -> y
@*/
