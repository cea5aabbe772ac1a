// The scene's profile as CSV (File ▸ Export Profile as CSV): core's write_profile_csv on the
// scene's timeline (fxmem/profile_csv.h: the columns fxmem-cli profile --csv writes too); with an
// edited schedule of a single graph, also that schedule's bytes and the node it runs at the same
// step. A pure function, so tests read its text directly.
#pragma once
#include "loading/scene.h"

#include <QByteArray>

#include <cstdint>
#include <span>

// `edited` (the edited order's MemoryTracker curve) and `editedOrder` are empty without an edit.
// Names are quoted as RFC 4180 asks when they hold a comma, a quote or a line break.
QByteArray profileCsv(const Scene& scene, std::span<const std::int64_t> edited = {},
                      std::span<const fxmem::NodeId> editedOrder = {});
