// The JUnit writer's text: escaping and the <testsuites> totals (the files themselves are
// tested end to end in tests/e2e/test_junit.py).
#include "report/junit_report.h"

#include <doctest/doctest.h>

using namespace pypto_golden;

TEST_CASE("xml_escape keeps text and markup apart") {
  CHECK(xml_escape("a < b && \"c\" > d") == "a &lt; b &amp;&amp; &quot;c&quot; &gt; d");
  CHECK(xml_escape("two\nlines\ttab") == "two\nlines\ttab");
  CHECK(xml_escape("cr\r") == "cr&#13;");
  // XML 1.0 cannot carry other control characters, even escaped.
  CHECK(xml_escape(std::string("nul\0bell\x07", 9)) == "nul\xEF\xBF\xBD" "bell\xEF\xBF\xBD");
  CHECK(xml_escape("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("the document's totals are its suites' sums") {
  const std::string suites =
      "  <testsuite name=\"a.py\" id=\"1\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.250\">\n"
      "  </testsuite>\n"
      "  <testsuite name=\"b.py\" id=\"2\" tests=\"3\" failures=\"0\" errors=\"2\" skipped=\"0\" time=\"1.500\">\n"
      "  </testsuite>\n";
  CHECK(junit_document(suites) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"pypto-golden\" tests=\"5\" failures=\"1\" errors=\"2\" time=\"1.750\">\n" +
            suites + "</testsuites>\n");
  CHECK(junit_document("") ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"pypto-golden\" tests=\"0\" failures=\"0\" errors=\"0\" time=\"0.000\">\n"
        "</testsuites>\n");
}
