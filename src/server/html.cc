// Html: escaping, the page frame and the SVG chart.
#include "server/html.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "data/value_format.h"

namespace cdclake::server {

namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; gap: 16px;
         align-items: baseline; }
header a { color: #fff; text-decoration: none; font-weight: 600; }
header .updated { margin-left: auto; color: #aab; font-size: 12px; }
main { padding: 16px 20px; }
h1 { font-size: 18px; margin: 0 0 12px; }
h2 { font-size: 15px; margin: 20px 0 8px; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { padding: 5px 8px; border-bottom: 1px solid #e3e5ea; text-align: left;
         vertical-align: top; }
th { font-size: 12px; color: #556; font-weight: 600; background: #eef0f4; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.state { display: inline-block; padding: 1px 8px; border-radius: 9px; font-size: 12px;
         font-weight: 600; }
.state-ok { background: #dcf5e3; color: #166534; }
.state-failed { background: #fde2e1; color: #991b1b; }
.state-waiting, .state-starting { background: #fdf1d6; color: #854d0e; }
.state-skipped { background: #e5e7eb; color: #374151; }
.message { color: #991b1b; font-size: 12px; white-space: pre-wrap; }
.muted { color: #778; }
dl { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; margin: 0; }
dt { color: #556; }
svg { background: #fff; border: 1px solid #e3e5ea; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.wide { overflow-x: auto; }
td.source { max-width: 260px; overflow-wrap: anywhere; font-size: 12px; }
td.last-commit { white-space: nowrap; }
)";

// Fetches the page again and swaps in its <main>; on an error, keeps the last one and says so.
constexpr const char* kRefresh = R"(
(function () {
  const every = Number(document.body.dataset.refreshMs);
  if (!every) return;
  async function refresh() {
    try {
      const response = await fetch(location.pathname, {
        cache: 'no-store', signal: AbortSignal.timeout(Math.max(5000, 2 * every)) });
      if (!response.ok) throw new Error('status ' + response.status);
      const page = new DOMParser().parseFromString(await response.text(), 'text/html');
      const main = page.querySelector('main');
      if (!main) throw new Error('not a cdclake page');
      document.querySelector('main').replaceWith(main);
      document.querySelector('.updated').textContent = page.querySelector('.updated').textContent;
    } catch (e) {
      document.querySelector('.updated').textContent = 'not refreshed: ' + e.message;
    }
    setTimeout(refresh, every);
  }
  setTimeout(refresh, every);
})();
)";

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string Escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string PathSegment(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : text) {
    if (std::isalnum(ch) != 0 || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += kHex[ch >> 4];
      out += kHex[ch & 15];
    }
  }
  return out;
}

std::string HtmlPage(const std::string& title, const std::string& body, int64_t refresh_ms,
                     int64_t now_ms) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>" +
         Escape(title) + " · cdclake</title><style>" + kStyle +
         "</style></head>\n<body data-refresh-ms=\"" + std::to_string(refresh_ms) +
         "\"><header><a href=\"/\">cdclake</a><span>" + Escape(title) +
         "</span><span class=\"updated\">" + TimeText(now_ms) + "</span></header>\n<main>\n" +
         body + "</main>\n<script>" + kRefresh + "</script></body></html>\n";
}

std::string TimeText(int64_t ms) {
  if (ms <= 0) return "—";
  // YYYY-MM-DD HH:MM:SS.ffffffZ without the fraction.
  std::string t = data::FormatTimestamp(ms * 1000, /*utc=*/true);
  return t.size() > 19 ? t.substr(0, 19) + "Z" : t;
}

std::string DurationText(int64_t ms) {
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms < 60'000) return Format("%.1f s", static_cast<double>(ms) / 1000.0);
  return std::to_string(ms / 60'000) + " min " + std::to_string((ms % 60'000) / 1000) + " s";
}

std::string CountText(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string SvgChart(const std::string& title, const std::string& unit,
                     const std::vector<ChartPoint>& points) {
  constexpr double kWidth = 520, kHeight = 160, kLeft = 56, kRight = 10, kTop = 24, kBottom = 22;
  std::string svg = "<svg class=\"chart\" role=\"img\" aria-label=\"" + Escape(title) +
                    "\" width=\"520\" height=\"160\" viewBox=\"0 0 520 160\" "
                    "xmlns=\"http://www.w3.org/2000/svg\"><text x=\"8\" y=\"16\" font-size=\"12\" "
                    "font-weight=\"600\">" +
                    Escape(title) + "</text>";
  if (points.empty()) {
    return svg + "<text x=\"8\" y=\"90\" font-size=\"12\" fill=\"#778\">no batches since serve " +
           "started</text></svg>";
  }
  int64_t t0 = points.front().time_ms;
  int64_t t1 = std::max<int64_t>(points.back().time_ms, t0 + 1);
  double top = 0;
  for (const ChartPoint& p : points) top = std::max(top, p.value);
  if (top <= 0) top = 1;
  auto x = [&](int64_t t) {
    return kLeft +
           (kWidth - kLeft - kRight) * static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
  };
  auto y = [&](double v) { return kTop + (kHeight - kTop - kBottom) * (1 - v / top); };
  svg += "<line x1=\"56\" y1=\"138\" x2=\"510\" y2=\"138\" stroke=\"#ccd\"/>";
  svg += "<line x1=\"56\" y1=\"24\" x2=\"510\" y2=\"24\" stroke=\"#eef\"/>";
  svg += "<text x=\"510\" y=\"16\" font-size=\"11\" text-anchor=\"end\" fill=\"#556\">top " +
         Escape(Format("%.4g", top)) + " " + Escape(unit) + "</text>";
  svg += "<text x=\"52\" y=\"28\" font-size=\"11\" text-anchor=\"end\" fill=\"#556\">" +
         Escape(Format("%.3g", top)) + "</text>";
  svg += "<text x=\"52\" y=\"142\" font-size=\"11\" text-anchor=\"end\" fill=\"#556\">0</text>";
  svg += "<text x=\"56\" y=\"156\" font-size=\"11\" fill=\"#556\">" +
         Escape(TimeText(t0).substr(11, 8)) + "</text>";
  svg += "<text x=\"510\" y=\"156\" font-size=\"11\" text-anchor=\"end\" fill=\"#556\">" +
         Escape(TimeText(t1).substr(11, 8)) + "</text>";
  std::string line;
  for (const ChartPoint& p : points) {
    line += Format("%.1f", x(p.time_ms)) + "," + Format("%.1f", y(p.value)) + " ";
  }
  svg +=
      "<polyline fill=\"none\" stroke=\"#2563eb\" stroke-width=\"1.5\" points=\"" + line + "\"/>";
  for (const ChartPoint& p : points) {
    svg += "<circle r=\"2\" fill=\"#2563eb\" cx=\"" + Format("%.1f", x(p.time_ms)) + "\" cy=\"" +
           Format("%.1f", y(p.value)) + "\"/>";
  }
  return svg + "</svg>";
}

}  // namespace cdclake::server
