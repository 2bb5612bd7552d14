/* What the synthetic archive writers (otf2_synth.c, otf2_scorep_synth.c) share. */
#ifndef NETSENS_OTF2_SYNTH_H
#define NETSENS_OTF2_SYNTH_H

#include <otf2/otf2.h>

/* A new archive `dir`/traces.otf2 written serially, every buffer flushed when full,
 * its creator `creator`, its event files open; NULL if it cannot be created. */
OTF2_Archive *ns_otf2_synth_open(const char *dir, const char *creator);

#endif
