// The public entry point of lpsim's training tracker: `#include <lpsim/tracker.h>`.
// See tracker/tracker.h for the API and a usage example.
#ifndef LPSIM_PUBLIC_TRACKER_H_
#define LPSIM_PUBLIC_TRACKER_H_

#include "tracker/tracker.h"

#endif  // LPSIM_PUBLIC_TRACKER_H_
