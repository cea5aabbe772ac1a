// The storages live at the cursor: a header naming the step, a debounced filter box, the table
// (LiveStorageModel behind a sort/filter proxy) and a footer with the bytes and storages the
// filter shows. Wires itself to the shared ViewState: it follows the cursor, the scene and the
// edited order, follows a selected module as a filter, and selects a row's allocator.
#pragma once
#include "analysis/liveatstep.h"
#include "loading/scene.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;
class LiveStorageModel;
class LiveStorageProxy;
class ViewState;

class LiveStoragePanel : public QWidget {
    Q_OBJECT
public:
    explicit LiveStoragePanel(ViewState* state, QWidget* parent = nullptr);

    LiveStorageModel* model() const { return model_; }
    LiveStorageProxy* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    QLabel* headerLabel() const { return header_; }
    QLabel* footerLabel() const { return footer_; }
public slots:
    void refresh(); // refills the rows with the state's shown live set (ViewState::shownLive)

private:
    void updateHeader();
    void updateFooter();
    ViewState* state_;
    LiveStorageModel* model_ = nullptr;
    LiveStorageProxy* proxy_ = nullptr;
    QTableView* table_ = nullptr;
    QLineEdit* filter_ = nullptr;
    QTimer* filterTimer_ = nullptr;
    QLabel* header_ = nullptr;
    QLabel* footer_ = nullptr;
    bool resizedOnce_ = false;
};
