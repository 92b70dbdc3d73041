#ifndef MATHX_H
#define MATHX_H
int min_int(int a, int b);
int max_int(int a, int b);
#endif
