// The fixture folders and files the core tests name, defined once for every test file (the unity
// build compiles several test files as one).
#pragma once
#include <string>

inline const std::string kData = FXMEM_TEST_DATA;
inline const std::string kGood = kData + "/good";
inline const std::string kBad = kData + "/bad";
inline const std::string kExamples = kData + "/../../resources/examples";
inline const std::string kJoint = kGood + "/joint.json";
inline const std::string kAnnotated = kGood + "/annotated.json";
