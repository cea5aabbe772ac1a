// Keyboard scrubbing on the timeline, as a plain function of the key and where the cursor is.
#pragma once
#include <Qt>

#include <cstdint>
#include <optional>

// The step the cursor moves to from `at` on a profile of `steps` steps (clamped by the caller):
// ←/→ one step (Shift: a page), PgUp/PgDn a page, Home/End the ends, P the peak. None for other
// keys.
std::optional<std::int64_t> cursorStepForKey(int key, Qt::KeyboardModifiers modifiers, std::int64_t at,
                                             std::int64_t steps, std::int64_t page, std::int64_t peak);
