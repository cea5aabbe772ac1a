// Ties the Dataflow mode to the rest of the window as the Time mode is tied: the colour chooser,
// the find bar's matches, the recompute plan's nodes, hover moving the timeline's cursor, Reset
// Zoom fitting the drawing, and the mode remembered (AppSettings). The view binds itself to the
// ViewState (scene, cursor, selection) when it is made.
#pragma once

class ViewState;
struct WindowParts;

void bindDataflow(const WindowParts& parts, ViewState* state);
