// Html and Pages: escaping of everything a user names, links as path segments, counts, and the
// pages naming each flow with its counts.
#include "server/html.h"

#include <gtest/gtest.h>

#include "server/pages.h"

namespace cdclake::server {
namespace {

TEST(HtmlTest, EscapesTextAndPaths) {
  EXPECT_EQ(Escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(PathSegment("shop.customers"), "shop.customers");
  EXPECT_EQ(PathSegment("a b/c?"), "a%20b%2Fc%3F");
  EXPECT_EQ(CountText(0), "0");
  EXPECT_EQ(CountText(1234567), "1,234,567");
  EXPECT_EQ(CountText(-1000), "-1,000");
  EXPECT_EQ(DurationText(850), "850 ms");
  EXPECT_EQ(DurationText(12'300), "12.3 s");
  EXPECT_EQ(DurationText(245'000), "4 min 5 s");
  EXPECT_EQ(TimeText(0), "—");
  EXPECT_EQ(TimeText(1'800'000'000'000), "2027-01-15 08:00:00Z");
}

TEST(HtmlTest, ChartsSayWhenThereIsNothingToDraw) {
  EXPECT_NE(SvgChart("lag", "s", {}).find("no batches"), std::string::npos);
  std::string svg = SvgChart("rate", "rows/s", {{1'000, 5}, {2'000, 10}});
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("top 10 rows/s"), std::string::npos) << svg;
}

TEST(PagesTest, TheIndexEscapesWhatUsersNamed) {
  FlowCard card;
  card.flow = "f<1>";
  card.target = "s.t";
  card.source = "files '<in>/*.csv' (csv)";
  card.state = "failed";
  card.message = "bad <value>";
  card.rows_read = 1234;
  PageContext context{"lake", 1'800'000'000'000, 2000};
  std::string page = IndexPage(context, {card}, {});
  EXPECT_NE(page.find("data-flow=\"f&lt;1&gt;\""), std::string::npos);
  EXPECT_NE(page.find("href=\"/flow/f%3C1%3E\""), std::string::npos);
  EXPECT_NE(page.find("bad &lt;value&gt;"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n read\">1,234</td>"), std::string::npos);
  EXPECT_EQ(page.find("<value>"), std::string::npos);
  EXPECT_NE(page.find("data-refresh-ms=\"2000\""), std::string::npos);
}

}  // namespace
}  // namespace cdclake::server
