#include "base/text.h"

#include <algorithm>
#include <vector>

namespace rung {

std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t bound) {
  if (a.size() < b.size()) std::swap(a, b);
  if (a.size() - b.size() > bound) return bound + 1;
  // Only cells within `bound` of the diagonal can lie on a path of cost <= bound; the rest
  // count as bound + 1.
  const std::size_t over = bound + 1;
  std::vector<std::size_t> prev(b.size() + 1, over), cur(b.size() + 1, over);
  for (std::size_t j = 0; j <= b.size() && j <= bound; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t lo = i > bound ? i - bound : 0, hi = std::min(b.size(), i + bound);
    if (lo > 0) cur[lo - 1] = over;
    cur[lo] = lo == 0 ? std::min(i, over) : over;
    std::size_t row_min = cur[lo];
    for (std::size_t j = std::max<std::size_t>(lo, 1); j <= hi; ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1), over});
      row_min = std::min(row_min, cur[j]);
    }
    if (hi < b.size()) cur[hi + 1] = over;
    if (row_min >= over) return over;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], over);
}

}  // namespace rung
