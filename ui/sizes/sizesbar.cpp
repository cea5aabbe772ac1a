#include "sizes/sizesbar.h"

#include "jobs/jobtracker.h"
#include "loading/scene.h"
#include "sizes/devicememory.h"
#include "sizes/int64spinbox.h"
#include "sizes/logscale.h"
#include "sizes/symbollabel.h"
#include "sizes/viewfit.h"
#include "state/viewstate.h"
#include "util/units.h"

#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalBlocker>
#include <QSlider>
#include <QStringBuilder>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
constexpr int kDefaultPresetGb = 80; // the usual training GPU
} // namespace

struct SizesBar::Row {
    QString name;
    LogScale scale;
    QWidget* box = nullptr;
    QLabel* label = nullptr;
    QSlider* slider = nullptr;
    Int64SpinBox* field = nullptr;
};

SizesBar::SizesBar(ViewState* state, QWidget* parent)
    : QWidget(parent), state_(state), fitJobs_(new JobTracker(this, 1)) {
    // The controls on one row; a fit's answer or an error on a second, only while there is one.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(6, 2, 6, 2);
    outer->setSpacing(0);
    auto* layout = new QHBoxLayout;
    layout->setSpacing(6);
    outer->addLayout(layout);
    auto* title = new QLabel(tr("<b>Sizes</b>"));
    title->setToolTip(tr("The capture was traced with dynamic shapes: every size below re-scores the timeline, "
                         "the live storages, the breakdown and the Recompute tab at that binding, exactly."));
    layout->addWidget(title);
    rowsBox_ = new QWidget;
    auto* rows = new QHBoxLayout(rowsBox_);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(10);
    layout->addWidget(rowsBox_, 1);

    auto* line = new QFrame;
    line->setFrameShape(QFrame::VLine);
    line->setFrameShadow(QFrame::Sunken);
    layout->addWidget(line);
    auto* gpu = new QLabel(tr("GPU"));
    layout->addWidget(gpu);
    deviceCombo_ = new QComboBox;
    deviceCombo_->setEditable(true);
    deviceCombo_->setInsertPolicy(QComboBox::NoInsert);
    deviceCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    deviceCombo_->setMinimumContentsLength(12);
    deviceCombo_->addItem(tr("none"), QVariant::fromValue<qlonglong>(-1));
    for (const DevicePreset& p : devicePresets()) {
        deviceCombo_->addItem(p.text(), QVariant::fromValue<qlonglong>(p.bytes()));
        deviceCombo_->setItemData(deviceCombo_->count() - 1,
                                  tr("%1 GB = %2 bytes: %3").arg(p.gb).arg(p.bytes()).arg(p.devices), Qt::ToolTipRole);
    }
    const QString help =
        tr("The device's memory: a line on the timeline, and the peak's label says whether it fits.\n"
           "Presets are GB as GPU datasheets print them, taken as 10^9 bytes: 80 GB = 74.5 GiB. What PyTorch "
           "can allocate is a little less than the card holds.\nType another size: 79.6GiB, 24GB, 512MiB "
           "(GB, MB: powers of 1000; GiB, MiB: powers of 1024).");
    deviceCombo_->setToolTip(help);
    gpu->setToolTip(help);
    layout->addWidget(deviceCombo_);
    connect(deviceCombo_, &QComboBox::activated, this, &SizesBar::readDevice);
    connect(deviceCombo_->lineEdit(), &QLineEdit::editingFinished, this, &SizesBar::readDevice);

    fitButton_ = new QToolButton;
    fitButton_->setPopupMode(QToolButton::MenuButtonPopup);
    fitButton_->setMenu(new QMenu(fitButton_));
    connect(fitButton_, &QToolButton::clicked, this, [this] { fitLargest(fitSymbol_); });
    layout->addWidget(fitButton_);
    message_ = new QLabel;
    message_->setTextFormat(Qt::PlainText);
    message_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->setVisible(false);
    outer->addWidget(message_);

    connect(fitJobs_, &JobTracker::failed, this, [this](const QString& message) {
        showMessage(message, true);
        emit fitFinished();
    });
    connect(state_, &ViewState::sceneChanged, this, &SizesBar::onScene);
    connect(state_, &ViewState::unitsChanged, this, [this] {
        if (!fitText_) return;
        auto text = std::move(fitText_);
        showMessage(text(), messageIsError_);
        fitText_ = std::move(text);
    });
    for (int i = 0; i < deviceCombo_->count(); ++i)
        if (deviceCombo_->itemData(i).toLongLong() == std::int64_t{kDefaultPresetGb} * 1000 * 1000 * 1000)
            deviceCombo_->setCurrentIndex(i);
    readDevice();
    setVisible(false);
}

SizesBar::~SizesBar() = default;

QString SizesBar::label(int symbol) const { return rows_[static_cast<std::size_t>(symbol)]->name; }
QSlider* SizesBar::slider(int symbol) const { return rows_[static_cast<std::size_t>(symbol)]->slider; }
Int64SpinBox* SizesBar::field(int symbol) const { return rows_[static_cast<std::size_t>(symbol)]->field; }
bool SizesBar::fitting() const { return fitJobs_->busy(); }
QString SizesBar::message() const { return message_->toolTip(); }

void SizesBar::onScene(const std::shared_ptr<const Scene>& scene) {
    inFlight_ = false;
    if (!scene || !scene->file || scene->file->symbolic.empty()) {
        fitJobs_->cancel();
        rowsFor_.reset();
        values_.clear();
        queued_ = false;
        setVisible(false);
        emit deviceMemoryChanged(-1, QString());
        return;
    }
    const fxmem::SymbolicSizes& sy = scene->file->symbolic;
    if (rowsFor_ != scene->loaded || rows_.size() != sy.symbols.size()) {
        rebuildRows(*scene);
        queued_ = false;
        values_ = sy.bound;
        showMessage(QString(), false);
    }
    setVisible(true);
    // A move made while this scene was computed: ask for the latest value now.
    if (queued_ && values_ != sy.bound) {
        queued_ = false;
        request();
    } else {
        queued_ = false;
        values_ = sy.bound;
    }
    showValues();
    announceDevice();
}

void SizesBar::rebuildRows(const Scene& scene) {
    rowsFor_ = scene.loaded;
    for (auto& r : rows_) delete r->box;
    rows_.clear();
    const std::vector<fxmem::Symbol>& symbols = scene.file->symbolic.symbols;
    const QStringList names = symbolLabels(symbols);
    fitSymbol_ = 0;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        const fxmem::Symbol& s = symbols[i];
        auto row = std::make_unique<Row>();
        row->name = names[static_cast<int>(i)];
        row->scale = LogScale::of(s);
        row->box = new QWidget;
        auto* h = new QHBoxLayout(row->box);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(4);
        row->label = new QLabel(row->name);
        row->slider = new QSlider(Qt::Horizontal);
        row->slider->setRange(0, LogScale::kSliderSteps);
        row->slider->setMinimumWidth(70);
        row->field = new Int64SpinBox;
        row->field->setRange(s.min, s.max ? *s.max : INT64_MAX);
        row->field->setValue(scene.file->symbolic.bound[i]);
        QString tip = symbolTooltip(s);
        if (row->scale.capped)
            tip += u'\n' % tr("The range has no upper bound: the slider ends at %1 (64 × the traced size, at least "
                              "65536); type any larger value in the field.")
                               .arg(row->scale.max);
        tip += u'\n' % tr("The slider's scale is logarithmic.");
        for (QWidget* w :
             {static_cast<QWidget*>(row->label), static_cast<QWidget*>(row->slider), static_cast<QWidget*>(row->field)})
            w->setToolTip(tip);
        h->addWidget(row->label);
        h->addWidget(row->slider, 1);
        h->addWidget(row->field);
        rowsBox_->layout()->addWidget(row->box);
        const int symbol = static_cast<int>(i);
        connect(row->slider, &QSlider::valueChanged, this, [this, symbol](int position) {
            const Row& r = *rows_[static_cast<std::size_t>(symbol)];
            changed(symbol, r.scale.value(position));
        });
        connect(row->field, &Int64SpinBox::valueChanged, this,
                [this, symbol](std::int64_t value) { changed(symbol, value); });
        if (row->name == QStringLiteral("batch") && fitSymbol_ == 0) fitSymbol_ = symbol;
        rows_.push_back(std::move(row));
    }
    QMenu* menu = fitButton_->menu();
    menu->clear();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const int symbol = static_cast<int>(i);
        menu->addAction(tr("Largest %1 that fits").arg(rows_[i]->name), this, [this, symbol] {
            fitSymbol_ = symbol;
            updateFitButton();
            fitLargest(symbol);
        });
    }
    updateFitButton();
}

void SizesBar::showValues() {
    for (std::size_t i = 0; i < rows_.size() && i < values_.size(); ++i) {
        const Row& r = *rows_[i];
        const QSignalBlocker a(r.slider), b(r.field);
        // The slider stays where it is when it already shows the value (a drag between positions).
        if (r.scale.value(r.slider->value()) != values_[i]) r.slider->setValue(r.scale.position(values_[i]));
        r.field->setValue(values_[i]);
    }
}

void SizesBar::setValue(int symbol, std::int64_t value) {
    field(symbol)->setValue(value); // valueChanged -> changed()
}

QString SizesBar::setValues(const QString& assignments) {
    const auto& scene = state_->scene();
    if (rows_.empty() || !scene || !scene->file) return tr("the file has no symbolic sizes");
    const fxmem::SymbolicSizes& sy = scene->file->symbolic;
    for (const QString& item : assignments.split(u',', Qt::SkipEmptyParts)) {
        const QString name = item.section(u'=', 0, 0).trimmed();
        bool ok = false;
        const qlonglong value = item.section(u'=', 1).trimmed().toLongLong(&ok);
        if (!ok || !item.contains(u'=')) return tr("expected SYM=VALUE, got '%1'").arg(item);
        std::optional<std::size_t> i = sy.find_symbol(name.toStdString());
        for (std::size_t k = 0; !i && k < rows_.size(); ++k)
            if (rows_[k]->name == name) i = k;
        if (!i) return tr("no symbol '%1'").arg(name);
        const fxmem::Symbol& s = sy.symbols[*i];
        if (!s.contains(value))
            return tr("%1 = %2 is outside its range %3")
                .arg(name)
                .arg(value)
                .arg(QString::fromStdString(s.range_text()));
        setValue(static_cast<int>(*i), value);
    }
    return {};
}

void SizesBar::changed(int symbol, std::int64_t value) {
    const auto i = static_cast<std::size_t>(symbol);
    if (i >= values_.size()) return;
    values_[i] = value;
    showValues();
    request();
}

void SizesBar::request() {
    const auto& scene = state_->scene();
    if (values_.empty() || !scene || !scene->file) return;
    if (inFlight_) {
        queued_ = true;
        return;
    }
    if (values_ == scene->file->symbolic.bound) return;
    inFlight_ = true;
    emit bindingRequested(values_);
}

void SizesBar::bindingFailed(const QString& message) {
    inFlight_ = false;
    queued_ = false;
    if (const auto& scene = state_->scene(); scene && scene->file && !scene->file->symbolic.empty())
        values_ = scene->file->symbolic.bound;
    showValues();
    if (!message.isEmpty()) showMessage(message, true);
}

void SizesBar::setDeviceMemory(std::int64_t bytes) {
    const int preset = deviceCombo_->findData(QVariant::fromValue<qlonglong>(bytes < 0 ? -1 : bytes));
    if (preset >= 0)
        deviceCombo_->setCurrentIndex(preset);
    else
        deviceCombo_->setEditText(QString::number(bytes));
    readDevice();
}

void SizesBar::readDevice() {
    const QString text = deviceCombo_->currentText().trimmed();
    const int index = deviceCombo_->findText(text);
    std::int64_t bytes = -1;
    QString name;
    if (index >= 0) {
        bytes = deviceCombo_->itemData(index).toLongLong();
        if (bytes >= 0) name = text.section(u'·', 0, 0).trimmed();
    } else if (const std::optional<std::int64_t> b = parseDeviceMemory(text)) {
        bytes = *b;
        name = text;
    } else {
        showMessage(tr("Not a memory size: '%1' (try 80GB, 79.6GiB, 512MiB)").arg(text.left(40)), true);
        const int back = deviceCombo_->findData(QVariant::fromValue<qlonglong>(device_));
        if (back >= 0)
            deviceCombo_->setCurrentIndex(back);
        else
            deviceCombo_->setEditText(deviceName_);
        return;
    }
    if (bytes == device_ && name == deviceName_) return;
    device_ = bytes;
    deviceName_ = name;
    updateFitButton();
    announceDevice();
}

void SizesBar::announceDevice() {
    if (rows_.empty()) return;
    emit deviceMemoryChanged(device_, deviceName_);
}

void SizesBar::updateFitButton() {
    const QString name = fitSymbol_ < symbolCount() ? label(fitSymbol_) : QString();
    fitButton_->setText(tr("Largest %1 that fits").arg(name));
    fitButton_->setEnabled(device_ >= 0 && !rows_.empty());
    fitButton_->setToolTip(
        tr("The largest %1 whose peak, as the timeline measures it, fits the device's memory with every "
           "smaller one, the other sizes as set: found exactly (fxmem-cli fit), not by sampling. The arrow "
           "chooses another size.")
            .arg(name));
}

void SizesBar::fitLargest(int symbol) {
    const auto& scene = state_->scene();
    if (!scene || !scene->file || symbol < 0 || symbol >= symbolCount()) return;
    if (device_ < 0) {
        showMessage(tr("Choose the GPU's memory first."), true);
        emit fitFinished();
        return;
    }
    const std::int64_t limit = device_;
    const QString deviceName = deviceName_;
    const std::vector<std::int64_t> binding = values_;
    showMessage(tr("Finding the largest %1…").arg(label(symbol)), false);
    fitJobs_->start<fxmem::FitResult>(
        [scene, symbol, binding, limit](JobContext& job) {
            job.throwIfCancelled();
            // The search polls the job's check before every evaluation: a scan of a million
            // values stops when cancelled, not when it ends.
            return std::make_shared<const fxmem::FitResult>(fitView(
                *scene->file, scene->request, static_cast<std::size_t>(symbol), binding, limit, job.cancelCheck()));
        },
        [this, symbol, limit, deviceName](std::shared_ptr<const fxmem::FitResult> r) {
            const QString name = label(symbol);
            // Formatted again when the byte units change, while the answer is shown.
            auto text = [r, name, limit, deviceName] {
                const QString device = deviceName.isEmpty() || deviceName == formatBytes(limit)
                                           ? formatBytes(limit)
                                           : deviceName % QStringLiteral(" (") % formatBytes(limit) % u')';
                // The margins, not the two peaks: both round to the limit's figure.
                const QString next =
                    !r->next_value ? tr("; that is the range's maximum")
                    : !r->peak_at_next
                        ? tr("; %1 = %2 overflows int64").arg(name).arg(*r->next_value)
                        : tr("; %1 would be over by %2").arg(*r->next_value).arg(formatBytes(*r->peak_at_next - limit));
                if (r->max_value)
                    return tr("Largest %1 in %2: %3, %4 free%5")
                        .arg(name, device)
                        .arg(*r->max_value)
                        .arg(formatBytes(limit - *r->peak_at_max), next);
                if (r->fits_first) // sizes that do not grow with the symbol: other values fit
                    return tr("Nothing fits in %1 from the minimum %2 = %3, but every %2 from %4 to %5 does")
                        .arg(device, name)
                        .arg(r->next_value.value_or(0))
                        .arg(*r->fits_first)
                        .arg(*r->fits_last);
                return tr("Nothing fits in %1: at %2 = %3 the peak is %4")
                    .arg(device, name)
                    .arg(r->next_value.value_or(0))
                    .arg(r->peak_at_next ? formatBytes(*r->peak_at_next) : tr("over 2^63 bytes"));
            };
            showMessage(text(), !r->max_value);
            fitText_ = std::move(text);
            if (r->max_value) setValue(symbol, *r->max_value);
            emit fitFinished();
        });
}

void SizesBar::showMessage(const QString& text, bool error) {
    fitText_ = nullptr;
    messageIsError_ = error;
    message_->setVisible(!text.isEmpty());
    message_->setText(text);
    message_->setToolTip(text);
    QPalette p = palette();
    if (error) p.setColor(QPalette::WindowText, QColor(0xD5, 0x5E, 0x00));
    message_->setPalette(p);
}
