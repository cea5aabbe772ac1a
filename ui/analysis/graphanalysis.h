// The analysis lives in core (fxmem/analysis.h), shared with the CLI; the UI names it unqualified.
#pragma once
#include <fxmem/analysis.h>

using fxmem::DeviceFilter;
using fxmem::GraphAnalysis;
