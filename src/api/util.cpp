// The public helpers of include/rung/util.h, over the library's own.
#include "plan/size.h"
#include "rung/util.h"

namespace rung {

std::optional<std::uint64_t> parse_size(std::string_view text) { return plan::parse_size(text); }

}  // namespace rung
