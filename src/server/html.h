// Html: the pieces every monitoring page is made of — escaping, the page frame (its CSS and the
// few lines of JavaScript that refresh it in place), durations, times and an SVG line chart.
// Nothing is fetched from outside the server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cdclake::server {

/// `text` safe inside HTML text and attribute values.
std::string Escape(const std::string& text);
/// `text` as one URL path segment (percent-encoded outside letters, digits and `-._~`).
std::string PathSegment(const std::string& text);

/// A whole page: `title`, then `body` inside <main>, stamped with `now_ms`. With `refresh_ms`
/// > 0, the page fetches itself that often and swaps in the new <main> (no reload, no flicker).
std::string HtmlPage(const std::string& title, const std::string& body, int64_t refresh_ms,
                     int64_t now_ms);

/// "2026-12-04 01:02:03Z" (UTC, whole seconds); "—" for 0.
std::string TimeText(int64_t ms);
/// "850 ms", "12.3 s", "4 min 5 s".
std::string DurationText(int64_t ms);
/// 1234567 as "1,234,567".
std::string CountText(int64_t n);

struct ChartPoint {
  int64_t time_ms = 0;
  double value = 0;
};

/// An SVG line chart of `points` (oldest first) titled `title`, values in `unit`; says so when
/// there are no points.
std::string SvgChart(const std::string& title, const std::string& unit,
                     const std::vector<ChartPoint>& points);

}  // namespace cdclake::server
