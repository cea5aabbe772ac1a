// A dark and a light palette for the Fusion style, for `fxmem --theme` (desktops without a dark
// theme of their own, and screenshots of both looks). Without it the app follows the system.
#pragma once
#include <QPalette>
#include <QString>

// Applies "dark" or "light" (Fusion style + palette) to the application; false for other names.
bool applyTheme(const QString& name);
QPalette darkPalette();
