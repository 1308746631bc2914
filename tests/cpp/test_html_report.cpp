// The HTML report's page: names escaped in the tables, the embedded data unable to end its
// <script> element, pictures only for failing outputs that have one.
#include "report/html_report.h"

#include <doctest/doctest.h>

using pypto_golden::html_report_document;
using pypto_golden::OutputPicture;
using pypto_golden::OutputRecord;
using pypto_golden::RunRecord;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("names are escaped and the data cannot close its script element") {
  RunRecord r;
  r.kernel = "<k>";
  r.platform = "a2a3sim";
  OutputRecord o;
  o.name = "y</script><b>";
  o.tolerance = "rtol=1e-05, atol=1e-05";
  OutputPicture p;
  p.slice = "[:]";
  p.rows = 1;
  p.cols = 2;
  p.grid_rows = 1;
  p.grid_cols = 2;
  p.max_diff = {0.0f, 2.0f};
  p.worst_cell = {0, 1};
  o.picture = p;
  r.outputs.push_back(o);
  const std::string page = html_report_document("a&b.py", {r});
  CHECK(page.find("<h1>a&amp;b.py</h1>") != std::string::npos);
  CHECK(page.find("&lt;k&gt;") != std::string::npos);
  CHECK(page.find("y&lt;/script&gt;&lt;b&gt;") != std::string::npos);
  CHECK(count(page, "</script>") == 2);  // the data's and the drawing script's own ends
  CHECK(page.find("y<\\/script><b>") != std::string::npos);
  CHECK(count(page, "data-kind=\"heatmap\"") == 1);
  CHECK(page.find("1 run, 0 passed") != std::string::npos);
  CHECK(page.find("<meta name=\"generator\" content=\"pypto-golden report\">") != std::string::npos);
}

TEST_CASE("a passing output draws nothing; a failing one without a picture shows its text only") {
  RunRecord r;
  r.passed = false;
  OutputRecord pass;
  pass.name = "a";
  pass.passed = true;
  OutputRecord fail;
  fail.name = "b";
  fail.detail = "Mismatched elements: 1 / 4";
  r.outputs = {pass, fail};
  const std::string page = html_report_document("k.py", {r});
  CHECK(count(page, "<canvas") == 0);
  CHECK(page.find("<pre>Mismatched elements: 1 / 4</pre>") != std::string::npos);
}
