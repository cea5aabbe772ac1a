// The Sizes bar, shown for a file captured with dynamic shapes (symbols in it): per symbol a
// slider over its range on a log scale and a number field; the device's memory (GPU presets, or a
// typed size); and "Largest that fits", fxmem/fit.h's exact answer for one symbol, measured as the
// timeline's peak.
//
// The bar owns no scene: it asks for a binding (bindingRequested) and shows the binding of the
// scene that ViewState holds. While one binding is being computed, newer moves are coalesced:
// only the latest value is asked for next, when the scene in flight arrives.
#pragma once
#include <QString>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace fxmem {
class GraphFile;
}
class Int64SpinBox;
class JobTracker;
class QComboBox;
class QLabel;
class QSlider;
class QToolButton;
class ViewState;
struct Scene;

class SizesBar : public QWidget {
    Q_OBJECT
public:
    explicit SizesBar(ViewState* state, QWidget* parent = nullptr);
    ~SizesBar() override;

    // The values asked for, one per symbol: the scene's binding, or a newer one on its way.
    const std::vector<std::int64_t>& values() const { return values_; }
    int symbolCount() const { return static_cast<int>(rows_.size()); }
    QString label(int symbol) const;
    QSlider* slider(int symbol) const;
    Int64SpinBox* field(int symbol) const;
    // As if typed into the symbol's field (clamped to its range).
    void setValue(int symbol, std::int64_t value);
    // "batch=64,s27=1024" (a symbol by name, Dynamo source or the bar's word for it), as fxmem-cli's
    // --set: each value set as if typed. Returns what is wrong, empty when all was set.
    QString setValues(const QString& assignments);
    // Whether a binding asked for has not been shown yet.
    bool pending() const { return inFlight_ || queued_; }

    // The device's memory in bytes, -1 for none; setting it selects a preset when one matches.
    std::int64_t deviceMemory() const { return device_; }
    void setDeviceMemory(std::int64_t bytes);
    QComboBox* deviceCombo() const { return deviceCombo_; }

    // "Largest that fits" for a symbol (the button's: the batch, else the first symbol), in the
    // device's memory; its answer becomes the symbol's value, its outcome the message.
    void fitLargest(int symbol);
    int fitSymbol() const { return fitSymbol_; }
    bool fitting() const;
    QToolButton* fitButton() const { return fitButton_; }
    QString message() const;

public slots:
    // The window could not show the binding asked for (`message` says why; empty: the user kept
    // an unsaved schedule): back to the scene's.
    void bindingFailed(const QString& message);

signals:
    void bindingRequested(const std::vector<std::int64_t>& values);
    // Bytes and what the line calls them ("80 GB"); -1 when the bar hides or none is chosen.
    void deviceMemoryChanged(std::int64_t bytes, const QString& name);
    // A fit search ended (its value asked for, or its message shown).
    void fitFinished();

private:
    struct Row;
    void onScene(const std::shared_ptr<const Scene>& scene);
    void rebuildRows(const Scene& scene);
    void showValues();
    void changed(int symbol, std::int64_t value);
    void request();
    void readDevice();
    void announceDevice();
    void updateFitButton();
    void showMessage(const QString& text, bool error);

    ViewState* state_;
    std::vector<std::unique_ptr<Row>> rows_;
    QWidget* rowsBox_ = nullptr;
    QComboBox* deviceCombo_ = nullptr;
    QToolButton* fitButton_ = nullptr;
    QLabel* message_ = nullptr;
    std::function<QString()> fitText_; // the fit answer shown, in the byte units now; null: another message
    bool messageIsError_ = false;
    JobTracker* fitJobs_ = nullptr;
    std::vector<std::int64_t> values_;
    std::shared_ptr<const fxmem::GraphFile> rowsFor_; // the file as loaded that the rows were made for
    std::int64_t device_ = -1;
    QString deviceName_;
    int fitSymbol_ = 0;
    bool inFlight_ = false, queued_ = false;
};
