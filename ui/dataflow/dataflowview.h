// The graph view's Dataflow mode: the scene drawn as a layered dataflow graph by module, inputs
// at the top and the loss at the bottom, each segment (a pair's forward and backward, the whole
// step's runs) its own drawing, side by side. Modules open at the model's layer depth collapsed;
// double-click opens or closes one in place. It reads what the Time mode reads (the scene, the
// cursor, the selection and module through ViewState, the live set the panels share, the colour
// mode, the recomputed nodes) and computes only its geometry: the layouts are made on a
// JobTracker worker when the view is shown, marks per cursor step (dataflowMarks).
// Mouse: wheel zooms at the pointer, drag pans, click selects (a node, or a module), hover shows
// an edge's or box's bytes; keys: F fits, +/- zoom.
#pragma once
#include "dataflow/dataflowlabelcache.h"
#include "dataflow/dataflowlayouts.h"
#include "dataflow/dataflowmarks.h"
#include "dataflow/dataflowpainter.h"
#include "graphview/colormode.h"
#include "graphview/nodecolors.h"
#include "graphview/scenecategories.h"
#include "loading/scene.h"

#include <QImage>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class JobTracker;
class QPainter;
class ViewState;

class DataflowView : public QWidget {
    Q_OBJECT
public:
    // With `state`, the view follows its scene, cursor, shown live set, node, module and units,
    // and selects through it; without, it shows what it is given (tests, the benchmark).
    explicit DataflowView(ViewState* state = nullptr, QWidget* parent = nullptr);
    ~DataflowView() override;

    void setColorMode(NodeColorMode mode);
    // Nodes a pair's backward computes again: a dotted outline, as in the Time mode.
    void setRecomputedNodes(const std::vector<NodeRef>& nodes);
    void setSearchMatches(const std::vector<NodeRef>& matches);

    // The layouts of the shown scene; null until the worker delivered them.
    const DataflowLayouts* layouts() const { return layouts_.get(); }
    const DataflowMarks& marks() const { return marks_; }
    const DataflowCamera& camera() const { return camera_; }
    NodeRef selectedNode() const { return selected_; }
    // What a box is drawn with now: DataflowBoxFlag bits (selected, hovered, path, ...); 0 for none.
    std::uint8_t boxFlags(int segment, std::uint32_t box) const {
        return segment >= 0 && static_cast<std::size_t>(segment) < flags_.size() && box < flags_[segment].size()
                   ? flags_[segment][box]
                   : 0;
    }

    struct Hit {
        int segment = -1;
        std::uint32_t box = DataflowLayouts::kNone;
        bool valid() const { return segment >= 0; }
    };
    Hit boxAt(QPointF pos) const;
    QPointF boxCenter(int segment, std::uint32_t box) const; // widget coordinates
    // The edge under pos: {segment, edge index}, or segment -1.
    std::pair<int, std::size_t> edgeAt(QPointF pos) const;
    QString tooltipAt(QPointF pos) const;
    // Opens a collapsed module or closes an open one, in place; false when neither.
    bool toggleModule(int segment, std::uint32_t module);
    // Opens the modules of these qualified names in every segment that has them, now or once the
    // layouts arrive, and shows the first of them whole (fxmem --expand).
    void expandModules(const QStringList& names);
    // The minimap in the bottom-right corner (widget coordinates); empty while the whole drawing
    // is in view. A click or drag in it centres the view there.
    QRectF minimapRect() const;
    // How many boxes the last paint drew.
    std::size_t lastPaintedBoxes() const { return painted_; }
    // Whether the view keeps its base layer (DataflowLayer::Base) as an image across frames that
    // show the same thing (on by default; off, every frame paints it: the reference a test
    // compares with), and whether the last frame drew the kept image.
    void setKeepBase(bool keep);
    bool reusedBase() const { return reusedBase_; }

public slots:
    void setScene(std::shared_ptr<const Scene> scene);
    void setCursorStep(std::int64_t step);
    void selectNode(NodeRef ref);
    void setHighlightedModuleName(const QString& name);
    void zoomToFit();
    // The whole drawing in view, now or once the layouts arrive (fxmem --dataflow-fit).
    void fitWhenLaidOut();
    void zoomBy(double factor, QPointF at);
    // Brings the node's box to the middle, opening the collapsed modules that hide it.
    void centerOn(NodeRef ref);

signals:
    void nodeClicked(NodeRef ref);
    void nodeHovered(NodeRef ref);
    void moduleClicked(int segment, std::uint32_t module);
    // The layouts of the scene arrived (after the view was shown), or a module opened or closed.
    void layoutChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void showEvent(QShowEvent* event) override;
    bool event(QEvent* event) override;

private:
    void bindState(ViewState* state);
    void startLayout();
    // Per segment, the tree names of the modules open now (expanded, shown or inside a closed one).
    std::vector<std::vector<std::string>> openModules() const;
    // Opens and closes modules so that those of these names are the open ones, per segment.
    void restoreOpenModules(const std::vector<std::vector<std::string>>& open);
    void revealModule(const QString& name);
    // Keeps the zoom and puts the box's centre in the middle of the widget.
    void centreOnBox(const DataflowPiece& piece, std::uint32_t box);
    void refreshMarks();
    void refreshFlags();
    NodeRef nodeOfBox(const Hit& hit) const;
    void paintMinimap(QPainter& painter);
    void centreOnMinimap(QPointF pos);
    // Moves the camera to `origin`. A move by whole pixels scrolls what is painted (QWidget::scroll)
    // and repaints only the strips it exposes and the minimap; any other move repaints all.
    void panTo(QPointF origin);

    ViewState* state_ = nullptr;
    std::shared_ptr<const Scene> scene_;
    JobTracker* jobs_ = nullptr;
    std::shared_ptr<DataflowLayouts> layouts_;
    bool layoutPending_ = false; // the scene's layouts are still to be made (the view was hidden)
    DataflowMarks marks_;
    DataflowCamera camera_;
    NodeColorMode colorMode_ = NodeColorMode::OpCategory;
    SceneCategories categories_;
    NodeColors colors_;
    std::int64_t cursor_ = -1;
    NodeRef selected_;
    QString module_; // the selected module's qualified name; null: none
    QStringList pendingExpand_;
    // The same graphs bound at other sizes (the Sizes bar) are laid out again: the modules the
    // user had open and the camera are put back when the new layouts arrive.
    std::optional<std::vector<std::vector<std::string>>> keepOpen_;
    bool pendingFit_ = false;
    Hit hovered_;
    std::vector<std::vector<std::uint8_t>> recomputed_, matches_; // per segment, per node
    std::vector<std::vector<std::uint8_t>> flags_, pathEdges_;    // per segment, per box / edge
    DataflowLabelCache labels_;                                   // the node boxes' text, across frames
    QPoint pressPos_;
    QPointF pressOrigin_;
    bool pressed_ = false, panning_ = false, minimapDrag_ = false;
    QImage minimap_; // the boxes drawn small, made again when the layouts or the palette change
    const void* minimapOf_ = nullptr;
    qint64 minimapPalette_ = 0;
    std::uint64_t minimapGeneration_ = 0, layoutGeneration_ = 0;
    std::size_t painted_ = 0;
    std::uint64_t paintedStyle_ = 0; // DataflowPaintInput::style of the last frame
    // The base layer (DataflowLayer::Base), kept as an image from the second whole frame that
    // shows the same thing (the cursor moving over a still view): each step of the timeline then
    // paints only the marks layer over it. A frame whose key differs paints the base directly.
    struct BaseKey {
        std::uint64_t revision = 0, flags = 0; // the layouts', flagsRevision_
        double x = 0, y = 0, scale = 0;        // the camera
        int width = 0, height = 0;
        qint64 palette = 0;
        QString font;
        bool operator==(const BaseKey&) const = default;
    };
    BaseKey baseKey() const;
    QImage base_;
    BaseKey baseKey_, lastKey_;       // base_'s; the last whole frame's
    std::uint64_t baseStyle_ = 0;     // the style key base_'s frame added
    std::uint64_t flagsRevision_ = 0; // counts changes of flags_ and pathEdges_
    bool keepBase_ = true, reusedBase_ = false;
};
