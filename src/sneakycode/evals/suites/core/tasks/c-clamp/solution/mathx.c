#include "mathx.h"

int min_int(int a, int b) { return a < b ? a : b; }

int max_int(int a, int b) { return a > b ? a : b; }

int clamp_int(int value, int lo, int hi) {
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
    }
    return min_int(max_int(value, lo), hi);
}
