#include "util/colors.h"

#include <algorithm>

namespace colors {

bool isDark(const QPalette& palette) { return palette.color(QPalette::Window).lightnessF() < 0.5; }

QColor mix(const QColor& a, const QColor& b, double t) {
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

namespace {
// Hue per op kind; lightness follows the theme so nodes stand out on either background.
QColor themed(int hue, int saturation, const QPalette& palette) {
    // Lightness 100 on light backgrounds keeps every hue, teal included, at 3:1 or more (WCAG).
    return QColor::fromHsl(hue, saturation, isDark(palette) ? 150 : 100);
}
} // namespace

QColor opColor(fxmem::OpKind op, const QPalette& palette) {
    switch (op) {
    case fxmem::OpKind::Placeholder: return themed(210, 160, palette); // inputs: blue
    case fxmem::OpKind::GetAttr: return themed(270, 110, palette);     // parameters: violet
    case fxmem::OpKind::CallFunction: return themed(30, 170, palette); // compute: amber
    case fxmem::OpKind::CallMethod: return themed(170, 140, palette);  // methods: teal
    case fxmem::OpKind::CallModule: return themed(320, 120, palette);  // modules: magenta
    case fxmem::OpKind::Output: return themed(0, 0, palette);          // output: grey
    }
    return palette.color(QPalette::Text);
}

QColor categoryColor(fxmem::OpCategory category, const QPalette& palette) {
    using C = fxmem::OpCategory;
    const bool dark = isDark(palette);
    // Muted: low saturation, close to the background's contrast floor.
    auto muted = [&](int hue) { return QColor::fromHsl(hue, 25, dark ? 135 : 150); };
    switch (category) {
    case C::Input: return themed(210, 160, palette);      // blue
    case C::Output: return themed(0, 0, palette);         // grey
    case C::Matmul: return themed(22, 220, palette);      // orange
    case C::Attention: return themed(350, 200, palette);  // crimson
    case C::Convolution: return themed(40, 200, palette); // amber
    case C::Norm: return themed(125, 150, palette);       // green
    case C::Reduction: return themed(175, 160, palette);  // teal
    case C::Elementwise: return themed(60, 120, palette); // olive yellow
    case C::View: return muted(210);                      // pale grey-blue: free
    case C::Copy: return themed(330, 110, palette);       // pink
    case C::Indexing: return themed(265, 120, palette);   // violet
    case C::Creation: return themed(195, 110, palette);   // sky
    case C::Random: return themed(95, 110, palette);      // lime
    case C::Collective: return themed(295, 200, palette); // magenta
    case C::Wait: return themed(295, 90, palette);        // dim magenta
    case C::Other: return muted(30);                      // grey-brown
    }
    return palette.color(QPalette::Text);
}

QColor deltaColor(double s, const QPalette& palette) {
    const QColor neutral = mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.35);
    const QColor grow = isDark(palette) ? QColor(255, 110, 90) : QColor(210, 40, 30);
    const QColor shrink = isDark(palette) ? QColor(90, 210, 120) : QColor(20, 150, 60);
    return s >= 0 ? mix(neutral, grow, 0.25 + 0.75 * s) : mix(neutral, shrink, 0.25 + 0.75 * -s);
}

QColor curve(const QPalette& palette) { return isDark(palette) ? QColor(100, 170, 255) : QColor(25, 100, 200); }
QColor edited(const QPalette& palette) { return isDark(palette) ? QColor(255, 170, 60) : QColor(220, 110, 0); }
QColor peak(const QPalette& palette) { return isDark(palette) ? QColor(255, 90, 90) : QColor(200, 20, 30); }
QColor live(const QPalette& palette) { return isDark(palette) ? QColor(255, 215, 0) : QColor(175, 140, 0); }
QColor cursor(const QPalette& palette) {
    return mix(palette.color(QPalette::Base), palette.color(QPalette::Text), 0.7);
}

} // namespace colors
