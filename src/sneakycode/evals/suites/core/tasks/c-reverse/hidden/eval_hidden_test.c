#include <stdio.h>
#include <string.h>
#include "strutil.h"

static int check(const char *in, const char *want) {
    char buf[64];
    strcpy(buf, in);
    reverse(buf);
    if (strcmp(buf, want) != 0) {
        printf("reverse(\"%s\") gave \"%s\", want \"%s\"\n", in, buf, want);
        return 1;
    }
    return 0;
}

int main(void) {
    int bad = check("hello", "olleh") + check("ab", "ba") + check("a", "a") + check("", "")
            + check("racecar!", "!racecar");
    if (!bad) puts("ok");
    return bad != 0;
}
