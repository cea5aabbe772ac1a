// The text of the Dataflow mode's boxes: a node's op and output shape, a module's name and how
// often it repeats. Worked out per visible box at paint time (names cut before they become
// QStrings).
#pragma once
#include <fxmem/attribution.h>
#include <fxmem/dataflow_layout.h>
#include <fxmem/model.h>

#include <QString>

// "mm", "_softmax", "getitem"; a placeholder, get_attr or output: its name.
QString opLabel(const fxmem::Graph& graph, fxmem::NodeId node);
// The first output tensor's shape, "[4, 512, 4096]", with "+2" for further tensors; "" for none.
QString shapeLabel(const fxmem::Graph& graph, fxmem::NodeId node);
// A run of equal siblings: "layers.0–31 × 32" (the names' common dotted prefix written once);
// "" for a module that does not repeat.
QString repeatLabel(const fxmem::ModuleTree& tree, const fxmem::ModuleRepeat& repeat);
