// The QtTests' precompiled header (tests/ui/CMakeLists.txt): the UI library's, and QtTest.
#pragma once
#include "precompiled.h" // ui/precompiled.h, through the library's include path

#include <QSignalSpy>
#include <QtTest>
