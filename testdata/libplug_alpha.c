/* libplug_alpha.so: plugin.h as alpha_run and alpha_hot. */
#define PLUG(x) alpha_##x
#include "plugin.h"
