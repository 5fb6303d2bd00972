/* libplug_bravo.so: plugin.h as bravo_run and bravo_hot. */
#define PLUG(x) bravo_##x
#include "plugin.h"
