// The registry: every carry family, in the order of carry_families.def. Params, the parser's
// messages, the space, the feature checks and the tests all read it.
#include <array>
#include <bit>
#include <cstdlib>

#include "../carry_family.hpp"

namespace csumtune::gen {
namespace detail {

#define CSUMTUNE_CARRY_FAMILY(name, function) const CarryFamily& function();
#include "csumtune/gen/carry_families.def"
#undef CSUMTUNE_CARRY_FAMILY

namespace {

constexpr std::size_t kFamilyCount = 0
#define CSUMTUNE_CARRY_FAMILY(name, function) +1
#include "csumtune/gen/carry_families.def"
#undef CSUMTUNE_CARRY_FAMILY
    ;

struct Registry {
  std::array<const CarryFamily*, kFamilyCount> families{
#define CSUMTUNE_CARRY_FAMILY(name, function) &function(),
#include "csumtune/gen/carry_families.def"
#undef CSUMTUNE_CARRY_FAMILY
  };
  std::array<const CarryTraits*, kFamilyCount> traits{};

  Registry() {
    for (std::size_t i = 0; i < kFamilyCount; ++i) {
      traits[i] = &families[i]->traits();
      // The enum and the table come from one list: a family declaring another Carry value
      // is a registry bug, caught on first use.
      if (static_cast<std::size_t>(traits[i]->carry) != i) std::abort();
    }
  }
};

// Built on first use, so code running during static initialization may ask for it.
const Registry& registry() {
  static const Registry instance;
  return instance;
}

}  // namespace

const CarryFamily& familyOf(Carry carry) {
  return *registry().families.at(static_cast<std::size_t>(carry));
}

RegisterNeeds CarryFamily::registerNeeds(const Params& params) const {
  return {params.chains, false, 0};
}

int CarryFamily::scalarTailTop(const Params& params) const {
  return static_cast<int>(std::bit_floor(static_cast<unsigned>(params.blockBytes() - 1)));
}

}  // namespace detail

const CarryTraits& traitsOf(Carry carry) {
  return *detail::registry().traits.at(static_cast<std::size_t>(carry));
}

std::span<const CarryTraits* const> allCarryTraits() {
  return detail::registry().traits;
}

}  // namespace csumtune::gen
