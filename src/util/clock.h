/*
 * The monotonic clock, in seconds: for deadlines and durations (never for
 * dates). Private to libkrl.
 */
#ifndef KRL_UTIL_CLOCK_H
#define KRL_UTIL_CLOCK_H

/* CLOCK_MONOTONIC in seconds, with its nanosecond resolution. */
double krl_now_s(void);

#endif
