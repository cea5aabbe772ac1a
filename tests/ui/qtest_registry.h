// Every tests/ui/test_*.cpp is one QtTest class in one executable (fxmem-ui-tests), so the classes
// share one compile and one link; ctest still runs each class in a process of its own
// (`fxmem-ui-tests TestBreakdown`), as QTEST_MAIN did. A file ends with FXMEM_QTEST(Class) where
// QTEST_MAIN(Class) stood.
#pragma once
#include <QObject>

#include <map>
#include <memory>
#include <string>

namespace fxmem_qtest {

using Factory = std::unique_ptr<QObject> (*)();

// Class name -> a new instance; filled before main by the FXMEM_QTEST registrations.
std::map<std::string, Factory>& classes();

struct Registration {
    Registration(const char* name, Factory make) { classes().emplace(name, make); }
};

} // namespace fxmem_qtest

#define FXMEM_QTEST(Class)                                                                                             \
    static const fxmem_qtest::Registration fxmemQtestRegistration##Class(                                              \
        #Class, []() -> std::unique_ptr<QObject> { return std::make_unique<Class>(); });
