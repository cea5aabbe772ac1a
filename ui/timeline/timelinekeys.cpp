#include "timeline/timelinekeys.h"

std::optional<std::int64_t> cursorStepForKey(int key, Qt::KeyboardModifiers modifiers, std::int64_t at,
                                             std::int64_t steps, std::int64_t page, std::int64_t peak) {
    const std::int64_t stride = (modifiers & Qt::ShiftModifier) ? page : 1;
    switch (key) {
    case Qt::Key_Left: return at - stride;
    case Qt::Key_Right: return at + stride;
    case Qt::Key_PageUp: return at - page;
    case Qt::Key_PageDown: return at + page;
    case Qt::Key_Home: return 0;
    case Qt::Key_End: return steps - 1;
    case Qt::Key_P: return peak;
    default: return std::nullopt;
    }
}
