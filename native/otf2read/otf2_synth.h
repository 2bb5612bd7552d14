/* What the synthetic archive writers (otf2_synth.c, otf2_scorep_synth.c) share. */
#ifndef NETSENS_OTF2_SYNTH_H
#define NETSENS_OTF2_SYNTH_H

#include <otf2/otf2.h>

/* Flush every buffer when full, with no timestamp of its own: a test archive records
 * no flush. */
extern const OTF2_FlushCallbacks ns_otf2_synth_flush;

#endif
