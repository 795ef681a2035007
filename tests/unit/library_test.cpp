// emit --library's files without building them: the dispatcher matches each variant on the
// CPUID words of its vendor, its family and model, and the features its kernel needs; the
// portable body needs none; inputs that cannot make a library are refused. (tests/e2e/library.sh
// builds and runs the result, here and under qemu.)
#include <string>

#include <gtest/gtest.h>

#include "source_paths.hpp"

#include "library/library_files.hpp"
#include "report/variant_runs.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

using csumtune::test_paths::committedResults;

std::string fileOf(const std::vector<std::pair<std::string, std::string>>& files,
                   const std::string& name) {
  for (const auto& [file, content] : files)
    if (file == name) return content;
  ADD_FAILURE() << "no file " << name;
  return "";
}

LibraryVariant made(const std::string& key, const std::string& vendor, std::uint32_t family,
                    std::uint32_t model, const std::string& params) {
  LibraryVariant v;
  v.cpuKey = key;
  v.vendor = vendor;
  v.family = family;
  v.model = model;
  v.stepping = 1;
  v.source.params = gen::parseParams(params);
  return v;
}

TEST(Library, DispatcherMatchesVendorFamilyModelAndFeatures) {
  LibraryRequest request;
  request.variants = {made("amd-19-11-1-x", "AuthenticAMD", 0x19, 0x11, "carry=adc"),
                      made("intel-06-55-1-x", "GenuineIntel", 0x6, 0x55, "carry=avx512vnni")};
  request.fallback = defaultFallback();
  request.command = "csumtune emit --library ...";
  const auto files = renderLibrary(request);
  const std::string c = fileOf(files, kLibraryDispatcher);
  // "Auth" "enti" "cAMD" and "Genu" "ineI" "ntel" as CPUID returns them in ebx, edx, ecx.
  EXPECT_NE(c.find("cpu.vendor_ebx == 0x68747541u && cpu.vendor_edx == 0x69746e65u &&\n"
                   "        cpu.vendor_ecx == 0x444d4163u && cpu.family == 0x19u && "
                   "cpu.model == 0x11u"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("cpu.vendor_ebx == 0x756e6547u"), std::string::npos);
  EXPECT_NE(c.find("(cpu.features & (CSUMTUNE_AVX512F | CSUMTUNE_AVX512_VNNI)) == "
                   "(CSUMTUNE_AVX512F | CSUMTUNE_AVX512_VNNI)"),
            std::string::npos);
  EXPECT_NE(c.find("__attribute__((ifunc(\"csumtune_resolve_csum_partial\")))"), std::string::npos);
  EXPECT_NE(c.find("return csum_partial_intel_06_55_1_x;"), std::string::npos);
  EXPECT_NE(c.find("return csum_partial_portable;"), std::string::npos);
  const std::string s = fileOf(files, kLibraryAssembly);
  EXPECT_EQ(s.find("SPDX", 10), std::string::npos) << "one SPDX line, at the top";
  EXPECT_NE(s.find("\t.hidden\tcsum_partial_amd_19_11_1_x\n"), std::string::npos);
  EXPECT_NE(s.find("csum_partial_portable:"), std::string::npos);
  EXPECT_NE(fileOf(files, kLibraryHeader).find("const char *csum_partial_variant(void);"),
            std::string::npos);
  EXPECT_NE(fileOf(files, kLibraryPkgConfig).find("prefix=${pcfiledir}"), std::string::npos);
}

TEST(Library, SymbolNamesEveryFunction) {
  LibraryRequest request;
  request.variants = {made("amd-1a-02-1-x", "AuthenticAMD", 0x1a, 0x02, "carry=adcx")};
  request.symbol = "my_csum";
  const auto files = renderLibrary(request);
  const std::string c = fileOf(files, kLibraryDispatcher);
  EXPECT_NE(c.find("uint32_t my_csum(const void *buf"), std::string::npos);
  EXPECT_NE(c.find("const char *my_csum_variant(void)"), std::string::npos);
  EXPECT_NE(c.find("(cpu.features & (CSUMTUNE_ADX)) == (CSUMTUNE_ADX)"), std::string::npos);
  EXPECT_NE(fileOf(files, kLibraryAssembly).find("my_csum_amd_1a_02_1_x:"), std::string::npos);
}

TEST(Library, FallbackMustRunEverywhere) {
  LibraryRequest request;
  request.fallback = gen::parseParams("carry=adcx");
  EXPECT_THROW(checkLibraryRequest(request), BadRequest);
  request.fallback = gen::parseParams("carry=adc,kind=copy");
  EXPECT_THROW(checkLibraryRequest(request), BadRequest);
  request.fallback = gen::parseParams("carry=cmov,chains=3,unroll=9");
  EXPECT_NO_THROW(checkLibraryRequest(request));
  request.symbol = "not a name";
  EXPECT_THROW(checkLibraryRequest(request), BadRequest);
}

TEST(Library, ReadsTheCommittedRuns) {
  const auto variants =
      readLibraryVariants({committedResults("amd-19-11-1-0a1bbd54/kernel"),
                           committedResults("amd-1a-02-1-5d4b381f/kernel/results.json")});
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0].cpuKey, "amd-19-11-1-0a1bbd54");
  EXPECT_EQ(variants[0].vendor, "AuthenticAMD");  // CPUID's string, from the recorded "AMD"
  EXPECT_EQ(variants[0].family, 0x19u);
  EXPECT_EQ(variants[0].model, 0x11u);
  EXPECT_EQ(variants[1].family, 0x1au);
  EXPECT_EQ(variants[1].source.style, SourceStyle::Gas);
  EXPECT_TRUE(variants[1].source.tunedOn.has_value());
}

TEST(Library, RefusesWhatCannotMakeALibrary) {
  EXPECT_THROW(readLibraryVariants({committedResults("amd-19-11-1-0a1bbd54/copy-kernel")}),
               BadRequest);
  EXPECT_THROW(readLibraryVariants({committedResults("amd-19-11-1-0a1bbd54/kernel"),
                                    committedResults("amd-19-11-1-0a1bbd54/imix")}),
               BadRequest);
  EXPECT_THROW(readLibraryVariants({committedResults("amd-19-11-1-0a1bbd54")}), BadRequest);
  EXPECT_THROW(readLibraryVariants({committedResults("no-such-key/kernel/results.json")}),
               std::exception);
}

}  // namespace
}  // namespace csumtune::tuner
