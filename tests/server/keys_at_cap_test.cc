// server/access/keys_at_cap.h: an lms key counted at its cap is refused until its window has room,
// then counted again; one key's hold is not another's.
#include "keys_at_cap.h"

#include <gtest/gtest.h>

namespace headgrader::server {
namespace {

TEST(KeysAtTheirCap, AKeyIsHeldUntilItsWindowHasRoomAndNoLonger) {
  KeysAtTheirCap held;
  EXPECT_FALSE(held.refused_until("canvas", 1'000));
  held.hold("canvas", 5'000, 1'000);
  EXPECT_EQ(held.refused_until("canvas", 1'000), 5'000);
  EXPECT_EQ(held.refused_until("canvas", 4'999), 5'000);
  EXPECT_FALSE(held.refused_until("canvas", 5'000));  // room at 5 000: counted again
  EXPECT_FALSE(held.refused_until("moodle", 1'000));  // another key is its own
}

TEST(KeysAtTheirCap, ALaterCountReplacesTheHoldAndPassedHoldsAreForgotten) {
  KeysAtTheirCap held;
  held.hold("canvas", 5'000, 1'000);
  held.hold("moodle", 2'000, 1'000);
  held.hold("canvas", 9'000, 5'000);  // counted at its cap again once its room came
  EXPECT_EQ(held.refused_until("canvas", 5'000), 9'000);
  // moodle's hold had passed when canvas was held at 5 000: forgotten, so not held even at 0.
  EXPECT_FALSE(held.refused_until("moodle", 0));
  held.hold("moodle", 900, 1'000);  // a time already past holds nothing
  EXPECT_FALSE(held.refused_until("moodle", 800));
}

}  // namespace
}  // namespace headgrader::server
