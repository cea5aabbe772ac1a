// "Largest that fits" for the view shown: fxmem/fit.h's exact search, measuring the peak the
// timeline shows for the scene's request, so its answer is the largest size whose peak label
// says "fits". A joined pair measures the pair peak (fxmem-cli fit), the whole step the step's
// peak (fit --whole-step), a single graph its own profile's peak.
#pragma once
#include "loading/scene.h"

#include <fxmem/fit.h>

#include <cstdint>

// The peak the timeline shows for `request` (resolved, as Scene::request) of `file` as bound.
std::int64_t viewPeak(const fxmem::GraphFile& file, const SceneRequest& request);

// The largest value of symbol `symbol` whose view peak fits in `limit` bytes, the other symbols
// at `binding`. Throws fxmem::Error as fit_symbol does.
// `cancelled` is polled before every evaluation (fxmem::Cancelled).
fxmem::FitResult fitView(fxmem::GraphFile file, const SceneRequest& request, std::size_t symbol,
                         const std::vector<std::int64_t>& binding, std::int64_t limit,
                         const fxmem::CancelCheck& cancelled = {});
