// HostTensor's storage: copies are deep, share() is O(1) and copy-on-write, uninitialized()
// has the right size, moves leave an empty tensor.
#include <gtest/gtest.h>

#include "ops/host_tensor.h"

namespace rung::ops {
namespace {

HostTensor iota(std::uint64_t n) {
  std::vector<float> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return HostTensor::from_f32({n}, v);
}

TEST(HostTensor, CopiesAreDeep) {
  HostTensor a = iota(8);
  HostTensor b = a;
  EXPECT_NE(a.bytes().data(), static_cast<const HostTensor&>(b).bytes().data());
  b.store_f32(3, 42.0f);
  EXPECT_EQ(a.load_f32(3), 3.0f);
  HostTensor c;
  c = a;
  c.set_raw<float>(0, -1.0f);
  EXPECT_EQ(a.load_f32(0), 0.0f);
  EXPECT_TRUE(HostTensor(a).identical(a));
}

TEST(HostTensor, ShareHoldsTheSameBytesUntilAWrite) {
  HostTensor a = iota(8);
  const HostTensor s = a.share();
  EXPECT_EQ(static_cast<const HostTensor&>(a).bytes().data(), s.bytes().data());
  EXPECT_TRUE(s.identical(a));
  // A write through either side gives the writer its own bytes first.
  a.store_f32(2, 7.0f);
  EXPECT_EQ(a.load_f32(2), 7.0f);
  EXPECT_EQ(s.load_f32(2), 2.0f);
  HostTensor t = s.share();
  t.bytes()[0] = 0xFF;
  EXPECT_EQ(s.raw<std::uint8_t>(0), 0);
  // Once the other sharer is gone the survivor writes in place.
  HostTensor u = iota(4);
  const std::uint8_t* before;
  {
    HostTensor v = u.share();
    before = static_cast<const HostTensor&>(v).bytes().data();
  }
  u.store_f32(1, 5.0f);
  EXPECT_EQ(u.bytes().data(), before);
}

TEST(HostTensor, UninitializedHasTheSizeAndMovesEmptyTheSource) {
  HostTensor a = HostTensor::uninitialized(DType::f16, {3, 5});
  EXPECT_EQ(a.bytes().size(), 30u);
  EXPECT_EQ(a.shape(), (Extents{3, 5}));
  HostTensor b = std::move(a);
  EXPECT_EQ(b.bytes().size(), 30u);
  EXPECT_TRUE(a.bytes().empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  HostTensor z(DType::i32, {0});
  EXPECT_TRUE(z.identical(HostTensor::uninitialized(DType::i32, {0})));
}

}  // namespace
}  // namespace rung::ops
