// The view fxmem-cli export writes (core's fxmem/export.h), read from its options.
#pragma once
#include "args.h"

#include "fxmem/export.h"
#include "fxmem/model.h"

namespace fxmem::cli {

// --graph G, --pair K, --whole-step (at most one; bad usage otherwise); none: the graph of a
// --schedule when one is given, else the whole step when the file has one, else pair 0 when it
// has pairs, else the only graph. --in-pair (with a graph only) scores a pair's backward as in
// its pair; --schedule/--schedule-name reorder a graph of the view; --devices as elsewhere.
ExportView export_view(const GraphFile& file, const Args& args);

} // namespace fxmem::cli
