// fxmem-ui-tests CLASS [QtTest options]: runs one registered QtTest class, as QTEST_MAIN(CLASS)
// would have run it in an executable of its own (Qt 6.4's qtest_widgets.h: a QApplication with
// 96 dpi, the test's source directory for QFINDTESTDATA).
#include "qtest_registry.h"

#include <QApplication>
#include <QtTest>

#include <cstdio>
#include <vector>

namespace fxmem_qtest {
std::map<std::string, Factory>& classes() {
    static std::map<std::string, Factory> all;
    return all;
}
} // namespace fxmem_qtest

int main(int argc, char** argv) {
    const auto& all = fxmem_qtest::classes();
    const auto found = argc >= 2 ? all.find(argv[1]) : all.end();
    if (found == all.end()) {
        std::fprintf(stderr, "usage: %s CLASS [QtTest options]\n%s: %s; the classes are:\n", argv[0],
                     argc >= 2 ? argv[1] : "CLASS", argc >= 2 ? "no such test class" : "missing");
        for (const auto& [name, make] : all) std::fprintf(stderr, "  %s\n", name.c_str());
        return 2;
    }
    // QtTest sees the command line without the class name, as its own executable's would be.
    std::vector<char*> args{argv[0]};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    int count = static_cast<int>(args.size());
    args.push_back(nullptr);
    QApplication app(count, args.data());
    app.setAttribute(Qt::AA_Use96Dpi, true);
    QTEST_SET_MAIN_SOURCE_PATH
    const std::unique_ptr<QObject> test = found->second();
    return QTest::qExec(test.get(), count, args.data());
}
