/*
 * switch50: server50 switching as fast as it can. The client sends the
 * next request as soon as the answer comes, and a request is about 40 us
 * of work, so the fifty workers and the client hand the CPU to each other
 * over 10,000 times a second, mostly for less than a tick: what costs a
 * wall-mode profiler that samples context switches most, and what fills
 * its buffers fastest.
 */
#define SERVER_NAME "switch50"
#define SERVER_PAUSE_NS 0
#define SERVER_WORK 30000
#include "server50.c"
