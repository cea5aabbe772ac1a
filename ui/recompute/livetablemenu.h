// The live table's context menu for recompute edits: on a saved activation (or a recomputed
// value) of a pair that partitions a joint graph, "Recompute in backward" / "Save in forward"
// through RecomputePanel::toggleStorage; elsewhere the item is disabled and says why.
#pragma once

class QTableView;
class RecomputePanel;

void attachRematMenu(QTableView* liveTable, RecomputePanel* panel);
