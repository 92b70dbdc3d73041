#ifndef WC_H
#define WC_H
int count_words(const char *text);
#endif
