// Attribute declarations and the resolved view kernels and shape rules read. Resolution
// (checking a node's or a command line's attributes against the declaration and filling in
// defaults) happens once, before any shape rule or kernel runs, so the accessors here can
// treat a wrong kind as an internal bug.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph/attr.h"

namespace rung::ops {

enum class AttrPresence : std::uint8_t { required, optional, defaulted };

struct AttrSpec {
  std::string name;
  AttrKind kind = AttrKind::integer;
  AttrPresence presence = AttrPresence::required;
  std::optional<AttrValue> default_value;  // set when presence == defaulted
  std::vector<std::string> choices;        // for strings: the allowed values (empty: any)
  std::string doc;

  std::string to_string() const;  // "axis: int = -1", "to: dtype", "axes: ints?"
};

class Attrs {
 public:
  Attrs() = default;
  explicit Attrs(AttrMap resolved) : map_(std::move(resolved)) {}

  bool has(std::string_view name) const { return map_.find(std::string(name)) != map_.end(); }
  bool boolean(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  double real(std::string_view name) const;
  const std::string& string(std::string_view name) const;
  const std::vector<std::int64_t>& integers(std::string_view name) const;
  const std::vector<double>& reals(std::string_view name) const;
  DType dtype(std::string_view name) const;
  const AttrValue& value(std::string_view name) const;

  const AttrMap& map() const { return map_; }

 private:
  AttrMap map_;
};

// Checks `given` against `specs`: unknown names, wrong kinds, missing required attributes,
// string values outside `choices`. On success returns the map with defaults filled in; on
// failure returns nullopt and appends one message per problem to `errors`.
std::optional<AttrMap> resolve_attrs(const std::vector<AttrSpec>& specs, const AttrMap& given,
                                     std::vector<std::string>& errors);

}  // namespace rung::ops
