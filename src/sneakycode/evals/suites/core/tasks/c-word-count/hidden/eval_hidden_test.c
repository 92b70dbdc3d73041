#include <stdio.h>
#include "wc.h"

static int check(const char *text, int want) {
    int got = count_words(text);
    if (got != want) printf("count_words(\"%s\") = %d, want %d\n", text, got, want);
    return got != want;
}

int main(void) {
    int bad = check("hello world", 2) + check("  hello   world  ", 2) + check("one\ttwo\nthree", 3)
            + check("", 0) + check("   ", 0) + check("single", 1);
    if (!bad) puts("ok");
    return bad != 0;
}
