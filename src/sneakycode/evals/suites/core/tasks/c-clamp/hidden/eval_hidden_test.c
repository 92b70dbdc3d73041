#include <stdio.h>
#include "mathx.h"

#define EXPECT(expr, want) do { int got = (expr); if (got != (want)) { \
    printf("%s = %d, want %d\n", #expr, got, (want)); bad = 1; } } while (0)

int main(void) {
    int bad = 0;
    EXPECT(clamp_int(5, 0, 10), 5);
    EXPECT(clamp_int(-3, 0, 10), 0);
    EXPECT(clamp_int(42, 0, 10), 10);
    EXPECT(clamp_int(7, 10, 0), 7);
    EXPECT(clamp_int(12, 10, 0), 10);
    EXPECT(min_int(2, 3), 2);
    EXPECT(max_int(2, 3), 3);
    if (!bad) puts("ok");
    return bad;
}
