/* The monotonic clock (util/clock.h). */
#include <time.h>

#include "util/clock.h"

double krl_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
