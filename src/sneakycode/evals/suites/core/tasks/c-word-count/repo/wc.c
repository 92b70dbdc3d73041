#include "wc.h"

int count_words(const char *text) {
    int words = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ') words++;
    }
    return *text ? words + 1 : 0;
}
