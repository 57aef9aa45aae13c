// glibc's allocator controls (mallopt) for the command-line tool.
#include <malloc.h>
