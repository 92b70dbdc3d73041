#include "mathx.h"

int min_int(int a, int b) { return a < b ? a : b; }

int max_int(int a, int b) { return a > b ? a : b; }
